// simt/portable.h -- the ONLY header kernel sources include.
//
// Compiled by nvcc (__CUDACC__): maps to CUDA. Compiled by a host compiler: maps to simt/, the
// CPU execution layer (one fiber per CUDA thread). See docs/simt.md and ../shared/design/simt.md.
//
// Kernel-source rules (checked by scripts/lint_kernels.sh): no raw __shared__, no asm, no
// __CUDA_ARCH__ branches, no __ldg; use the spellings below.
//
//   SIMT_KERNEL                 __global__
//   SIMT_DEVICE                 __device__ __forceinline__          (device-only helpers)
//   SIMT_HD                     __host__ __device__ __forceinline__ (helpers used on both sides)
//   SIMT_LAUNCH_BOUNDS(t, b)    __launch_bounds__(t, b)
//   SIMT_SHARED(T, x, [N]);     __shared__ T x[N];   (dims may be empty for a scalar: SIMT_SHARED(int, c, );)
//   SIMT_DYN_SHARED(T, x);      extern __shared__ T x[];
//   SIMT_PDL_WAIT()             griddepcontrol.wait   (cudaGridDependencySynchronize)
//   SIMT_PDL_TRIGGER()          griddepcontrol.launch_dependents
//   SIMT_GLOBALTIMER()          %globaltimer (ns; timing instruments only, host: steady clock)
//   SIMT_CLOCK64()              clock64() (SM cycles; timing instruments only, host: steady clock)
//   SIMT_LOAD_L2ONLY(p)         __ldcg(p): a global load cached in L2 only, not L1 (host: *p)
//   SIMT_LOAD_STREAM(p)         __ldcs(p): a global load marked evict-first (host: *p)
//   SIMT_CP_ASYNC16(d, s)       cp.async.cg of 16 bytes, global s -> shared d, both 16-byte
//                               aligned (host: the copy, at once)
//   SIMT_CP_ASYNC_COMMIT()      cp.async.commit_group (host: nothing)
//   SIMT_CP_ASYNC_WAIT(n)       cp.async.wait_group n, n a constant: at most n of this thread's
//                               groups still pending (host: nothing)
//   SIMT_PRMT(x, y, s)          prmt.b32 in its default mode: byte n of the result is byte
//                               s[4n+2:4n] of {y, x} (x = bytes 0-3), or that byte's sign bit
//                               replicated when s[4n+3] is set (__byte_perm ignores that bit)
//   simt_cg::                   cooperative_groups (this_thread_block, this_cluster: sync,
//                               barrier_arrive, barrier_wait, map_shared_rank, block_rank,
//                               num_blocks, dim_blocks)
//   Cluster mailbox (namespace simt; sm_90 transaction barriers). `bar` is an 8-byte aligned
//   unsigned long long in shared memory; (p, rank) names the same shared variable as p in the
//   shared memory of cluster rank `rank` (the own rank allowed); tx = bytes:
//   mbar_init(bar, count)       mbarrier.init (one thread; then mbar_init_fence and a cluster
//                               barrier before any other thread or rank uses it)
//   mbar_init_fence()           fence.mbarrier_init.release.cluster
//   mbar_arrive_tx(bar, rank, tx)  mbarrier.arrive.expect_tx.relaxed.cluster on rank's bar: one
//                               arrival, tx more bytes expected in the current phase
//   mbar_wait(bar, parity)      waits (acquire.cluster) until the own bar's phase of that parity
//                               completed: all arrivals in and every expected byte delivered
//   st_async(p, rank, v, bar)   st.async (b32) / st_async2 (v2) / st_async4 (v4, p 16-aligned):
//                               stores to rank's p, completing 4 / 8 / 16 bytes on rank's bar
//   red_async_add(p, rank, v, bar)  red.async.add.u32 on rank's p, completing 4 bytes on its bar
//   dsmem_atomic_add(p, rank, v)   atomicAdd on rank's p (relaxed), returns the old value
//   cluster_arrive_relaxed()    barrier.cluster.arrive.relaxed: orders nothing
//   cluster_arrive_smem()       fence.release.sync_restrict::shared::cta.cluster + relaxed arrive:
//                               orders this thread's accesses to its OWN CTA's shared memory
//                               only (not remote DSMEM, not global) before the barrier
//   cluster_wait()              barrier.cluster.wait (acquire)
//   threadIdx blockIdx blockDim gridDim warpSize, __syncthreads[_count|_and|_or], __syncwarp,
//   __shfl[_up|_down|_xor]_sync, __ballot_sync, __any_sync, __all_sync, __match_any_sync,
//   __match_all_sync, __reduce_{add,min,max,and,or,xor}_sync, __activemask, atomic*, __popc,
//   __popcll, __clz, __ffs, __brev, __byte_perm, __vminu2, __float_as_uint, __uint_as_float,
//   __float_as_int, __int_as_float, __threadfence[_block], fp16/bf16 types and conversions: unchanged.
//
// Host-side launcher code (the .cu entry files, compiled for both sides) uses namespace
// simt::rt (below) for launches, memory copies, synchronization and device queries.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simt/prmt_reference.h"

#if defined(__CUDACC__)
// ============================================================================================
// CUDA branch
// ============================================================================================
#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define SIMT_KERNEL __global__
#define SIMT_DEVICE __device__ __forceinline__
#define SIMT_HD __host__ __device__ __forceinline__
#define SIMT_LAUNCH_BOUNDS(t, b) __launch_bounds__(t, b)
#define SIMT_SHARED(T, name, dims) __shared__ T name dims
#define SIMT_DYN_SHARED(T, name) extern __shared__ __align__(16) T name[]
#define SIMT_PDL_WAIT() asm volatile("griddepcontrol.wait;" ::: "memory")
#define SIMT_PDL_TRIGGER() asm volatile("griddepcontrol.launch_dependents;" :::)
#define SIMT_GLOBALTIMER() ::simt::globaltimer_ns()
#define SIMT_CLOCK64() clock64()
#define SIMT_LOAD_L2ONLY(p) __ldcg(p)
#define SIMT_LOAD_STREAM(p) __ldcs(p)
#define SIMT_CP_ASYNC16(d, s)                                                                     \
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(                                 \
                   static_cast<unsigned>(__cvta_generic_to_shared(d))), "l"(s) : "memory")
#define SIMT_CP_ASYNC_COMMIT() asm volatile("cp.async.commit_group;" ::: "memory")
#define SIMT_CP_ASYNC_WAIT(n) asm volatile("cp.async.wait_group %0;" ::"n"(n) : "memory")
#define SIMT_IS_HOST_EMULATION 0
#define SIMT_PRMT(x, y, s) ::simt::prmt((x), (y), (s))

namespace simt_cg = cooperative_groups;

namespace simt {
__host__ __device__ __forceinline__ unsigned prmt(unsigned x, unsigned y, unsigned s) {
#if defined(__CUDA_ARCH__)
  unsigned d;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(s));
  return d;
#else
  return prmt_reference(x, y, s);
#endif
}
// The GPU's global nanosecond timer (timing instruments only, e.g. DSV4_TOPK_TIMELINE).
__device__ __forceinline__ unsigned long long globaltimer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
// The cluster mailbox (header comment). Device code only.
__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ unsigned cluster_addr(const void* p, unsigned rank) {
  unsigned a;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"(smem_u32(p)), "r"(rank));
  return a;
}
__device__ __forceinline__ void mbar_init(unsigned long long* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive_tx(unsigned long long* bar, unsigned rank, unsigned tx) {
  asm volatile("mbarrier.arrive.expect_tx.relaxed.cluster.shared::cluster.b64 _, [%0], %1;"
               ::"r"(cluster_addr(bar, rank)), "r"(tx) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned long long* bar, unsigned parity) {
  unsigned done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;"
                 " selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(smem_u32(bar)), "r"(parity) : "memory");
}
__device__ __forceinline__ void st_async(void* p, unsigned rank, unsigned v, unsigned long long* bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
               ::"r"(cluster_addr(p, rank)), "r"(v), "r"(cluster_addr(bar, rank)) : "memory");
}
__device__ __forceinline__ void st_async2(void* p, unsigned rank, unsigned v0, unsigned v1,
                                          unsigned long long* bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], {%1, %2}, [%3];"
               ::"r"(cluster_addr(p, rank)), "r"(v0), "r"(v1), "r"(cluster_addr(bar, rank)) : "memory");
}
__device__ __forceinline__ void st_async4(void* p, unsigned rank, unsigned v0, unsigned v1, unsigned v2,
                                          unsigned v3, unsigned long long* bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];"
               ::"r"(cluster_addr(p, rank)), "r"(v0), "r"(v1), "r"(v2), "r"(v3),
               "r"(cluster_addr(bar, rank)) : "memory");
}
__device__ __forceinline__ void red_async_add(void* p, unsigned rank, unsigned v, unsigned long long* bar) {
  asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%0], %1, [%2];"
               ::"r"(cluster_addr(p, rank)), "r"(v), "r"(cluster_addr(bar, rank)) : "memory");
}
__device__ __forceinline__ int dsmem_atomic_add(int* p, unsigned rank, int v) {
  int old;
  asm volatile("atom.relaxed.cluster.shared::cluster.add.u32 %0, [%1], %2;"
               : "=r"(old) : "r"(cluster_addr(p, rank)), "r"(v) : "memory");
  return old;
}
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_arrive_smem() {
  asm volatile("fence.release.sync_restrict::shared::cta.cluster;" ::: "memory");
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}
namespace rt {

using stream_t = cudaStream_t;
using error_t = cudaError_t;
constexpr error_t kSuccess = cudaSuccess;
inline const char* error_string(error_t e) { return cudaGetErrorString(e); }

struct LaunchConfig {
  dim3 grid{1, 1, 1};
  dim3 block{1, 1, 1};
  size_t dynamic_smem = 0;
  stream_t stream = nullptr;
  dim3 cluster{1, 1, 1};        // {1,1,1} = no cluster
  bool pdl = true;              // programmatic stream serialization (sm_90+)
  bool nonportable_cluster = false;  // cluster size > 8
};

// Launch `kernel(args...)` with the configuration (cluster dims, PDL attribute, dynamic smem
// attribute: set for any dynamic size, so static + dynamic may exceed 48 KB). Every grid/block/cluster dimension must be > 0 (checked; returns
// cudaErrorInvalidConfiguration otherwise, nothing launched).
template <typename... KArgs, typename... Args>
inline error_t launch(const LaunchConfig& c, void (*kernel)(KArgs...), Args&&... args) {
  if (c.grid.x == 0 || c.grid.y == 0 || c.grid.z == 0 || c.block.x == 0 || c.block.y == 0 ||
      c.block.z == 0 || c.cluster.x == 0 || c.cluster.y == 0 || c.cluster.z == 0)
    return cudaErrorInvalidConfiguration;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = c.grid;
  cfg.blockDim = c.block;
  cfg.dynamicSmemBytes = c.dynamic_smem;
  cfg.stream = c.stream;
  cudaLaunchAttribute attrs[2];
  unsigned n = 0;
  if (c.cluster.x * c.cluster.y * c.cluster.z > 1) {
    attrs[n].id = cudaLaunchAttributeClusterDimension;
    attrs[n].val.clusterDim.x = c.cluster.x;
    attrs[n].val.clusterDim.y = c.cluster.y;
    attrs[n].val.clusterDim.z = c.cluster.z;
    ++n;
    if (c.nonportable_cluster) {
      cudaError_t e = cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                           cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
      if (e != cudaSuccess) return e;
    }
  }
  if (c.pdl) {
    attrs[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[n].val.programmaticStreamSerializationAllowed = 1;
    ++n;
  }
  if (c.dynamic_smem > 0) {  // opt in: static + dynamic above 48 KB needs it, whatever the split
    cudaError_t e = cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(c.dynamic_smem));
    if (e != cudaSuccess) return e;
  }
  cfg.attrs = attrs;
  cfg.numAttrs = n;
  return cudaLaunchKernelEx(&cfg, kernel, static_cast<KArgs>(args)...);
}

// cudaOccupancyMaxActiveClusters for `kernel` launched with `c` (grid may be a placeholder).
template <typename... KArgs>
inline error_t max_active_clusters(const LaunchConfig& c, void (*kernel)(KArgs...), int* out) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = c.grid;
  cfg.blockDim = c.block;
  cfg.dynamicSmemBytes = c.dynamic_smem;
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = c.cluster.x;
  attr.val.clusterDim.y = c.cluster.y;
  attr.val.clusterDim.z = c.cluster.z;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  if (c.nonportable_cluster) {
    cudaError_t e = cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                         cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    if (e != cudaSuccess) return e;
  }
  if (c.dynamic_smem > 0) {  // opt in: static + dynamic above 48 KB needs it, whatever the split
    cudaError_t e = cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(c.dynamic_smem));
    if (e != cudaSuccess) return e;
  }
  return cudaOccupancyMaxActiveClusters(out, kernel, &cfg);
}

struct DeviceProps {
  int device = 0;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int smem_per_sm = 0;              // bytes
  int smem_optin_per_block = 0;     // bytes
  int cluster_launch = 0;           // cudaDevAttrClusterLaunch
  char name[256] = {0};
  char uuid[40] = {0};              // hex; cache key per device
};
inline error_t device_props(DeviceProps* p) {
  error_t e = cudaGetDevice(&p->device);
  if (e != cudaSuccess) return e;
  cudaDeviceProp prop;
  e = cudaGetDeviceProperties(&prop, p->device);
  if (e != cudaSuccess) return e;
  p->cc_major = prop.major;
  p->cc_minor = prop.minor;
  p->sm_count = prop.multiProcessorCount;
  p->max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  p->max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
  p->smem_per_sm = static_cast<int>(prop.sharedMemPerMultiprocessor);
  p->smem_optin_per_block = static_cast<int>(prop.sharedMemPerBlockOptin);
  int cl = 0;
  cudaDeviceGetAttribute(&cl, cudaDevAttrClusterLaunch, p->device);
  p->cluster_launch = cl;
  for (int i = 0; i < 255 && prop.name[i]; ++i) p->name[i] = prop.name[i];
  static const char* hex = "0123456789abcdef";
  for (int i = 0; i < 16; ++i) {
    unsigned char b = static_cast<unsigned char>(prop.uuid.bytes[i]);
    p->uuid[2 * i] = hex[b >> 4];
    p->uuid[2 * i + 1] = hex[b & 15];
  }
  return cudaSuccess;
}

inline error_t memcpy_d2h(void* dst, const void* src, size_t n, stream_t s) {
  error_t e = cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s);
  if (e != cudaSuccess) return e;
  return cudaStreamSynchronize(s);
}
inline error_t memcpy_h2d(void* dst, const void* src, size_t n, stream_t s) {
  error_t e = cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, s);
  if (e != cudaSuccess) return e;
  return cudaStreamSynchronize(s);
}
inline error_t memset_async(void* dst, int v, size_t n, stream_t s) {
  return cudaMemsetAsync(dst, v, n, s);
}
inline error_t stream_sync(stream_t s) { return cudaStreamSynchronize(s); }
inline error_t device_malloc(void** p, size_t n) { return cudaMalloc(p, n); }
inline error_t device_free(void* p) { return cudaFree(p); }
inline error_t last_error() { return cudaGetLastError(); }
// Memory-space query for validation of user pointers (device or managed memory expected).
inline bool is_device_pointer(const void* p) {
  cudaPointerAttributes a;
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) { cudaGetLastError(); return false; }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

}  // namespace rt
}  // namespace simt

#else
// ============================================================================================
// Host branch: simt/ CPU execution layer. simt/host/runtime.hpp provides exactly the same
// names: the macros above, simt_cg::, the intrinsics, and simt::rt::{stream_t, error_t,
// kSuccess, error_string, LaunchConfig, launch, max_active_clusters, DeviceProps,
// device_props, memcpy_d2h, memcpy_h2d, memset_async, stream_sync, device_malloc,
// device_free, last_error, is_device_pointer} with the same signatures, answered by the
// virtual device (simt/host/virtual_device.hpp).
// ============================================================================================
#define SIMT_IS_HOST_EMULATION 1
#include "simt/host/runtime.hpp"
#endif
