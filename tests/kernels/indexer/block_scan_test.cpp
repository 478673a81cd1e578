// tests/kernels/indexer/block_scan_test.cpp -- the candidate table's warp / block word scan on its
// own (spec candidate_block_table.md §6: all-ones, single-bit and random words), run on the simt
// emulator at 1024 threads (the kernel's size) and at smaller block sizes.
#include <numeric>

#include "indexer_test_util.hpp"
#include "kernels/candidate_block_table/block_word_scan.cuh"
#include "simt/portable.h"

using namespace idxtest;

namespace {

template <int WPT>
SIMT_KERNEL void word_ranks_kernel(const unsigned* words, unsigned* ranks, unsigned* total) {
  SIMT_SHARED(unsigned, warp_sums, [32]);
  unsigned w[WPT], r[WPT];
  for (int i = 0; i < WPT; ++i) w[i] = words[threadIdx.x * WPT + i];
  const unsigned t = dsv4::ours::cand::block_word_ranks<WPT>(w, r, warp_sums);
  for (int i = 0; i < WPT; ++i) ranks[threadIdx.x * WPT + i] = r[i];
  total[threadIdx.x] = t;
}

SIMT_KERNEL void warp_scan_kernel(const unsigned* in, unsigned* out) {
  out[threadIdx.x] = dsv4::ours::cand::warp_inclusive_scan(in[threadIdx.x]);
}

template <int WPT>
void check_ranks(const std::vector<unsigned>& words, int threads, const char* what) {
  std::vector<unsigned> ranks(words.size(), 0xDEADBEEFu), total(static_cast<size_t>(threads), 0xDEADBEEFu);
  simt::rt::LaunchConfig cfg;
  cfg.block = {static_cast<unsigned>(threads), 1u, 1u};
  ASSERT_EQ(simt::rt::launch(cfg, word_ranks_kernel<WPT>, words.data(), ranks.data(), total.data()),
            simt::rt::kSuccess);
  unsigned want = 0;
  for (size_t i = 0; i < words.size(); ++i) {
    ASSERT_EQ(ranks[i], want) << what << ": word " << i << " (WPT " << WPT << ", " << threads << " threads)";
    want += static_cast<unsigned>(__builtin_popcount(words[i]));
  }
  for (int t = 0; t < threads; ++t) ASSERT_EQ(total[t], want) << what << ": total seen by thread " << t;
}

template <int WPT>
void run_patterns(int threads) {
  const size_t n = static_cast<size_t>(threads) * WPT;
  Rng rng(static_cast<uint64_t>(threads * 10 + WPT));
  check_ranks<WPT>(std::vector<unsigned>(n, 0xFFFFFFFFu), threads, "all-ones");
  check_ranks<WPT>(std::vector<unsigned>(n, 0u), threads, "all-zero");
  std::vector<unsigned> single(n, 0u);
  for (size_t i = 0; i < n; ++i) single[i] = 1u << (i % 32);
  check_ranks<WPT>(single, threads, "single-bit every word");
  std::vector<unsigned> lone(n, 0u);
  lone[n - 1] = 0x80000000u;
  check_ranks<WPT>(lone, threads, "one bit in the last word");
  lone[n - 1] = 0;
  lone[0] = 1;
  check_ranks<WPT>(lone, threads, "one bit in the first word");
  std::vector<unsigned> rnd(n);
  for (auto& w : rnd) w = static_cast<unsigned>(rng.next());
  check_ranks<WPT>(rnd, threads, "random words");
  for (auto& w : rnd) w = rng.next() % 4 == 0 ? static_cast<unsigned>(rng.next()) : 0u;
  check_ranks<WPT>(rnd, threads, "sparse random words");
}

TEST(BlockWordScan, FourWordsPerThread1024) { run_patterns<4>(1024); }
TEST(BlockWordScan, EightWordsPerThread1024) { run_patterns<8>(1024); }
TEST(BlockWordScan, SmallerBlocks) {
  run_patterns<4>(32);
  run_patterns<4>(96);
  run_patterns<8>(64);
}

TEST(BlockWordScan, WarpInclusiveScan) {
  Rng rng(31);
  for (int pattern = 0; pattern < 3; ++pattern) {
    std::vector<unsigned> in(32), out(32, 0xDEADBEEFu);
    for (int i = 0; i < 32; ++i)
      in[i] = pattern == 0 ? 1u : pattern == 1 ? (i == 17 ? 5u : 0u) : static_cast<unsigned>(rng.next() % 1000);
    simt::rt::LaunchConfig cfg;
    cfg.block = {32u, 1u, 1u};
    ASSERT_EQ(simt::rt::launch(cfg, warp_scan_kernel, in.data(), out.data()), simt::rt::kSuccess);
    unsigned acc = 0;
    for (int i = 0; i < 32; ++i) {
      acc += in[i];
      EXPECT_EQ(out[i], acc) << "pattern " << pattern << " lane " << i;
    }
  }
}

}  // namespace
