// tests/kernels/indexer/topk_bf16_small_keys_test.cpp -- the bf16 kernel's key conversion pieces
// against the spec's per-value definition, exhaustively per half: D(x) = x XOR (0xFFFF if the sign
// bit is set, else 0x8000) (topk_bf16_small.md §4.1), and 0 ("absent") for a NaN of either sign
// (OUR NaN policy, §3.2). The kernel makes a word's keys with sign_order_halves, flags NaN halves with
// pair_nan_probe and clears them with clear_nan_keys; lane_key for the partial last vector.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/topk_bf16_small/topk_bf16_small_keys.cuh"

namespace {

namespace b = dsv4::ours::bf16;

bool spec_nan(uint32_t x) { return (x & 0x7F80u) == 0x7F80u && (x & 0x007Fu) != 0u; }
uint32_t spec_key(uint32_t x) {  // x: 16-bit bf16 pattern
  return spec_nan(x) ? 0u : x ^ ((x & 0x8000u) != 0u ? 0xFFFFu : 0x8000u);
}

TEST(TopkBf16SmallKeys, WordKeysAreTheSpecKeyOfEachHalf) {
  // Every pattern in one half against partners that would expose a carry or borrow between the
  // halves: zeros, infinities, the NaN edges, the largest magnitudes, both signs.
  const std::vector<uint32_t> partners = {0x0000u, 0x8000u, 0x0001u, 0x7F7Fu, 0x7F80u, 0x7F81u,
                                          0x7FC0u, 0x7FFFu, 0xFF7Fu, 0xFF80u, 0xFF81u, 0xFFFFu,
                                          0x3F80u, 0xBF80u, 0x00FFu, 0x80FFu};
  int bad = 0;
  for (uint32_t x = 0; x < 0x10000u && bad < 5; ++x) {
    if (b::lane_key(x) != spec_key(x)) {
      ADD_FAILURE() << std::hex << "lane_key(0x" << x << ") = 0x" << b::lane_key(x) << " want 0x" << spec_key(x);
      ++bad;
    }
    for (uint32_t y : partners)
      for (const uint32_t w : {x | (y << 16), y | (x << 16)}) {
        const uint32_t lo = w & 0xFFFFu, hi = w >> 16;
        const uint32_t keys = b::clear_nan_keys(dsv4::ours::sign_order_halves(w));
        const uint32_t flags = b::pair_nan_probe(w) & 0x80008000u;
        const uint32_t want_flags = (spec_nan(lo) ? 0x8000u : 0u) | (spec_nan(hi) ? 0x80000000u : 0u);
        if (keys != (spec_key(lo) | (spec_key(hi) << 16)) || flags != want_flags) {
          ADD_FAILURE() << std::hex << "word 0x" << w << ": keys 0x" << keys << " want 0x"
                        << (spec_key(lo) | (spec_key(hi) << 16)) << ", NaN flags 0x" << flags
                        << " want 0x" << want_flags;
          ++bad;
        }
      }
  }
  EXPECT_EQ(bad, 0);
}

}  // namespace
