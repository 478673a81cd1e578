// simt/src/rt.cpp -- simt::rt on the CPU: error strings, host "device" memory (tracked so
// is_device_pointer answers like CUDA), copies, device queries through the virtual device.
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "simt/host/rt.hpp"
#include "simt/host/virtual_device.hpp"
#include "simt/src/internal.hpp"

namespace simt::vdev::detail {
bool injected(const QueryInfo& q, Injection* out);
}
namespace simt::detail {
extern rt::error_t g_last_error;
extern rt::error_t g_sticky_error;
void set_last_error(rt::error_t e);
size_t shared_static_top_for(const void* kernel);
}  // namespace simt::detail

namespace simt {
namespace {
std::mutex g_mem_mutex;
std::map<uintptr_t, size_t> g_device_mem;  // start -> size

bool lookup(const void* p) {
  std::lock_guard<std::mutex> lock(g_mem_mutex);
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  auto it = g_device_mem.upper_bound(a);
  if (it == g_device_mem.begin()) return false;
  --it;
  return a >= it->first && a < it->first + (it->second ? it->second : 1);
}
}  // namespace

void register_device_memory(const void* p, size_t n) {
  if (!p) return;
  std::lock_guard<std::mutex> lock(g_mem_mutex);
  g_device_mem[reinterpret_cast<uintptr_t>(p)] = n;
}
void unregister_device_memory(const void* p) {
  std::lock_guard<std::mutex> lock(g_mem_mutex);
  g_device_mem.erase(reinterpret_cast<uintptr_t>(p));
}

namespace detail {
bool is_device_memory(const void* p) { return p && lookup(p); }
}  // namespace detail

namespace rt {

const char* error_string(error_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorLaunchFailure: return "unspecified launch failure (simt: see simt::last_report())";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorInvalidClusterSize: return "invalid cluster size";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    default: return "unknown error (simt)";
  }
}

namespace erased {
error_t max_active_clusters(const LaunchConfig& c, const void* kernel, int* out) {
  if (!out) return cudaErrorInvalidValue;
  const vdev::Profile& P = vdev::profile();
  const long long threads = static_cast<long long>(c.block.x) * c.block.y * c.block.z;
  const long long csize = static_cast<long long>(c.cluster.x) * c.cluster.y * c.cluster.z;
  vdev::QueryInfo q{vdev::Query::kMaxActiveClusters, static_cast<int>(csize), 0, static_cast<int>(threads),
                    c.dynamic_smem};
  if (threads <= 0 || csize <= 0) return cudaErrorInvalidConfiguration;
  q.occupancy = vdev::occupancy_for(static_cast<int>(threads), c.dynamic_smem,
                                    detail::shared_static_top_for(kernel));
  vdev::Injection inj;
  if (vdev::detail::injected(q, &inj)) {
    if (inj.error != cudaSuccess) return inj.error;
    *out = inj.value;
    return cudaSuccess;
  }
  if (!P.cluster_launch) return cudaErrorNotSupported;
  if (csize > P.max_portable_cluster && !c.nonportable_cluster) return cudaErrorInvalidClusterSize;
  if (c.dynamic_smem > static_cast<size_t>(P.smem_optin_per_block)) return cudaErrorInvalidValue;
  *out = q.occupancy > 0 ? vdev::max_active_clusters_for(static_cast<int>(csize), q.occupancy) : 0;
  return cudaSuccess;
}
}  // namespace erased

error_t device_props(DeviceProps* p) {
  if (!p) return cudaErrorInvalidValue;
  vdev::QueryInfo q{vdev::Query::kDeviceProps, 0, 0, 0, 0};
  vdev::Injection inj;
  if (vdev::detail::injected(q, &inj) && inj.error != cudaSuccess) return inj.error;
  const vdev::Profile& P = vdev::profile();
  *p = DeviceProps{};
  p->device = 0;
  p->cc_major = P.cc_major;
  p->cc_minor = P.cc_minor;
  p->sm_count = P.sm_count;
  p->max_threads_per_sm = P.max_threads_per_sm;
  p->max_blocks_per_sm = P.max_blocks_per_sm;
  p->smem_per_sm = P.smem_per_sm;
  p->smem_optin_per_block = P.smem_optin_per_block;
  p->cluster_launch = P.cluster_launch;
  std::strncpy(p->name, P.name.c_str(), sizeof(p->name) - 1);
  std::strncpy(p->uuid, P.uuid.c_str(), sizeof(p->uuid) - 1);
  return cudaSuccess;
}

error_t memcpy_d2h(void* dst, const void* src, size_t n, stream_t) {
  if (n == 0) return cudaSuccess;
  if (!dst || !src) return cudaErrorInvalidValue;
  std::memmove(dst, src, n);
  return cudaSuccess;
}
error_t memcpy_h2d(void* dst, const void* src, size_t n, stream_t s) { return memcpy_d2h(dst, src, n, s); }
error_t memset_async(void* dst, int v, size_t n, stream_t) {
  if (n == 0) return cudaSuccess;
  if (!dst) return cudaErrorInvalidValue;
  std::memset(dst, v, n);
  return cudaSuccess;
}
error_t stream_sync(stream_t) {
  error_t e = detail::g_sticky_error;
  detail::g_sticky_error = cudaSuccess;
  return e;
}
error_t device_malloc(void** p, size_t n) {
  if (!p) return cudaErrorInvalidValue;
  *p = nullptr;
  if (n == 0) return cudaSuccess;
  void* m = std::malloc(n);
  if (!m) return cudaErrorMemoryAllocation;
  if (detail::g_fill_garbage) std::memset(m, 0xCD, n);
  register_device_memory(m, n);
  *p = m;
  return cudaSuccess;
}
error_t device_free(void* p) {
  if (!p) return cudaSuccess;
  if (!lookup(p)) return cudaErrorInvalidDevicePointer;
  unregister_device_memory(p);
  std::free(p);
  return cudaSuccess;
}
error_t last_error() {
  error_t e = detail::g_last_error;
  detail::g_last_error = cudaSuccess;
  return e;
}
bool is_device_pointer(const void* p) { return p && lookup(p); }

}  // namespace rt
}  // namespace simt
