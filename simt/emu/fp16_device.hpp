// simt/emu/fp16_device.hpp -- bit-exact host versions of the cuda_fp16.h / cuda_bf16.h
// functions that are device-only in CUDA 13 (__hfma*, __half2int_rn/_rd/_ru and friends).
// Half shuffles live in simt/host/warp.hpp. Exhaustively checked against the H200 by the
// conformance probes (tests/simt/conformance_probes.cpp).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "simt/host/intrinsics.hpp"

namespace simt::emu {

// Round a double to a binary format with M mantissa bits and E exponent bits (RNE, IEEE
// subnormals, overflow to infinity). NaN -> the canonical GPU NaN 0x7FFF.
template <int M, int E>
inline uint16_t round_double(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, 8);
  const uint16_t sign = static_cast<uint16_t>((bits >> 63) << 15);
  if (std::isnan(x)) return 0x7FFF;
  double a = std::fabs(x);
  const int bias = (1 << (E - 1)) - 1;
  const uint16_t inf = static_cast<uint16_t>(((1u << E) - 1u) << M);
  if (std::isinf(a)) return sign | inf;
  if (a == 0.0) return sign;
  int e2 = 0;
  std::frexp(a, &e2);
  int exp = e2 - 1;  // a in [2^exp, 2^(exp+1))
  const int emin = 1 - bias;
  const int qexp = (exp < emin ? emin : exp) - M;  // exponent of one unit in the last place
  double n = std::nearbyint(std::ldexp(a, -qexp));  // RNE under the default rounding mode
  uint64_t q = static_cast<uint64_t>(n);
  if (exp < emin) return sign | static_cast<uint16_t>(q);  // subnormal (or rounds up to min normal)
  if (q == (uint64_t{1} << (M + 1))) {
    q >>= 1;
    ++exp;
  }
  if (exp > bias) return sign | inf;
  return sign | static_cast<uint16_t>((static_cast<uint64_t>(exp + bias) << M) | (q - (uint64_t{1} << M)));
}

// a*b+c rounded once: the product of two 11- (or 8-) bit significands is exact in double; the
// sum is rounded to odd (RN plus the exact TwoSum error), which makes the final rounding exact.
inline double fma_round_to_odd(double a, double b, double c) {
  double p = a * b;  // exact
  double s = p + c;
  if (std::isinf(s) || std::isnan(s)) return s;
  double bb = s - p;
  double err = (p - (s - bb)) + (c - bb);  // TwoSum: exact sum = s + err
  if (err == 0.0) return s;
  double t = s;
  if ((s > 0) != (err > 0)) t = std::nextafter(s, 0.0);  // truncate toward zero
  uint64_t tb;
  std::memcpy(&tb, &t, 8);
  tb |= 1;  // sticky: the odd neighbour inside (t, t + ulp)
  std::memcpy(&t, &tb, 8);
  return t;
}

inline __half half_from_bits(uint16_t b) { return __ushort_as_half(b); }
inline __nv_bfloat16 bf16_from_bits(uint16_t b) { return __ushort_as_bfloat16(b); }

template <typename F>
inline F fma_generic(F a, F b, F c, uint16_t (*round)(double), float (*to_float)(F),
                     F (*from_bits)(uint16_t)) {
  double x = to_float(a), y = to_float(b), z = to_float(c);
  if (std::isnan(x) || std::isnan(y) || std::isnan(z)) return from_bits(0x7FFF);
  if ((std::isinf(x) && y == 0) || (std::isinf(y) && x == 0)) return from_bits(0x7FFF);
  double p = x * y;
  if (std::isinf(p) && std::isinf(z) && ((p > 0) != (z > 0))) return from_bits(0x7FFF);
  return from_bits(round(fma_round_to_odd(x, y, z)));
}
inline float h2f(__half h) { return __half2float(h); }
inline float b2f(__nv_bfloat16 h) { return __bfloat162float(h); }

}  // namespace simt::emu

inline __half __hfma(const __half a, const __half b, const __half c) {
  return simt::emu::fma_generic<__half>(a, b, c, &simt::emu::round_double<10, 5>, &simt::emu::h2f,
                                        &simt::emu::half_from_bits);
}
inline __nv_bfloat16 __hfma(const __nv_bfloat16 a, const __nv_bfloat16 b, const __nv_bfloat16 c) {
  return simt::emu::fma_generic<__nv_bfloat16>(a, b, c, &simt::emu::round_double<7, 8>,
                                               &simt::emu::b2f, &simt::emu::bf16_from_bits);
}
inline __half2 __hfma2(const __half2 a, const __half2 b, const __half2 c) {
  return __halves2half2(__hfma(__low2half(a), __low2half(b), __low2half(c)),
                        __hfma(__high2half(a), __high2half(b), __high2half(c)));
}
inline __half __hfma_sat(const __half a, const __half b, const __half c) {
  __half r = __hfma(a, b, c);
  float f = __half2float(r);
  if (std::isnan(f) || f <= 0.0f) return __ushort_as_half(0);
  if (f >= 1.0f) return __ushort_as_half(0x3C00);
  return r;
}

// Conversions with explicit rounding (PTX cvt: NaN -> 0, saturating).
inline int __half2int_rn(const __half h) { return __float2int_rn(__half2float(h)); }
inline int __half2int_rd(const __half h) { return __float2int_rd(__half2float(h)); }
inline int __half2int_ru(const __half h) { return __float2int_ru(__half2float(h)); }
inline unsigned int __half2uint_rn(const __half h) { return __float2uint_rn(__half2float(h)); }
inline unsigned int __half2uint_rd(const __half h) { return __float2uint_rd(__half2float(h)); }
inline unsigned int __half2uint_ru(const __half h) { return __float2uint_ru(__half2float(h)); }
inline short __half2short_rn(const __half h) {
  return simt::detail::cvt_sat<short>(std::nearbyint(__half2float(h)));
}
inline long long __half2ll_rn(const __half h) { return __float2ll_rn(__half2float(h)); }
inline int __bfloat162int_rn(const __nv_bfloat16 h) { return __float2int_rn(__bfloat162float(h)); }
inline int __bfloat162int_rd(const __nv_bfloat16 h) { return __float2int_rd(__bfloat162float(h)); }
inline int __bfloat162int_ru(const __nv_bfloat16 h) { return __float2int_ru(__bfloat162float(h)); }
