// tests/oracle/test_fp16_reference.cpp -- the integer-only fp16 reference against the spec's
// landmarks (topk_v2.md §4.1), the worked example (§4.5), CUDA's host __float2half_rn, and the
// exhaustive lower-bound property at both bin widths.
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "oracle/fp16_reference.hpp"

using namespace dsv4::oracle;

namespace {
float f(uint32_t u) { float x; std::memcpy(&x, &u, 4); return x; }
uint32_t u32(float x) { uint32_t u; std::memcpy(&u, &x, 4); return u; }
uint16_t cuda_rn(float x) { __half_raw r = __float2half_rn(x); return r.x; }
const float kInf = std::numeric_limits<float>::infinity();
// fp16 bits -> exact value, written independently of both the reference and CUDA.
double fp16_value(uint16_t h) {
  const int e = (h >> 10) & 0x1F, m = h & 0x3FF;
  const double mag = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -mag : mag;
}
}  // namespace

TEST(Fp16Reference, Landmarks) {
  struct L { float x; uint32_t b12, b10; };
  const L table[] = {
      {f(0x7FC00000u), 4095, 1023}, {f(0xFFC00001u), 4095, 1023}, {f(0x7F800001u), 4095, 1023},
      {kInf, 4032, 1008}, {65520.0f, 4032, 1008}, {1e30f, 4032, 1008}, {f(0x7F7FFFFFu), 4032, 1008},
      {65504.0f, 4031, 1007}, {std::nextafter(65520.0f, 0.0f), 4031, 1007},
      {1.0f, 3008, 752}, {0.0f, 2048, 512}, {std::nextafter(15.5f * 0x1p-24f, 0.0f), 2048, 512},
      {15.5f * 0x1p-24f, 2049, 512}, {std::nextafter(63.5f * 0x1p-24f, 0.0f), 2051, 512}, {63.5f * 0x1p-24f, 2052, 513},
      {f(0x00000001u), 2048, 512}, {-0.0f, 2047, 511}, {f(0x80000001u), 2047, 511},
      {-std::nextafter(15.5f * 0x1p-24f, 0.0f), 2047, 511}, {-1.0f, 1087, 271}, {-65504.0f, 64, 16},
      {-kInf, 63, 15}, {-65520.0f, 63, 15}, {f(0xFF7FFFFFu), 63, 15},
  };
  for (const auto& l : table) {
    EXPECT_EQ(bin_w_reference(l.x, 12), l.b12) << std::hexfloat << l.x << " bits " << std::hex << u32(l.x);
    EXPECT_EQ(bin_w_reference(l.x, 10), l.b10) << std::hexfloat << l.x << " bits " << std::hex << u32(l.x);
  }
  EXPECT_EQ(fp16_rne_reference(1.0f), 0x3C00);
  EXPECT_EQ(fp16_rne_reference(0x1p-25f), 0x0000);              // tie between 0 and 2^-24: even
  EXPECT_EQ(fp16_rne_reference(std::nextafter(0x1p-25f, 1.0f)), 0x0001);
  EXPECT_EQ(fp16_rne_reference(-65520.0f), 0xFC00);
  EXPECT_EQ(fp16_ordered_key_reference(0x0000), 0x8000);
  EXPECT_EQ(fp16_ordered_key_reference(0x8000), 0x7FFF);
  EXPECT_EQ(key32_reference(-0.0f) + 1, key32_reference(0.0f));
  EXPECT_THROW(bin_w_reference(1.0f, 0), std::invalid_argument);
  EXPECT_THROW(coarse_bin_lower_bound_reference(4096, 12), std::invalid_argument);
}

TEST(Fp16Reference, LowerBoundWorkedExampleAndSpecialBins) {
  EXPECT_EQ(u32(coarse_bin_lower_bound_reference(1024, 12)), 0xBFFFEFFFu);  // §4.5 worked example
  EXPECT_EQ(bin_w_reference(f(0xBFFFF000u), 12), 1023u);  // the midpoint itself rounds down a bin
  for (int w : {12, 10}) {
    const uint32_t ninf_bin = w == 12 ? 63 : 15, pinf_bin = w == 12 ? 4032 : 1008;
    for (uint32_t b = 0; b <= ninf_bin; ++b) EXPECT_EQ(coarse_bin_lower_bound_reference(b, w), -kInf) << b;
    EXPECT_EQ(u32(coarse_bin_lower_bound_reference(ninf_bin + 1, w)), 0xC77FEFFFu);
    EXPECT_EQ(u32(coarse_bin_lower_bound_reference(pinf_bin, w)), 0x477FF000u);
    EXPECT_EQ(u32(coarse_bin_lower_bound_reference(1u << (w - 1), w)), 0x00000000u);  // +0.0
    for (uint32_t b = pinf_bin + 1; b < (1u << w); ++b) EXPECT_EQ(coarse_bin_lower_bound_reference(b, w), kInf) << b;
  }
}

// For every bin where it is defined: bin(LB(b)) == b and bin(nextafter(LB(b), -inf)) == b - 1.
// Also: the spec's closed form (midpoint, nudged up one ulp when the fp16 code of hi is odd)
// agrees on the fast range, and the nudge is needed exactly on the negative bins.
TEST(Fp16Reference, ExhaustiveLowerBoundProperty) {
  for (int w : {12, 10}) {
    const uint32_t first = w == 12 ? 64 : 16, pinf_bin = w == 12 ? 4032 : 1008;
    int nudged_neg = 0, nudged_pos = 0, fast = 0;
    for (uint32_t b = first; b <= pinf_bin; ++b) {
      const float lb = coarse_bin_lower_bound_reference(b, w);
      ASSERT_EQ(bin_w_reference(lb, w), b) << "w " << w << " bin " << b;
      ASSERT_EQ(bin_w_reference(std::nextafter(lb, -kInf), w), b - 1) << "w " << w << " bin " << b;
      const uint32_t key = b << (16 - w);
      if (key < 0x0401 || key - 1 > 0xFBFF || key > 0xFBFF) continue;  // fast range only
      ++fast;
      auto code_of_key = [](uint32_t k) { return static_cast<uint16_t>((k & 0x8000) ? (k & 0x7FFF) : (~k & 0xFFFF)); };
      const uint16_t hi = code_of_key(key), lo = code_of_key(key - 1);
      float mid = static_cast<float>((fp16_value(hi) + fp16_value(lo)) / 2);  // exact in fp32
      const bool odd = hi & 1;
      if (odd) { mid = std::nextafter(mid, kInf); (b < (1u << (w - 1)) ? nudged_neg : nudged_pos)++; }
      EXPECT_EQ(u32(lb), u32(mid)) << "w " << w << " bin " << b;
    }
    EXPECT_EQ(nudged_neg, w == 12 ? 1983 : 495);
    EXPECT_EQ(nudged_pos, 0);
    EXPECT_EQ(fast, w == 12 ? 1983 + 1984 : 495 + 496);
  }
}

TEST(Fp16Reference, BinIsMonotoneOverTheTotalOrder) {
  // Sampled walk over every 257th key32 of the non-NaN range, plus both ends.
  for (int w : {12, 10}) {
    uint32_t prev = 0;
    for (uint64_t k = key32_reference(-kInf); k <= key32_reference(kInf); k += 257) {
      const uint32_t kk = static_cast<uint32_t>(k);
      const float x = f((kk & 0x80000000u) ? (kk & 0x7FFFFFFFu) : ~kk);
      const uint32_t b = bin_w_reference(x, w);
      ASSERT_LE(prev, b) << std::hex << kk;
      ASSERT_LT(b, (1u << w) - 1);  // no non-NaN value reaches the top bin
      prev = b;
    }
  }
}

TEST(Fp16Reference, AgreesWithCudaOnEveryFp16ValueAndNeighbours) {
  int64_t compared = 0;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF)) continue;  // fp16 NaN codes
    const float x = static_cast<float>(fp16_value(static_cast<uint16_t>(h)));
    const uint16_t next = static_cast<uint16_t>(h + 1);   // next code away from zero (same sign)
    float probes[7] = {x, std::nextafter(x, kInf), std::nextafter(x, -kInf), 0, 0, 0, 0};
    int np = 3;
    if ((h & 0x7FFF) < 0x7C00) {  // midpoint to the next code (the +-inf code for 65504), and its neighbours
      const double nv = (next & 0x7FFF) == 0x7C00 ? ((h & 0x8000) ? -65536.0 : 65536.0) : fp16_value(next);
      const float mid = static_cast<float>((fp16_value(static_cast<uint16_t>(h)) + nv) / 2);
      probes[3] = mid; probes[4] = std::nextafter(mid, kInf); probes[5] = std::nextafter(mid, -kInf);
      np = 6;
    }
    for (int i = 0; i < np; ++i) {
      ASSERT_EQ(fp16_rne_reference(probes[i]), cuda_rn(probes[i]))
          << "x bits 0x" << std::hex << u32(probes[i]) << " (fp16 code 0x" << h << ")";
      ++compared;
    }
  }
  EXPECT_GT(compared, 65536 * 3);
}

TEST(Fp16Reference, AgreesWithCudaOnRandomFp32) {
  std::mt19937 rng(2026);
  const uint16_t nan_cuda = cuda_rn(f(0x7FC00000u));
  EXPECT_EQ(nan_cuda, 0x7FFF);  // the spec's claim about CUDA 13.0's host conversion
  for (int i = 0; i < (1 << 23); ++i) {
    uint32_t u = rng();
    if (i & 1) u = (u & 0x80000000u) | (((u >> 23) % 44 + 101) << 23) | (u & 0x7FFFFFu);  // |x| in [2^-26, 2^17)
    const float x = f(u);
    ASSERT_EQ(fp16_rne_reference(x), cuda_rn(x)) << "x bits 0x" << std::hex << u;
  }
}
