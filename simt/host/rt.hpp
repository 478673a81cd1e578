// simt/host/rt.hpp -- simt::rt on the CPU backend: launches run synchronously on fibers,
// "device" memory is host memory, device queries are answered by the virtual device.
#pragma once

#include <driver_types.h>
#include <vector_types.h>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace simt {
namespace rt {

using stream_t = cudaStream_t;
using error_t = cudaError_t;
constexpr error_t kSuccess = cudaSuccess;
const char* error_string(error_t e);

struct LaunchConfig {
  dim3 grid{1, 1, 1};
  dim3 block{1, 1, 1};
  size_t dynamic_smem = 0;
  stream_t stream = nullptr;
  dim3 cluster{1, 1, 1};        // {1,1,1} = no cluster
  bool pdl = true;              // programmatic stream serialization (sm_90+)
  bool nonportable_cluster = false;  // cluster size > 8
};

namespace erased {
error_t launch(const LaunchConfig& c, const void* kernel, void (*invoke)(void*), void* obj);
error_t max_active_clusters(const LaunchConfig& c, const void* kernel, int* out);
}  // namespace erased

// Runs `kernel(args...)` to completion on the emulator (blocks, or whole clusters, one at a
// time in the order of the schedule seed). Every grid/block/cluster dimension must be > 0
// (else cudaErrorInvalidConfiguration, nothing run). A kernel error aborts the launch and
// returns cudaErrorLaunchFailure; the report is in simt::last_report().
template <typename... KArgs, typename... Args>
inline error_t launch(const LaunchConfig& c, void (*kernel)(KArgs...), Args&&... args) {
  static_assert(sizeof...(KArgs) == sizeof...(Args), "simt::rt::launch: wrong number of kernel arguments");
  using Params = std::tuple<std::decay_t<KArgs>...>;
  Params params(static_cast<KArgs>(std::forward<Args>(args))...);
  struct Ctx {
    void (*k)(KArgs...);
    Params* p;
  } ctx{kernel, &params};
  auto invoke = [](void* o) {
    Ctx* cx = static_cast<Ctx*>(o);
    std::apply([cx](const auto&... a) { cx->k(a...); }, *cx->p);
  };
  return erased::launch(c, reinterpret_cast<const void*>(kernel), +invoke, &ctx);
}

// cudaOccupancyMaxActiveClusters for `kernel` launched with `c`, answered by the virtual device.
template <typename... KArgs>
inline error_t max_active_clusters(const LaunchConfig& c, void (*kernel)(KArgs...), int* out) {
  return erased::max_active_clusters(c, reinterpret_cast<const void*>(kernel), out);
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
error_t device_props(DeviceProps* p);

error_t memcpy_d2h(void* dst, const void* src, size_t n, stream_t s);
error_t memcpy_h2d(void* dst, const void* src, size_t n, stream_t s);
error_t memset_async(void* dst, int v, size_t n, stream_t s);
error_t stream_sync(stream_t s);
error_t device_malloc(void** p, size_t n);
error_t device_free(void* p);
error_t last_error();
bool is_device_pointer(const void* p);

}  // namespace rt
}  // namespace simt
