// tests/kernels/indexer/topk_bf16_small_keys_test.cpp -- the bf16 kernel's word-wise key
// conversion (pair_key: both halves of a 32-bit word at once) against the spec's per-value
// definition, exhaustively per half: D(x) = x XOR (0xFFFF if the sign bit is set, else 0x8000)
// (topk_bf16_small.md §4.1), and 0 ("absent") for a NaN of either sign (OUR NaN policy, §3.2).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/topk_bf16_small/topk_bf16_small_keys.cuh"

namespace {

uint32_t spec_key(uint32_t x) {  // x: 16-bit bf16 pattern
  const bool nan = (x & 0x7F80u) == 0x7F80u && (x & 0x007Fu) != 0u;
  if (nan) return 0u;
  return x ^ ((x & 0x8000u) != 0u ? 0xFFFFu : 0x8000u);
}

TEST(TopkBf16SmallKeys, PairKeyIsTheSpecKeyOfEachHalf) {
  // Every pattern in one half against partners that would expose a carry or borrow between the
  // halves: zeros, infinities, the NaN edges, the largest magnitudes, both signs.
  const std::vector<uint32_t> partners = {0x0000u, 0x8000u, 0x0001u, 0x7F7Fu, 0x7F80u, 0x7F81u,
                                          0x7FC0u, 0x7FFFu, 0xFF7Fu, 0xFF80u, 0xFF81u, 0xFFFFu,
                                          0x3F80u, 0xBF80u, 0x00FFu, 0x80FFu};
  int bad = 0;
  for (uint32_t x = 0; x < 0x10000u && bad < 5; ++x)
    for (uint32_t y : partners) {
      const uint32_t lo = dsv4::ours::bf16::pair_key(x | (y << 16));
      const uint32_t hi = dsv4::ours::bf16::pair_key(y | (x << 16));
      const uint32_t want_lo = spec_key(x) | (spec_key(y) << 16);
      const uint32_t want_hi = spec_key(y) | (spec_key(x) << 16);
      if (lo != want_lo || hi != want_hi) {
        ADD_FAILURE() << std::hex << "x = 0x" << x << ", partner 0x" << y << ": pair_key(low x) = 0x"
                      << lo << " want 0x" << want_lo << ", pair_key(high x) = 0x" << hi
                      << " want 0x" << want_hi;
        ++bad;
      }
    }
  EXPECT_EQ(bad, 0);
}

}  // namespace
