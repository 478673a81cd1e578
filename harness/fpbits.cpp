// harness/fpbits.cpp -- integer-only float helpers (see fpbits.hpp).
#include "fpbits.hpp"

namespace dsv4::harness::fp {

uint16_t f32_to_f16_rne(uint32_t u) {
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t e = (u >> 23) & 0xFFu;
  const uint32_t m = u & 0x7FFFFFu;
  if (e == 0xFFu) return uint16_t(sign | 0x7C00u | (m ? (0x200u | (m >> 13)) : 0u));
  const int32_t exp = int32_t(e) - 127 + 15;
  if (exp >= 31) return uint16_t(sign | 0x7C00u);
  if (exp <= 0) {
    if (e == 0) return uint16_t(sign);  // fp32 zero / subnormal: far below 2^-25
    const uint32_t mant = m | 0x800000u;
    const int shift = 14 - exp;  // >= 14
    if (shift > 24) return uint16_t(sign);
    uint32_t r = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return uint16_t(sign | r);
  }
  uint32_t r = (uint32_t(exp) << 10) | (m >> 13);
  const uint32_t rem = m & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;  // carry may reach inf: correct
  return uint16_t(sign | r);
}

uint32_t f16_to_f32(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1Fu;
  uint32_t m = h & 0x3FFu;
  if (e == 0x1Fu) return sign | 0x7F800000u | (m << 13);
  if (e == 0) {
    if (m == 0) return sign;
    int exp = -14;  // value = m * 2^-24 = (m / 2^10) * 2^-14
    while ((m & 0x400u) == 0) { m <<= 1; --exp; }
    m &= 0x3FFu;
    return sign | (uint32_t(exp + 127) << 23) | (m << 13);
  }
  return sign | ((e - 15 + 127) << 23) | (m << 13);
}

uint16_t f32_to_bf16_rne(uint32_t u) {
  if (is_nan(u)) return uint16_t((u >> 16) | 0x0040u);
  const uint32_t lsb = (u >> 16) & 1u;
  const uint64_t r = uint64_t(u) + 0x7FFFu + lsb;  // overflow of the max finite rounds to inf
  return uint16_t(r >> 16);
}

int bin_w(uint32_t u, int w) {
  if (is_nan(u)) return (1 << w) - 1;
  const uint16_t h = f32_to_f16_rne(u);
  const uint16_t k16 = (h & 0x8000u) ? uint16_t(~h & 0xFFFFu) : uint16_t(h | 0x8000u);
  return k16 >> (16 - w);
}

uint32_t lower_bound_bits(int bin, int w) {
  if (bin <= 0) return kNegInf;
  if (bin_w(kPosInf, w) < bin) return kPosInf;  // sentinel: no non-NaN value reaches the bin
  // Binary search over the ordered keys: the smallest key whose value's bin is >= `bin`.
  uint32_t lo = kKeyMin, hi = kKeyMax;  // bin(value(hi)) >= bin holds
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (bin_w(from_key32(mid), w) >= bin) hi = mid; else lo = mid + 1;
  }
  return from_key32(lo);
}

uint32_t step_ulps(uint32_t u, int delta) {
  if (is_nan(u)) return u;
  int64_t k = int64_t(key32(u)) + delta;
  if (k < int64_t(kKeyMin)) k = kKeyMin;
  if (k > int64_t(kKeyMax)) k = kKeyMax;
  return from_key32(uint32_t(k));
}

uint32_t fp16_midpoint(uint16_t lo, uint16_t hi) {
  // Both widen exactly; their sum is exact in fp32 only sometimes, so add in the integer domain of
  // a common fixed-point scale: fp16 values are integer multiples of 2^-24, at most 65504*2^24.
  auto to_fixed = [](uint16_t h) -> int64_t {
    const int64_t e = (h >> 10) & 0x1F, m = h & 0x3FF;
    int64_t mag = e == 0 ? m : ((m | 0x400) << (e - 1));  // units of 2^-24
    return (h & 0x8000) ? -mag : mag;
  };
  const int64_t sum = to_fixed(lo) + to_fixed(hi);  // midpoint = sum * 2^-25
  if (sum == 0) return 0;
  uint64_t mag = uint64_t(sum < 0 ? -sum : sum);
  int exp = -25;  // value = mag * 2^exp; mag < 2^42 so it fits 24 bits after normalization exactly
  while (mag >= (uint64_t(1) << 24)) {  // exact: adjacent fp16 sums have few significant bits
    mag >>= 1;
    ++exp;
  }
  while (mag < (uint64_t(1) << 23)) { mag <<= 1; --exp; }
  // value = mag * 2^exp with 2^23 <= mag < 2^24 -> fp32 exponent field exp + 23 + 127
  const uint32_t bits = (uint32_t(exp + 23 + 127) << 23) | uint32_t(mag & 0x7FFFFFu);
  return (sum < 0 ? 0x80000000u : 0u) | bits;
}

uint16_t f16_from_key16(uint16_t key) {
  return (key & 0x8000u) ? uint16_t(key & 0x7FFFu) : uint16_t(~key & 0xFFFFu);
}

}  // namespace dsv4::harness::fp
