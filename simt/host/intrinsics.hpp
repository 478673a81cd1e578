// simt/host/intrinsics.hpp -- host versions of the CUDA integer / float intrinsics, min/max,
// fences. Bit-exact where the GPU result is defined (conversions saturate, NaN -> 0, as PTX cvt).
#pragma once

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "simt/prmt_reference.h"

namespace simt::detail {
template <typename To, typename From>
inline To bitcast(const From& f) {
  static_assert(sizeof(To) == sizeof(From));
  To t;
  std::memcpy(&t, &f, sizeof(To));
  return t;
}
// cvt.{rni,rzi,rmi,rpi}.s32/u32/s64/u64.f32/f64: NaN -> 0, saturate at the range ends.
template <typename I, typename F>
inline I cvt_sat(F v) {
  if (std::isnan(v)) return 0;
  const F lo = static_cast<F>(std::numeric_limits<I>::min());
  const F hi = static_cast<F>(std::numeric_limits<I>::max());  // rounds up to 2^N for wide types
  if (v <= lo) return std::numeric_limits<I>::min();
  if (v >= hi) return std::numeric_limits<I>::max();
  return static_cast<I>(v);
}
// The GPU returns the canonical NaN 0x7FFFFFFF from float arithmetic instructions.
inline float canon(float r) { return r != r ? bitcast<float>(0x7FFFFFFFu) : r; }
inline double canon(double r) { return r != r ? bitcast<double>(0x7FFFFFFFFFFFFFFFull) : r; }
// PTX max.f32/min.f32: a NaN operand (quiet or signalling) is ignored, two NaNs give the
// canonical NaN, +0 > -0. (glibc's fmaxf quiets a signalling NaN instead.)
inline float gpu_fmaxf(float a, float b) {
  const bool na = a != a, nb = b != b;
  if (na || nb) return na && nb ? bitcast<float>(0x7FFFFFFFu) : (na ? b : a);
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline float gpu_fminf(float a, float b) {
  const bool na = a != a, nb = b != b;
  if (na || nb) return na && nb ? bitcast<float>(0x7FFFFFFFu) : (na ? b : a);
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
}  // namespace simt::detail

#include <limits>

// ---- integer bit manipulation -------------------------------------------------------------
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x));
}
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
  x = ((x >> 8) & 0x00FF00FFu) | ((x & 0x00FF00FFu) << 8);
  return (x >> 16) | (x << 16);
}
inline unsigned long long __brevll(unsigned long long x) {
  return (static_cast<unsigned long long>(__brev(static_cast<unsigned>(x))) << 32) |
         __brev(static_cast<unsigned>(x >> 32));
}
// prmt.b32 with every selector's sign-mode bit cleared (simt/prmt_reference.h).
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  return ::simt::prmt_reference(x, y, s & 0x7777u);
}
// Unsigned minimum of each 16-bit half (CUDA's SIMD-in-a-word __vminu2; sm_90: min.u16x2).
inline unsigned int __vminu2(unsigned int a, unsigned int b) {
  const unsigned lo = (a & 0xFFFFu) < (b & 0xFFFFu) ? a & 0xFFFFu : b & 0xFFFFu;
  const unsigned hi = (a >> 16) < (b >> 16) ? a >> 16 : b >> 16;
  return lo | (hi << 16);
}
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
  uint64_t v = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<unsigned>((v << (shift & 31)) >> 32);
}
inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
  uint64_t v = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<unsigned>((v << (shift > 32 ? 32 : shift)) >> 32);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
  uint64_t v = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<unsigned>(v >> (shift & 31));
}
inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
  uint64_t v = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<unsigned>(v >> (shift > 32 ? 32 : shift));
}
inline unsigned int __umulhi(unsigned int a, unsigned int b) {
  return static_cast<unsigned>((static_cast<uint64_t>(a) * b) >> 32);
}
inline int __mulhi(int a, int b) {
  return static_cast<int>((static_cast<int64_t>(a) * b) >> 32);
}
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
inline long long __mul64hi(long long a, long long b) {
  return static_cast<long long>((static_cast<__int128>(a) * b) >> 64);
}
inline int __mul24(int a, int b) {
  return static_cast<int>(static_cast<unsigned>((a << 8) >> 8) * static_cast<unsigned>((b << 8) >> 8));
}
inline unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xFFFFFFu) * (b & 0xFFFFFFu); }

// ---- float reinterpretation and rounding-mode arithmetic ------------------------------------
inline unsigned int __float_as_uint(float x) { return simt::detail::bitcast<unsigned>(x); }
inline float __uint_as_float(unsigned int x) { return simt::detail::bitcast<float>(x); }
inline int __float_as_int(float x) { return simt::detail::bitcast<int>(x); }
inline float __int_as_float(int x) { return simt::detail::bitcast<float>(x); }
inline long long __double_as_longlong(double x) { return simt::detail::bitcast<long long>(x); }
inline double __longlong_as_double(long long x) { return simt::detail::bitcast<double>(x); }
inline float __fmaf_rn(float a, float b, float c) { return simt::detail::canon(std::fma(a, b, c)); }
inline double __fma_rn(double a, double b, double c) { return simt::detail::canon(std::fma(a, b, c)); }
inline float __fadd_rn(float a, float b) { return simt::detail::canon(a + b); }
inline float __fsub_rn(float a, float b) { return simt::detail::canon(a - b); }
inline float __fmul_rn(float a, float b) { return simt::detail::canon(a * b); }
inline float __fdiv_rn(float a, float b) { return simt::detail::canon(a / b); }
inline float __frcp_rn(float a) { return simt::detail::canon(1.0f / a); }
inline float __fsqrt_rn(float a) { return simt::detail::canon(std::sqrt(a)); }
inline double __dadd_rn(double a, double b) { return simt::detail::canon(a + b); }
inline double __dmul_rn(double a, double b) { return simt::detail::canon(a * b); }
inline float __saturatef(float x) { return std::isnan(x) ? 0.0f : (x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x)); }
// Fast-math approximations: the GPU uses ex2/lg2.approx; the host returns the libm value
// (not bit-exact; kernels that need exact results must not use these).
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __exp10f(float x) { return std::pow(10.0f, x); }
inline float __powf(float a, float b) { return std::pow(a, b); }
inline float __fdividef(float a, float b) { return a / b; }

inline int __float2int_rn(float x) { return simt::detail::cvt_sat<int>(std::nearbyint(x)); }
inline int __float2int_rz(float x) { return simt::detail::cvt_sat<int>(std::trunc(x)); }
inline int __float2int_rd(float x) { return simt::detail::cvt_sat<int>(std::floor(x)); }
inline int __float2int_ru(float x) { return simt::detail::cvt_sat<int>(std::ceil(x)); }
inline unsigned int __float2uint_rn(float x) { return simt::detail::cvt_sat<unsigned>(std::nearbyint(x)); }
inline unsigned int __float2uint_rz(float x) { return simt::detail::cvt_sat<unsigned>(std::trunc(x)); }
inline unsigned int __float2uint_rd(float x) { return simt::detail::cvt_sat<unsigned>(std::floor(x)); }
inline unsigned int __float2uint_ru(float x) { return simt::detail::cvt_sat<unsigned>(std::ceil(x)); }
inline long long __float2ll_rn(float x) { return simt::detail::cvt_sat<long long>(std::nearbyint(x)); }
inline long long __float2ll_rz(float x) { return simt::detail::cvt_sat<long long>(std::trunc(x)); }
inline int __double2int_rn(double x) { return simt::detail::cvt_sat<int>(std::nearbyint(x)); }
inline int __double2int_rz(double x) { return simt::detail::cvt_sat<int>(std::trunc(x)); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }
inline float __uint2float_rn(unsigned int x) { return static_cast<float>(x); }
inline float __ll2float_rn(long long x) { return static_cast<float>(x); }
inline float __ull2float_rn(unsigned long long x) { return static_cast<float>(x); }
inline float __double2float_rn(double x) { return static_cast<float>(x); }

// ---- min / max as CUDA's math_functions provide them (float versions ignore NaN like fminf) --
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned int min(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int max(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline unsigned int min(int a, unsigned int b) { return min(static_cast<unsigned>(a), b); }
inline unsigned int max(int a, unsigned int b) { return max(static_cast<unsigned>(a), b); }
inline unsigned int min(unsigned int a, int b) { return min(a, static_cast<unsigned>(b)); }
inline unsigned int max(unsigned int a, int b) { return max(a, static_cast<unsigned>(b)); }
inline long min(long a, long b) { return a < b ? a : b; }
inline long max(long a, long b) { return a > b ? a : b; }
inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
inline unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline float min(float a, float b) { return simt::detail::gpu_fminf(a, b); }
inline float max(float a, float b) { return simt::detail::gpu_fmaxf(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
inline double min(float a, double b) { return std::fmin(static_cast<double>(a), b); }
inline double max(float a, double b) { return std::fmax(static_cast<double>(a), b); }
inline double min(double a, float b) { return std::fmin(a, static_cast<double>(b)); }
inline double max(double a, float b) { return std::fmax(a, static_cast<double>(b)); }

// fmaxf/fminf as the GPU computes them (kernels call them unqualified, CUDA style). A
// function-like macro, because <math.h> already declares the libm versions; define
// SIMT_NO_FMINMAX_MACROS to keep libm's (differs for signalling NaNs and NaN pairs).
#ifndef SIMT_NO_FMINMAX_MACROS
#define fmaxf(a, b) ::simt::detail::gpu_fmaxf((a), (b))
#define fminf(a, b) ::simt::detail::gpu_fminf((a), (b))
#endif

// ---- fences: the emulator is sequentially consistent between scheduling points -------------
inline void __threadfence() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
