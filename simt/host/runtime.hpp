// simt/host/runtime.hpp -- host branch of simt/portable.h: the CUDA names kernels use, mapped
// onto the CPU execution layer (one fiber per CUDA thread). Same names and signatures as the
// CUDA branch of portable.h; see docs/simt.md.
#pragma once

#include <cstring>
#include <driver_types.h>
#include <vector_types.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <math.h>

#include "simt/host/atomics.hpp"
#include "simt/host/cluster.hpp"
#include "simt/host/control.hpp"
#include "simt/host/core.hpp"
#include "simt/host/intrinsics.hpp"
#include "simt/host/mailbox.hpp"
#include "simt/host/rt.hpp"
#include "simt/host/virtual_device.hpp"
#include "simt/host/warp.hpp"
#include "simt/emu/fp16_device.hpp"

#define SIMT_KERNEL
#define SIMT_DEVICE inline
#define SIMT_HD inline
#define SIMT_LAUNCH_BOUNDS(t, b)

// SIMT_SHARED(T, x, [N]); -> a T(&)[N] (or T& for empty dims) into the block's static arena.
#define SIMT_SHARED(T, name, dims)                                                             \
  using simt_shared_type_##name = T dims;                                                      \
  static ::simt::detail::SharedSlot simt_shared_slot_##name{                                  \
      sizeof(simt_shared_type_##name), alignof(simt_shared_type_##name) < 16 ? 16 : alignof(simt_shared_type_##name), \
      #name, __FILE__, __LINE__, 0, 0};                                                        \
  simt_shared_type_##name& name =                                                              \
      *static_cast<simt_shared_type_##name*>(::simt::detail::shared_slot_ptr(simt_shared_slot_##name))

// SIMT_DYN_SHARED(T, x); -> T* into the block's dynamic shared memory (16-byte aligned).
#define SIMT_DYN_SHARED(T, name) T* const name = static_cast<T*>(::simt::detail::dynamic_shared())

#define SIMT_PDL_WAIT() ::simt::detail::pdl_wait(::simt::Site::here())
#define SIMT_PDL_TRIGGER() ::simt::detail::pdl_trigger(::simt::Site::here())
#define SIMT_GLOBALTIMER() ::simt::globaltimer_ns()
#define SIMT_CLOCK64() static_cast<long long>(::simt::globaltimer_ns())
#define SIMT_LOAD_L2ONLY(p) (*(p))
#define SIMT_LOAD_STREAM(p) (*(p))
#define SIMT_CP_ASYNC16(d, s) std::memcpy((d), (s), 16)
#define SIMT_CP_ASYNC_COMMIT() ((void)0)
#define SIMT_CP_ASYNC_WAIT(n) ((void)0)
#define SIMT_PRMT(x, y, s) ::simt::prmt_reference((x), (y), (s))
namespace simt {
// The steady clock in ns (the GPU's %globaltimer; timing instruments only).
inline unsigned long long globaltimer_ns() {
  return static_cast<unsigned long long>(std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now().time_since_epoch()).count());
}
}  // namespace simt

