// tests/kernels/indexer/topk_bf16_small_keys_test.cpp -- the bf16 kernel's key conversion pieces
// against the spec's per-value definition, exhaustively per half: D(x) = x XOR (0xFFFF if the sign
// bit is set, else 0x8000) (topk_bf16_small.md §4.1), and 0 ("absent") for a NaN of either sign
// (OUR NaN policy, §3.2). The kernel makes a word's keys with word_keys, flags NaN halves with
// pair_nan_probe and clears them with clear_nan_keys; lane_key for the partial last vector. Then the
// word-wise pieces of pass 2 (min_u16x2) and of the census (ge_halves, pack_half_tops and its lane
// layout census_bit / census_lane) against their per-half definitions. (On the GPU word_keys and
// min_u16x2 are PRMT / min.u16x2 instructions: the GPU property runs check those.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/topk_bf16_small/topk_bf16_small_keys.cuh"
#include "kernels/topk_bf16_small/topk_bf16_small_split.cuh"

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
        const uint32_t keys = b::clear_nan_keys(b::word_keys(w));
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

// Partners of each 16-bit pattern in the other half (carry / borrow exposers), as above.
const std::vector<uint32_t> kPartners = {0x0000u, 0x0001u, 0x7FFEu, 0x7FFFu, 0x8000u, 0x8001u,
                                         0xFF80u, 0xFFFEu, 0xFFFFu, 0x00FFu, 0x0100u, 0x3FEEu};

TEST(TopkBf16SmallKeys, MinU16x2IsTheMinimumOfEachHalf) {
  int bad = 0;
  for (uint32_t x = 0; x < 0x10000u && bad < 5; ++x)
    for (uint32_t y : kPartners)
      for (const uint32_t a : {x | (y << 16), y | (x << 16)})
        for (const uint32_t c : {0x01000100u, 0x00000000u, 0xFFFFFFFFu, 0x7FFF8000u, x * 0x10001u}) {
          const uint32_t lo = std::min<uint16_t>(static_cast<uint16_t>(a), static_cast<uint16_t>(c));
          const uint32_t hi = std::min<uint16_t>(static_cast<uint16_t>(a >> 16), static_cast<uint16_t>(c >> 16));
          if (b::min_u16x2(a, c) != (lo | (hi << 16))) {
            ADD_FAILURE() << std::hex << "min_u16x2(0x" << a << ", 0x" << c << ") = 0x" << b::min_u16x2(a, c);
            ++bad;
          }
        }
  EXPECT_EQ(bad, 0);
}

TEST(TopkBf16SmallKeys, GeHalvesIsTheUnsignedCompareOfEachHalf) {
  // The thresholds the census uses (pivot + 1 <= 0xFF81, pivot, 0xFFFF) and every edge of the
  // borrow-free subtraction, plus random ones; every value in each half.
  std::vector<uint32_t> ts = {0x0000u, 0x0001u, 0x007Eu, 0x007Fu, 0x7FFEu, 0x7FFFu, 0x8000u,
                              0x8001u, 0xBF80u, 0xFF80u, 0xFF81u, 0xFFFEu, 0xFFFFu};
  std::mt19937 rng(23);
  for (int i = 0; i < 40; ++i) ts.push_back(rng() & 0xFFFFu);
  int bad = 0;
  for (uint32_t t : ts) {
    const uint32_t tlow = (t & 0x7FFFu) * 0x10001u, thigh = (t & 0x8000u) ? ~0u : 0u;
    for (uint32_t x = 0; x < 0x10000u && bad < 5; ++x)
      for (uint32_t y : kPartners)
        for (const uint32_t w : {x | (y << 16), y | (x << 16)}) {
          const uint32_t got = b::ge_halves(w, tlow, thigh) & 0x80008000u;
          const uint32_t want = ((w & 0xFFFFu) >= t ? 0x8000u : 0u) | ((w >> 16) >= t ? 0x80000000u : 0u);
          if (got != want) {
            ADD_FAILURE() << std::hex << "ge_halves(0x" << w << ", t 0x" << t << ") tops 0x" << got << " want 0x" << want;
            ++bad;
          }
        }
  }
  EXPECT_EQ(bad, 0);
}

TEST(TopkBf16SmallKeys, PackHalfTopsPutsEachLaneAtItsCensusBit) {
  constexpr int kWords = 4 * b::kVecsPerThread;
  for (int l = 0; l < 2 * kWords; ++l) {  // the layout is a bijection on the thread's lanes
    EXPECT_LT(b::census_bit(l), 2 * kWords);
    EXPECT_EQ(b::census_lane(b::census_bit(l)), l) << "lane " << l;
  }
  std::mt19937 rng(5);
  for (int rep = 0; rep < 2000; ++rep) {
    uint32_t r[kWords];
    unsigned want = 0u;
    for (int q = 0; q < kWords; ++q) {
      r[q] = rep < 2 * kWords ? (q == rep / 2 ? (rep % 2 ? 0x80000000u : 0x8000u) : 0u) | (rng() & 0x7FFF7FFFu)
                              : static_cast<uint32_t>(rng());  // one lane alone first, then random
      for (int h = 0; h < 2; ++h)
        if ((r[q] >> (16 * h + 15)) & 1u) want |= 1u << b::census_bit(2 * q + h);
    }
    ASSERT_EQ(b::pack_half_tops(r), want) << "repetition " << rep;
  }
}

// The kernel instantiation of a launch (ctas_per_sm_for): 4 CTAs a SM only where that makes one
// wave of what is two at 3; a forced 3 or 4 wins; any other forced value is "by batch".
TEST(TopkBf16SmallKeys, InstantiationByBatch) {
  EXPECT_EQ(b::ctas_per_sm_for(1, 132, -1, true), 3);
  EXPECT_EQ(b::ctas_per_sm_for(396, 132, -1, true), 3);
  EXPECT_EQ(b::ctas_per_sm_for(397, 132, -1, true), 4);
  EXPECT_EQ(b::ctas_per_sm_for(528, 132, -1, true), 4);
  EXPECT_EQ(b::ctas_per_sm_for(529, 132, -1, true), 3);
  EXPECT_EQ(b::ctas_per_sm_for(512, 0, -1, true), 3);    // no SM count: 3
  EXPECT_EQ(b::ctas_per_sm_for(512, 132, -1, false), 3); // the rule off (DSV4_BF16_WIDE_AUTO 0)
  EXPECT_EQ(b::ctas_per_sm_for(1, 132, 4, false), 4);    // forced
  EXPECT_EQ(b::ctas_per_sm_for(512, 132, 3, true), 3);
  EXPECT_EQ(b::ctas_per_sm_for(512, 132, 7, true), 4);   // not a choice: by batch
}

// The split of a launch (topk_bf16_small_split.cuh): forced 1 / 2 / 4 whatever the rule; by batch
// (the rule on) 4 while 4B <= 2 SMs, 2 while B <= SMs, then 1; the rule off or no SM count: 1.
TEST(TopkBf16SmallKeys, SplitByBatch) {
  EXPECT_EQ(b::split_ranks_for(1, 132, -1, true), 4);
  EXPECT_EQ(b::split_ranks_for(66, 132, -1, true), 4);
  EXPECT_EQ(b::split_ranks_for(67, 132, -1, true), 2);
  EXPECT_EQ(b::split_ranks_for(132, 132, -1, true), 2);
  EXPECT_EQ(b::split_ranks_for(133, 132, -1, true), 1);
  EXPECT_EQ(b::split_ranks_for(1, 0, -1, true), 1);      // no SM count
  EXPECT_EQ(b::split_ranks_for(1, 132, -1, false), 1);   // the rule off (the default build)
  EXPECT_EQ(b::split_ranks_for(512, 132, 4, false), 4);  // forced
  EXPECT_EQ(b::split_ranks_for(512, 132, 2, true), 2);
  EXPECT_EQ(b::split_ranks_for(1, 132, 1, true), 1);
  EXPECT_EQ(b::split_ranks_for(1, 132, 3, false), 1);    // not a choice: by batch
}

}  // namespace
