// tests/kernels/topk_v2/topk_v2_keys_test.cpp -- the coarse key, bins and the RNE lower bound of
// the kernels (kernels/topk_v2/topk_v2_keys.cuh, host side of the SIMT_HD functions) against the
// independent integer reference of oracle/fp16_reference.hpp: exhaustive over bins at both widths
// (bug class 2), sampled over fp32 bit patterns for the bins, plus the spec's landmarks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/topk_v2/topk_v2_keys.cuh"
#include "oracle/fp16_reference.hpp"
#include "tests/kernels/topk_v2/topk_v2_test_util.hpp"

namespace topk = dsv4::ours::topk;
namespace orc = dsv4::oracle;

TEST(TopkV2Keys, LowerBoundMatchesReferenceForEveryBinAtBothWidths) {
  for (int w : {12, 10}) {
    int mismatches = 0;
    for (int b = 0; b < (1 << w); ++b) {
      const float got = topk::coarse_bin_lower_bound(b, w);
      const float want = orc::coarse_bin_lower_bound_reference(static_cast<uint32_t>(b), w);
      if (topk::f32_bits(got) != topk::f32_bits(want)) {
        if (++mismatches <= 5)
          ADD_FAILURE() << "w=" << w << " bin " << b << ": LB " << std::hexfloat << got << " want " << want;
      }
    }
    EXPECT_EQ(mismatches, 0) << "w = " << w;
  }
}

TEST(TopkV2Keys, LowerBoundSeparatesBins) {
  for (int w : {12, 10})
    for (int b = topk::neg_inf_bin(w) + 1; b <= topk::inf_bin(w); ++b) {
      const float lb = topk::coarse_bin_lower_bound(b, w);
      ASSERT_EQ(topk::coarse_bin(lb, w), b) << "w=" << w << " b=" << b;
      const float below = std::nextafter(lb, -tk::inf());
      ASSERT_EQ(topk::coarse_bin(below, w), b - 1) << "w=" << w << " b=" << b;
    }
}

TEST(TopkV2Keys, BinsAndKeysMatchReferenceOnSampledBitPatterns) {
  int bad = 0;
  for (uint64_t u = 0; u <= 0xFFFFFFFFull; u += 4093) {
    const float x = tk::bits(static_cast<uint32_t>(u));
    for (int w : {12, 10})
      if (static_cast<uint32_t>(topk::coarse_bin(x, w)) != orc::bin_w_reference(x, w) && ++bad < 5)
        ADD_FAILURE() << std::hex << "bits 0x" << u << " w " << std::dec << w;
    if (!topk::is_nan(x) && topk::key32(x) != orc::key32_reference(x) && ++bad < 5)
      ADD_FAILURE() << std::hex << "key32 of 0x" << u;
  }
  EXPECT_EQ(bad, 0);
}

// The one-read stage's filter (stage_filter_pass against LB_12(g), the single-CTA width) stages
// exactly the bins >= g: for sampled fp32 bit patterns and every bin's lower bound and its
// neighbour below, x passes for g = bin(x) (so for every g below it: LB is increasing, checked
// here) and fails for g = bin(x) + 1 -- except -0.0 at LB = +0.0 and +inf at the sentinel LB =
// +inf of the (empty) bins above the +inf bin, which pass (a superset the histogram and the
// classification sort out); NaN of either sign passes for every g.
TEST(TopkV2Keys, StageFilterIsTheGuessBinAndAbove) {
  constexpr int w = 12, kTop = (1 << w) - 1;
  std::vector<float> lb(size_t(kTop) + 1);
  for (int g = 0; g <= kTop; ++g) lb[size_t(g)] = topk::coarse_bin_lower_bound(g, w);
  for (int g = 1; g <= kTop; ++g) ASSERT_LE(lb[size_t(g) - 1], lb[size_t(g)]) << "LB not monotone at " << g;
  std::vector<float> xs;
  for (uint64_t u = 0; u <= 0xFFFFFFFFull; u += 4093) xs.push_back(tk::bits(static_cast<uint32_t>(u)));
  for (int g = 0; g < kTop; ++g) xs.insert(xs.end(), {lb[size_t(g)], std::nextafter(lb[size_t(g)], -tk::inf())});
  int bad = 0;
  for (float x : xs) {
    const int b = topk::coarse_bin(x, w);
    if (topk::is_nan(x)) {
      for (int g : {0, 1, 2047, 2048, kTop - 1})
        if (!topk::stage_filter_pass(x, lb[size_t(g)]) && ++bad < 5) ADD_FAILURE() << "NaN filtered out at g " << g;
      continue;
    }
    if (!topk::stage_filter_pass(x, lb[size_t(b)]) && ++bad < 5)
      ADD_FAILURE() << std::hexfloat << x << " (bin " << b << ") not staged for g = its bin";
    const bool negzero = topk::f32_bits(x) == 0x80000000u && topk::f32_bits(lb[size_t(b) + 1]) == 0u;
    const bool inf_sentinel = b == topk::inf_bin(w);
    if (b + 1 < kTop && topk::stage_filter_pass(x, lb[size_t(b) + 1]) && !negzero && !inf_sentinel && ++bad < 5)
      ADD_FAILURE() << std::hexfloat << x << " (bin " << b << ") staged for g = bin + 1";
  }
  EXPECT_EQ(bad, 0);
}

// coarse_bins4 (two fp32x2 -> fp16x2 conversions and word arithmetic on both halves, the histogram
// passes) against the oracle's bin of each lane: the sampled bit patterns
// above plus every bin's lower bound and its neighbour below (the RNE midpoints), NaN of both
// signs with payloads, +-inf, +-0, subnormals; each value in every lane position next to every
// kind of neighbour (a carry or sign leaking across the halves shows as a wrong neighbour bin).
TEST(TopkV2Keys, PairBinsAreTheBinsOfEachLane) {
  std::vector<uint32_t> v = {0x7FC00000u, 0xFFC00001u, 0x7F800001u, 0xFFFFFFFFu, 0x7FFFFFFFu, 0xFF800001u,
                             0x7F800000u, 0xFF800000u, 0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u,
                             0x477FEFFFu, 0x477FF000u, 0xC77FEFFFu, 0xC77FF000u, 0x33000000u, 0xB3000001u};
  for (int w : {12, 10})
    for (int b = 1; b <= topk::inf_bin(w); ++b) {
      const float lb = topk::coarse_bin_lower_bound(b, w);
      v.push_back(topk::f32_bits(lb));
      v.push_back(topk::f32_bits(std::nextafter(lb, -tk::inf())));
    }
  for (uint64_t u = 0; u <= 0xFFFFFFFFull; u += 40961) v.push_back(static_cast<uint32_t>(u));
  const size_t n = v.size();
  int bad = 0;
  for (int w : {12, 10})
    for (size_t i = 0; i < n; ++i)
      for (size_t s : {size_t{1}, size_t{7}, n / 3}) {  // neighbours at three strides
        const float x[4] = {tk::bits(v[i]), tk::bits(v[(i + s) % n]), tk::bits(v[(i + 2 * s) % n]),
                            tk::bits(v[(i + 3 * s) % n])};
        int got[4];
        topk::coarse_bins4(x, w, got);
        for (int c = 0; c < 4; ++c)
          if (static_cast<uint32_t>(got[c]) != orc::bin_w_reference(x[c], w) && ++bad <= 5)
            ADD_FAILURE() << std::hex << "w " << std::dec << w << " lane " << c << " bits 0x" << std::hex
                          << topk::f32_bits(x[c]) << ": bin " << std::dec << got[c] << " want "
                          << orc::bin_w_reference(x[c], w);
      }
  EXPECT_EQ(bad, 0);
}

// The word rule alone, exhaustively over the 65536 codes in each half (next to a NaN, a negative
// and a positive code): the key of each half is key16_of_code of its code, 0xFFFF for every NaN
// code (both signs, every payload -- the conversions of both backends return the canonical NaN
// 0x7FFF, so only this test sees the other NaN codes).
TEST(TopkV2Keys, PairKeysOfCodesAreTheKeysOfEachHalf) {
  const auto want = [](unsigned h) { return (h & 0x7FFFu) > 0x7C00u ? 0xFFFFu : topk::key16_of_code(h); };
  int bad = 0;
  for (unsigned h = 0; h < 0x10000u; ++h)
    for (unsigned o : {0x7E01u, 0x8001u, 0x3C00u, 0xFFFFu}) {
      const unsigned lo = topk::key16_pair_of_codes(h | (o << 16)), hi = topk::key16_pair_of_codes(o | (h << 16));
      if (((lo & 0xFFFFu) != want(h) || (lo >> 16) != want(o) || (hi >> 16) != want(h) || (hi & 0xFFFFu) != want(o)) &&
          ++bad <= 5)
        ADD_FAILURE() << std::hex << "code 0x" << h << " next to 0x" << o << ": keys 0x" << lo << " / 0x" << hi;
    }
  EXPECT_EQ(bad, 0);
}

TEST(TopkV2Keys, SpecLandmarks) {
  EXPECT_EQ(topk::coarse_bin(tk::qnan(), 12), 4095);
  EXPECT_EQ(topk::coarse_bin(-tk::qnan(), 10), 1023);
  EXPECT_EQ(topk::coarse_bin(tk::inf(), 12), 4032);
  EXPECT_EQ(topk::coarse_bin(65520.0f, 10), 1008);
  EXPECT_EQ(topk::coarse_bin(65504.0f, 12), 4031);
  EXPECT_EQ(topk::coarse_bin(1.0f, 12), 3008);
  EXPECT_EQ(topk::coarse_bin(1.0f, 10), 752);
  EXPECT_EQ(topk::coarse_bin(0.0f, 12), 2048);
  EXPECT_EQ(topk::coarse_bin(-0.0f, 12), 2047);
  EXPECT_EQ(topk::coarse_bin(-0.0f, 10), 511);
  EXPECT_EQ(topk::coarse_bin(-1.0f, 12), 1087);
  EXPECT_EQ(topk::coarse_bin(-1.0f, 10), 271);
  EXPECT_EQ(topk::coarse_bin(-std::numeric_limits<float>::max(), 12), 63);
  EXPECT_EQ(topk::coarse_bin(-tk::inf(), 10), 15);
  // worked example of §4.5: bin 1024 (12-bit)
  EXPECT_EQ(topk::f32_bits(topk::coarse_bin_lower_bound(1024, 12)), 0xBFFFEFFFu);
  EXPECT_EQ(topk::coarse_bin(tk::bits(0xBFFFF000u), 12), 1023);
  EXPECT_EQ(topk::f32_bits(topk::coarse_bin_lower_bound(64, 12)), 0xC77FEFFFu);
  EXPECT_EQ(topk::coarse_bin_lower_bound(4032, 12), 65520.0f);
  EXPECT_EQ(topk::coarse_bin_lower_bound(4033, 12), tk::inf());
  EXPECT_EQ(topk::coarse_bin_lower_bound(3, 12), -tk::inf());
  EXPECT_TRUE(topk::is_nan(topk::pad_value()) || DSV4_FAULT_TOPK_PAD_NEG_FLT_MAX);
}

// The one-read guess's sample at production sizes (1024 threads), in elements.
constexpr int kSample = topk::kSampleVpt * 1024 * 4;

// The one-read Streaming guess (topk_v2_staged.cuh, hist_pass/decide) at production sizes (1024
// threads: a sample of kSampleVpt x 1024 vectors, stage_slots(K, L) x 1024 stage slots) on normal
// rows: the whole-row fallback (t < g, or the stage overflows) must not happen, or the stage reads
// rows twice after all -- and in a B = 512 launch one such row delays the whole launch. (With 4
// slots at every size, -DDSV4_TOPK_STAGE_SLOTS=4, the L = 131072 K = 2048 rows overflow.) The guess target is the kernel's
// own stage_guess_target; the rest of the rule (highest bin whose sample suffix reaches the target,
// elements past the sample with bin >= g staged) is restated here. With the earlier rule (150 % of
// K, no margin) about 1 normal row in 500-1500 at L = 131072, K = 512 falls back, too rare for
// these 400 rows; with 125 % and no margin (DSV4_TOPK_STAGE_TARGET_PCT=125
// DSV4_TOPK_STAGE_MARGIN_SIGMA=0) 19 of them fall back at the 1-vector sample (9 at 2) and the test
// fails; docs/performance.md quotes the rates.
TEST(TopkV2Keys, StageGuessDoesNotFallBackOnNormalRows) {
  constexpr int kBins = 4096, kTop = kBins - 1;
  std::mt19937 g(2026);
  std::normal_distribution<float> nd;
  int fallbacks = 0;
  std::string where;
  for (int L : {65536, 131072})
    for (int K : {512, 2048})
      for (int r = 0; r < 100; ++r) {
        std::vector<int> bin(L);
        for (int& b : bin) b = topk::coarse_bin(nd(g), 12);
        auto threshold = [&](int lo, int hi, long long target) {  // highest bin with suffix >= target
          std::vector<long long> h(kBins, 0);
          for (int i = lo; i < hi; ++i) ++h[size_t(bin[size_t(i)])];
          long long s = 0;
          for (int t = kTop - 1; t >= 0; --t)
            if ((s += h[size_t(t)]) >= target) return t;
          return 0;
        };
        const int gb = threshold(0, kSample, topk::stage_guess_target(K, kSample / 4, L / 4));
        const int t = threshold(0, L, K);
        const long long cap = static_cast<long long>(topk::stage_slots(K, L, 1024)) * 1024;
        long long staged = 0;  // the sample's own elements of bin >= g too (kStageSample)
        for (int i = topk::kStageSample ? 0 : kSample; i < L; ++i) staged += bin[size_t(i)] >= gb && bin[size_t(i)] < kTop;
        if (t < gb || staged > cap) {
          ++fallbacks;
          where += " (L " + std::to_string(L) + ", K " + std::to_string(K) + ", row " + std::to_string(r) +
                   (staged > cap ? ": overflow)" : ": guess above the threshold bin)");
        }
      }
  EXPECT_EQ(fallbacks, 0) << "rows that would read the row twice:" << where;
}

// The guess's margin (DSV4_TOPK_STAGE_MARGIN_SIGMA), bounded for ANY row whose positions are
// independent of its values, not only normal ones: a guess too high (g > t, the threshold bin)
// needs the sample's suffix at bin t + 1 to reach the target, and the row's elements of bin > t are
// fewer than K, all of them among its top K. So P(fallback) <= P(X >= target), X ~
// Hypergeometric(L, K, sample elements): the number of the row's top K that fall in the sample.
// At the default 5 sigma that is <= 7.5e-6 a row over the staged sizes below (about 0.4 % of
// B = 512 launches at L = 131072, K = 512, fewer elsewhere); at 4 sigma it is up to 2.1e-4 a row
// (10 % of those launches), and the test fails (-DDSV4_TOPK_STAGE_MARGIN_SIGMA=4). A fallback
// costs a B = 512 launch +6..19 us at L = 65536 (H200, docs/performance.md, twenty-first pass);
// the smaller stage saves 0.2..0.8 us.
TEST(TopkV2Keys, StageGuessFallbackIsRareForAnyExchangeableRow) {
  auto log_choose = [](double n, double r) { return std::lgamma(n + 1) - std::lgamma(r + 1) - std::lgamma(n - r + 1); };
  for (int L : {20480, 24576, 32768, 65536, 131072})
    for (int K : {512, 1024, 2048}) {
      const int target = topk::stage_guess_target(K, kSample / 4, L / 4);
      double tail = 0;
      for (int x = target; x <= std::min(K, kSample); ++x)
        tail += std::exp(log_choose(K, x) + log_choose(L - K, kSample - x) - log_choose(L, kSample));
      EXPECT_LE(tail, 1e-5) << "L " << L << " K " << K << " target " << target
                            << ": P(the sample holds >= target of the row's top K)";
    }
}

// stage_slots (topk_v2_keys.cuh), the stage's capacity per launch at production sizes: 4 slots a
// thread wherever a normal row's staged elements fit with their margin, more only for the long
// rows of a large K (the H200 A/B: 4 slots overflowed at L = 131072, K = 2048), never more than
// DSV4_TOPK_STAGE_SLOTS, never fewer than DSV4_TOPK_STAGE_SLOTS_MIN (the values are those of the
// default bounds 4 and 8: a build with other bounds fails here).
TEST(TopkV2Keys, StageSlotsGrowOnlyWhereANormalRowStagesMore) {
  for (int K : {1, 512, 2048})
    for (int L : {1, 4096, 16384, 20480, 32768, 65536}) EXPECT_EQ(topk::stage_slots(K, L, 1024), 4) << K << " " << L;
  EXPECT_EQ(topk::stage_slots(512, 131072, 1024), 4);
  EXPECT_EQ(topk::stage_slots(2048, 131072, 1024), 6);
  EXPECT_EQ(topk::stage_slots(2048, 262144, 1024), 8);
  EXPECT_EQ(topk::stage_slots(2048, 1 << 30, 1024), 8);
  int prev = 0;
  for (int L = 1024; L <= (1 << 24); L *= 2) {  // monotone in L, within the bounds
    const int s = topk::stage_slots(2048, L, 1024);
    EXPECT_GE(s, prev) << L;
    EXPECT_GE(s, DSV4_TOPK_STAGE_SLOTS_MIN) << L;
    EXPECT_LE(s, DSV4_TOPK_STAGE_SLOTS) << L;
    prev = s;
  }
}

namespace {
float from_key32(unsigned k) { return topk::f32_from_bits((k & 0x80000000u) ? (k & 0x7FFFFFFFu) : ~k); }
}  // namespace

// The classification pass by keys (KeyClassifier, DSV4_TOPK_KEY_CLASSIFY): bin_key_floor(b) must be
// exactly the first key of bin >= b, for every bin at both widths (bins are monotone in key
// order), and the classifier must agree with classify(x, coarse_bin(x)) around every bound (the
// fp16 round-to-even midpoints, -0 / +0, +-inf, subnormals, NaN).
TEST(TopkV2Keys, KeyFloorIsTheFirstKeyOfEachBin) {
  constexpr unsigned kNegInfKey = 0x007FFFFFu, kPosInfKey = 0xFF800000u;
  for (int w : {10, 12})
    for (int b = 0; b <= (1 << w); ++b) {
      const unsigned k = topk::bin_key_floor(b, w);
      if (k >= kNegInfKey && k <= kPosInfKey) {
        ASSERT_GE(topk::coarse_bin(from_key32(k), w), b) << "w " << w << " bin " << b << " key " << k;
      }
      if (k > kNegInfKey && k - 1 <= kPosInfKey) {
        ASSERT_LT(topk::coarse_bin(from_key32(k - 1), w), b) << "w " << w << " bin " << b << " key " << k - 1;
      }
    }
}

TEST(TopkV2Keys, KeyClassifierAgreesWithRecomputedBins) {
  std::mt19937 g(7);
  for (int w : {10, 12}) {
    const int top = (1 << w) - 1;
    for (int b = 0; b <= top; ++b) {
      const unsigned k = topk::bin_key_floor(b, w);
      std::vector<float> xs = {from_key32(k), from_key32(k - 1), from_key32(k + 1), -0.0f, 0.0f,
                               topk::f32_from_bits(0x7FC00000u), topk::f32_from_bits(0xFFC00001u),
                               topk::f32_from_bits(0x00000001u), topk::f32_from_bits(0x80000001u)};
      for (int i = 0; i < 4; ++i) xs.push_back(topk::f32_from_bits(static_cast<unsigned>(g())));
      for (int t : {b - 2, b - 1, b, b + 1}) {
        if (t < -1 || t >= top) continue;
        const topk::KeyClassifier kc(t, w);
        for (float x : xs)
          ASSERT_EQ(kc(x), topk::classify(x, topk::coarse_bin(x, w), t, w))
              << "w " << w << " t " << t << " x bits 0x" << std::hex << topk::f32_bits(x);
      }
    }
  }
}
