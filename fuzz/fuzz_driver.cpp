// fuzz/fuzz_driver.cpp -- libFuzzer entry points (see fuzz_driver.hpp). Linked into every target;
// without libFuzzer (g++), replay_main.cpp provides main().
#include "fuzz/fuzz_driver.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "harness/backend.hpp"
#include "harness/codec.hpp"
#include "harness/impl.hpp"
#include "harness/rng.hpp"
#include "harness/runner.hpp"
#include "properties/failure_report.hpp"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using namespace dsv4;
using namespace dsv4::harness;

std::shared_ptr<Impl> g_impl;
std::unique_ptr<Backend> g_backend;
fuzz::InputLimits g_limits;

// Extra coverage: one counter per (kernel, row path, verdict), placed in libFuzzer's extra-counter
// section so a new path / verdict combination counts as new coverage. Outside clang builds the
// array is plain memory.
#if defined(__clang__) && defined(__linux__)
__attribute__((used, section("__libfuzzer_extra_counters")))
#endif
uint8_t g_path_cov[kKernelIdCount][DSV4_PATH_COUNT + 1][5];

void note_paths(const Outcome& o, int kernel) {
  const int v = int(o.verdict) % 5;
  for (int32_t p : o.row_paths) {
    const int pi = (p >= 0 && p < DSV4_PATH_COUNT) ? p : DSV4_PATH_COUNT;
    uint8_t& c = g_path_cov[kernel][pi][v];
    if (c < 255) ++c;
  }
}

}  // namespace

// Weak fallback: the libFuzzer runtime provides the strong symbol; replay builds never mutate.
extern "C" __attribute__((weak)) size_t LLVMFuzzerMutate(uint8_t*, size_t size, size_t) { return size; }

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  try {
    g_impl = select_impl_from_env();
    g_backend = make_backend_for(*g_impl);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: cannot load the implementation under test: %s\n", fuzz::target().name, e.what());
    std::exit(2);
  }
  g_limits = fuzz::target().limits;
  if (g_impl->caps().block_threads > 0) g_limits.block_threads = g_impl->caps().block_threads;
  if (g_impl->caps().bf16_len_max > 0) g_limits.bf16_len_max = g_impl->caps().bf16_len_max;
  std::fprintf(stderr, "%s: implementation %s, backend %s\n", fuzz::target().name, g_impl->describe().c_str(),
               g_backend->name());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::Target& t = fuzz::target();
  fuzz::InputKind kind;
  const Case c = fuzz::bytes_to_case(data, size, int(t.kernel), g_limits, &kind);
  if (kind == fuzz::InputKind::Rejected) return -1;  // too large: not run, not kept
  const Outcome o = run_case(c, *g_impl, *g_backend);
  note_paths(o, int(t.kernel));
  static const bool verbose = [] { const char* v = std::getenv("DSV4_FUZZ_VERBOSE"); return v && *v == '1'; }();
  if (verbose)
    std::fprintf(stderr, "  %s: %s %s\n", verdict_name(o.verdict), summarize_case(c).c_str(), o.reason.c_str());
  switch (o.verdict) {
    case Verdict::Pass:
    case Verdict::Skipped:
      return 0;
    case Verdict::Mismatch:
    case Verdict::GuardBreach:
    case Verdict::Error:
      break;
  }
  const char* dir_env = std::getenv("DSV4_FAILURE_DIR");
  const std::string dir = dir_env && *dir_env ? dir_env : "fuzz-failures";
  const std::string file = props::write_failure_case(c, dir, *g_impl, *g_backend);
  std::fprintf(stderr, "\n%s: %s\n%s\n", t.name, verdict_name(o.verdict),
               props::failure_text(c, o, *g_impl, *g_backend, file).c_str());
  std::fprintf(stderr, "case file: %s\nrepro: dsv4-harness repro %s\n", file.c_str(), file.c_str());
  std::fflush(stderr);
  std::abort();
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  return fuzz::custom_mutate(data, size, max_size, seed, int(fuzz::target().kernel), g_limits, &LLVMFuzzerMutate);
}
