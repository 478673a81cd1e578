// simt/host/warp.hpp -- warp-level intrinsics (shuffles, votes, match, reduce, __syncwarp,
// __activemask, %lanemask_*) with PTX semantics; each call is a scheduling point.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>

#include "simt/host/core.hpp"

namespace simt::detail {
template <typename T>
inline uint64_t to_bits(const T& v) {
  static_assert(sizeof(T) <= 8);
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <typename T>
inline T from_bits(uint64_t b) {
  T v;
  std::memcpy(static_cast<void*>(&v), &b, sizeof(T));
  return v;
}
template <typename T>
inline T shfl(WarpOp op, unsigned mask, T v, int arg, int width, Site s) {
  return from_bits<T>(warp_collective(op, mask, to_bits(v), arg, width, s));
}
}  // namespace simt::detail

#ifndef warpSize
#define warpSize 32
#endif

inline void __syncwarp(unsigned mask = 0xffffffffu, ::simt::Site s = ::simt::Site::here()) {
  ::simt::detail::warp_collective(::simt::detail::WarpOp::kSyncwarp, mask, 0, 0, 32, s);
}
inline unsigned __activemask() { return ::simt::detail::activemask(); }
inline unsigned __lanemask_lt() { return (1u << ::simt::detail::cur()->lane) - 1u; }
inline unsigned __lanemask_le() { return __lanemask_lt() | (1u << ::simt::detail::cur()->lane); }
inline unsigned __lanemask_eq() { return 1u << ::simt::detail::cur()->lane; }
inline unsigned __lanemask_ge() { return ~__lanemask_lt(); }
inline unsigned __lanemask_gt() { return ~__lanemask_le(); }

#define SIMT_DEFINE_SHFL(T)                                                                        \
  inline T __shfl_sync(unsigned mask, T var, int src, int width = 32,                              \
                       ::simt::Site s = ::simt::Site::here()) {                                    \
    return ::simt::detail::shfl(::simt::detail::WarpOp::kShflIdx, mask, var, src, width, s);       \
  }                                                                                                \
  inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32,                    \
                          ::simt::Site s = ::simt::Site::here()) {                                 \
    return ::simt::detail::shfl(::simt::detail::WarpOp::kShflUp, mask, var,                       \
                                static_cast<int>(delta), width, s);                                \
  }                                                                                                \
  inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32,                  \
                            ::simt::Site s = ::simt::Site::here()) {                               \
    return ::simt::detail::shfl(::simt::detail::WarpOp::kShflDown, mask, var,                      \
                                static_cast<int>(delta), width, s);                                \
  }                                                                                                \
  inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32,                    \
                           ::simt::Site s = ::simt::Site::here()) {                                \
    return ::simt::detail::shfl(::simt::detail::WarpOp::kShflXor, mask, var, lane_mask, width, s); \
  }
SIMT_DEFINE_SHFL(int)
SIMT_DEFINE_SHFL(unsigned int)
SIMT_DEFINE_SHFL(long)
SIMT_DEFINE_SHFL(unsigned long)
SIMT_DEFINE_SHFL(long long)
SIMT_DEFINE_SHFL(unsigned long long)
SIMT_DEFINE_SHFL(float)
SIMT_DEFINE_SHFL(double)
SIMT_DEFINE_SHFL(__half)
SIMT_DEFINE_SHFL(__half2)
SIMT_DEFINE_SHFL(__nv_bfloat16)
SIMT_DEFINE_SHFL(__nv_bfloat162)
#undef SIMT_DEFINE_SHFL

inline unsigned __ballot_sync(unsigned mask, int pred, ::simt::Site s = ::simt::Site::here()) {
  return static_cast<unsigned>(
      ::simt::detail::warp_collective(::simt::detail::WarpOp::kBallot, mask, pred != 0, 0, 32, s));
}
inline int __any_sync(unsigned mask, int pred, ::simt::Site s = ::simt::Site::here()) {
  return static_cast<int>(
      ::simt::detail::warp_collective(::simt::detail::WarpOp::kAny, mask, pred != 0, 0, 32, s));
}
inline int __all_sync(unsigned mask, int pred, ::simt::Site s = ::simt::Site::here()) {
  return static_cast<int>(
      ::simt::detail::warp_collective(::simt::detail::WarpOp::kAll, mask, pred != 0, 0, 32, s));
}
inline int __uni_sync(unsigned mask, int pred, ::simt::Site s = ::simt::Site::here()) {
  unsigned b = __ballot_sync(mask, pred, s);
  return b == 0 || b == mask;
}

#define SIMT_DEFINE_MATCH(T)                                                                     \
  inline unsigned __match_any_sync(unsigned mask, T value, ::simt::Site s = ::simt::Site::here()) { \
    return static_cast<unsigned>(::simt::detail::warp_collective(                                \
        ::simt::detail::WarpOp::kMatchAny, mask, ::simt::detail::to_bits(value), 0, 32, s));     \
  }                                                                                              \
  inline unsigned __match_all_sync(unsigned mask, T value, int* pred,                            \
                                   ::simt::Site s = ::simt::Site::here()) {                      \
    return static_cast<unsigned>(::simt::detail::warp_collective(                                \
        ::simt::detail::WarpOp::kMatchAll, mask, ::simt::detail::to_bits(value), 0, 32, s, pred)); \
  }
SIMT_DEFINE_MATCH(int)
SIMT_DEFINE_MATCH(unsigned int)
SIMT_DEFINE_MATCH(long)
SIMT_DEFINE_MATCH(unsigned long)
SIMT_DEFINE_MATCH(long long)
SIMT_DEFINE_MATCH(unsigned long long)
SIMT_DEFINE_MATCH(float)
SIMT_DEFINE_MATCH(double)
#undef SIMT_DEFINE_MATCH

#define SIMT_DEFINE_REDUCE(name, T, op)                                                        \
  inline T name(unsigned mask, T value, ::simt::Site s = ::simt::Site::here()) {               \
    return static_cast<T>(static_cast<uint32_t>(::simt::detail::warp_collective(               \
        ::simt::detail::WarpOp::op, mask, static_cast<uint32_t>(value), 0, 32, s)));           \
  }
SIMT_DEFINE_REDUCE(__reduce_add_sync, unsigned, kRedAdd)
SIMT_DEFINE_REDUCE(__reduce_add_sync, int, kRedAdd)
SIMT_DEFINE_REDUCE(__reduce_min_sync, unsigned, kRedMinU)
SIMT_DEFINE_REDUCE(__reduce_min_sync, int, kRedMinS)
SIMT_DEFINE_REDUCE(__reduce_max_sync, unsigned, kRedMaxU)
SIMT_DEFINE_REDUCE(__reduce_max_sync, int, kRedMaxS)
SIMT_DEFINE_REDUCE(__reduce_and_sync, unsigned, kRedAnd)
SIMT_DEFINE_REDUCE(__reduce_or_sync, unsigned, kRedOr)
SIMT_DEFINE_REDUCE(__reduce_xor_sync, unsigned, kRedXor)
#undef SIMT_DEFINE_REDUCE

// ---- block barriers ---------------------------------------------------------------------
inline void __syncthreads(::simt::Site s = ::simt::Site::here()) {
  ::simt::detail::block_barrier(0, 1, s);
}
inline int __syncthreads_count(int pred, ::simt::Site s = ::simt::Site::here()) {
  return ::simt::detail::block_barrier(1, pred, s);
}
inline int __syncthreads_and(int pred, ::simt::Site s = ::simt::Site::here()) {
  return ::simt::detail::block_barrier(2, pred, s);
}
inline int __syncthreads_or(int pred, ::simt::Site s = ::simt::Site::here()) {
  return ::simt::detail::block_barrier(3, pred, s);
}
