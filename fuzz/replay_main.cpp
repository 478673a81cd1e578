// fuzz/replay_main.cpp -- `main` for fuzz targets built without libFuzzer (g++ builds, CTest corpus
// replay): runs every file given on the command line, and every regular file inside every
// directory given (sorted, so the order is stable), through LLVMFuzzerTestOneInput.
//
//   fuzz_topk_v2 corpus/fuzz_topk_v2 crash-1234          (exit 0 = every input passed)
//   options: -runs=N ignored, -*=... ignored (so libFuzzer-style command lines still work)
// A failing input aborts inside the target (it prints the report and writes the case file), so
// CTest sees a non-zero exit; the last "replaying" line names the input.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace fs = std::filesystem;

static std::vector<uint8_t> read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

int main(int argc, char** argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (!a.empty() && a[0] == '-') continue;  // libFuzzer flags
    std::error_code ec;
    if (fs::is_directory(a, ec)) {
      std::vector<fs::path> files;
      for (const auto& e : fs::directory_iterator(a))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      inputs.insert(inputs.end(), files.begin(), files.end());
    } else if (fs::is_regular_file(a, ec)) {
      inputs.emplace_back(a);
    } else {
      std::fprintf(stderr, "replay: %s: no such file or directory\n", a.c_str());
      return 2;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "usage: %s FILE|DIR... (replays inputs through the fuzz target)\n", argv[0]);
    return 2;
  }
  for (const fs::path& p : inputs) {
    std::fprintf(stderr, "replaying %s\n", p.c_str());
    const std::vector<uint8_t> bytes = read_all(p);
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  std::fprintf(stderr, "replay: %zu input(s) passed\n", inputs.size());
  return 0;
}
