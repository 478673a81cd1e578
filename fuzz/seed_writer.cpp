// fuzz/seed_writer.cpp -- writes the hand-written seed cases (seed_cases.hpp) as case files named
// by the SHA-1 of their bytes: <out>/fuzz_<target>/<sha1>. Prints "<target> <sha1> <name>" per file.
//   dsv4_seed_writer [--out corpus] [--block-threads 128]
// Re-running is idempotent (same bytes, same names); stale seeds are not deleted.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz/seed_cases.hpp"
#include "harness/report.hpp"
#include "harness/codec.hpp"

namespace fs = std::filesystem;
using namespace dsv4;

static int write_all(const fs::path& root, const std::string& target, const std::vector<seeds::Named>& v) {
  for (const seeds::Named& s : v) {
    try {
      const std::string path = harness::write_corpus_file((root / target).string(), s.c);
      std::printf("%s %s %s\n", target.c_str(), fs::path(path).filename().c_str(), s.name.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "seed_writer: %s\n", e.what());
      return 1;
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  fs::path out = "corpus";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) out = argv[++i];
    else if (a == "--block-threads" && i + 1 < argc) gen::limits().block_threads = std::atoi(argv[++i]);
    else { std::fprintf(stderr, "usage: %s [--out DIR] [--block-threads N]\n", argv[0]); return 2; }
  }
  int rc = 0;
  rc |= write_all(out, "fuzz_topk_v2", seeds::topk_v2_paged());
  rc |= write_all(out, "fuzz_topk_v2_ragged", seeds::topk_v2_ragged());
  rc |= write_all(out, "fuzz_topk_bf16_small", seeds::bf16_small());
  rc |= write_all(out, "fuzz_block_amax", seeds::amax8());
  rc |= write_all(out, "fuzz_candidate_block_table", seeds::candidate_table());
  rc |= write_all(out, "fuzz_pipeline", seeds::pipeline());
  return rc;
}
