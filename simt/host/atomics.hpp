// simt/host/atomics.hpp -- CUDA atomics on the emulator: plain read-modify-writes executed
// without yielding (atomic w.r.t. fibers), preceded by an optional scheduling point.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "simt/host/core.hpp"

namespace simt::detail {
// Race-flavour tag (simt/race): atomic accesses never race with each other.
void race_atomic(const void* p, unsigned size);  // p == nullptr: the atomic is over
extern bool g_race_on;
template <typename T, typename F>
inline T rmw(T* p, F f) {
  atomic_point();
  if (g_race_on) race_atomic(p, sizeof(T));
  T old = *p;
  *p = f(old);
  if (g_race_on) race_atomic(nullptr, 0);
  return old;
}
}  // namespace simt::detail

#define SIMT_ATOMIC_FN(name, T, expr)                                                \
  inline T name(T* address, T val) {                                                 \
    return ::simt::detail::rmw(address, [val](T old) -> T { return expr; });        \
  }                                                                                  \
  inline T name##_block(T* address, T val) { return name(address, val); }            \
  inline T name##_system(T* address, T val) { return name(address, val); }

#define SIMT_ATOMIC_INT_SET(name, expr)                   \
  SIMT_ATOMIC_FN(name, int, expr)                         \
  SIMT_ATOMIC_FN(name, unsigned int, expr)                \
  SIMT_ATOMIC_FN(name, unsigned long long, expr)

// Wrapping arithmetic goes through unsigned to stay UB-free.
SIMT_ATOMIC_FN(atomicAdd, int, static_cast<int>(static_cast<unsigned>(old) + static_cast<unsigned>(val)))
SIMT_ATOMIC_FN(atomicAdd, unsigned int, old + val)
SIMT_ATOMIC_FN(atomicAdd, unsigned long long, old + val)
SIMT_ATOMIC_FN(atomicAdd, float, old + val)
SIMT_ATOMIC_FN(atomicAdd, double, old + val)
SIMT_ATOMIC_FN(atomicAdd, __half, __hadd(old, val))
SIMT_ATOMIC_FN(atomicAdd, __nv_bfloat16, __hadd(old, val))
SIMT_ATOMIC_FN(atomicSub, int, static_cast<int>(static_cast<unsigned>(old) - static_cast<unsigned>(val)))
SIMT_ATOMIC_FN(atomicSub, unsigned int, old - val)
SIMT_ATOMIC_FN(atomicExch, int, ((void)old, val))
SIMT_ATOMIC_FN(atomicExch, unsigned int, ((void)old, val))
SIMT_ATOMIC_FN(atomicExch, unsigned long long, ((void)old, val))
SIMT_ATOMIC_FN(atomicExch, float, ((void)old, val))
SIMT_ATOMIC_INT_SET(atomicMin, (val < old ? val : old))
SIMT_ATOMIC_INT_SET(atomicMax, (val > old ? val : old))
SIMT_ATOMIC_FN(atomicMin, long long, (val < old ? val : old))
SIMT_ATOMIC_FN(atomicMax, long long, (val > old ? val : old))
SIMT_ATOMIC_INT_SET(atomicAnd, (old & val))
SIMT_ATOMIC_INT_SET(atomicOr, (old | val))
SIMT_ATOMIC_INT_SET(atomicXor, (old ^ val))
SIMT_ATOMIC_FN(atomicInc, unsigned int, (old >= val ? 0u : old + 1u))
SIMT_ATOMIC_FN(atomicDec, unsigned int, ((old == 0u || old > val) ? val : old - 1u))
#undef SIMT_ATOMIC_INT_SET
#undef SIMT_ATOMIC_FN

#define SIMT_ATOMIC_CAS(T)                                                                      \
  inline T atomicCAS(T* address, T compare, T val) {                                            \
    return ::simt::detail::rmw(address, [compare, val](T old) -> T { return old == compare ? val : old; }); \
  }                                                                                             \
  inline T atomicCAS_block(T* a, T c, T v) { return atomicCAS(a, c, v); }                       \
  inline T atomicCAS_system(T* a, T c, T v) { return atomicCAS(a, c, v); }
SIMT_ATOMIC_CAS(int)
SIMT_ATOMIC_CAS(unsigned int)
SIMT_ATOMIC_CAS(unsigned long long)
SIMT_ATOMIC_CAS(unsigned short)
#undef SIMT_ATOMIC_CAS
