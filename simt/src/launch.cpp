// simt/src/launch.cpp -- simt::rt::erased::launch: configuration checks against the virtual
// device, cluster enumeration in seeded order, error propagation.
#include <algorithm>
#include <cstdio>
#include <mutex>

#include "simt/host/virtual_device.hpp"
#include "simt/src/internal.hpp"

namespace simt::detail {
void run_cluster(const std::vector<uint3>& block_ids, const uint3& cl_index);
void reseed_for_launch();
void begin_launch_reports();
bool launch_failed();
void set_last_error(rt::error_t e);
}  // namespace simt::detail

namespace simt::rt::erased {

using namespace simt::detail;

namespace {
std::mutex g_launch_mutex;
uint64_t g_launch_counter = 0;
}  // namespace

error_t launch(const LaunchConfig& c, const void* kernel, void (*invoke)(void*), void* obj) {
  const dim3 g = c.grid, b = c.block, cl = c.cluster;
  if (g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 || b.z == 0 || cl.x == 0 || cl.y == 0 ||
      cl.z == 0) {
    set_last_error(cudaErrorInvalidConfiguration);
    return cudaErrorInvalidConfiguration;
  }
  if (g_cur != nullptr) {  // a launch from inside a kernel (dynamic parallelism) is not emulated
    set_last_error(cudaErrorNotSupported);
    return cudaErrorNotSupported;
  }
  const vdev::Profile& P = vdev::profile();
  const uint64_t tpb = uint64_t{b.x} * b.y * b.z;
  error_t err = cudaSuccess;
  if (tpb > static_cast<uint64_t>(P.max_threads_per_block) || b.x > 1024 || b.y > 1024 || b.z > 64 ||
      g.y > 65535 || g.z > 65535 || g.x > 0x7FFFFFFFu)
    err = cudaErrorInvalidConfiguration;
  const uint64_t csize = uint64_t{cl.x} * cl.y * cl.z;
  if (!err && csize > 1) {
    if (!P.cluster_launch) err = cudaErrorNotSupported;
    else if (g.x % cl.x || g.y % cl.y || g.z % cl.z) err = cudaErrorInvalidClusterSize;
    else if (csize > static_cast<uint64_t>(c.nonportable_cluster ? P.max_nonportable_cluster
                                                                  : P.max_portable_cluster))
      err = cudaErrorInvalidClusterSize;
  }
  if (!err && c.dynamic_smem > static_cast<size_t>(P.smem_optin_per_block)) err = cudaErrorInvalidValue;
  if (err) {
    set_last_error(err);
    return err;
  }

  std::lock_guard<std::mutex> lock(g_launch_mutex);
  Launch L;
  L.cfg = c;
  L.kernel = kernel;
  L.invoke = invoke;
  L.obj = obj;
  L.tpb = static_cast<unsigned>(tpb);
  L.bpc = static_cast<unsigned>(csize);
  L.index = g_launch_counter++;
  g_launch = &L;
  ++g_stats.launches;
  begin_launch_reports();
  reseed_for_launch();
  shared_launch_begin(kernel);
  if (!launch_failed() && shared_static_top() + c.dynamic_smem > static_cast<size_t>(P.smem_optin_per_block)) {
    g_launch = nullptr;
    set_last_error(cudaErrorInvalidValue);
    return cudaErrorInvalidValue;
  }

  // Clusters in grid order, shuffled by the schedule seed (round-robin keeps grid order).
  const dim3 ncl(g.x / cl.x, g.y / cl.y, g.z / cl.z);
  const uint64_t nclusters = uint64_t{ncl.x} * ncl.y * ncl.z;
  std::vector<uint64_t> order(nclusters);
  for (uint64_t i = 0; i < nclusters; ++i) order[i] = i;
  if (g_sched.policy != Policy::kRoundRobin)
    for (uint64_t i = nclusters; i > 1; --i) std::swap(order[i - 1], order[rng_next() % i]);
  std::vector<uint3> ids(L.bpc);
  for (uint64_t ci : order) {
    uint3 cidx{static_cast<unsigned>(ci % ncl.x), static_cast<unsigned>((ci / ncl.x) % ncl.y),
               static_cast<unsigned>(ci / (uint64_t{ncl.x} * ncl.y))};
    for (unsigned r = 0; r < L.bpc; ++r)
      ids[r] = uint3{cidx.x * cl.x + r % cl.x, cidx.y * cl.y + (r / cl.x) % cl.y,
                     cidx.z * cl.z + r / (cl.x * cl.y)};
    run_cluster(ids, cidx);
    if (L.aborted) break;
  }
  g_launch = nullptr;
  err = L.aborted ? cudaErrorLaunchFailure : cudaSuccess;
  set_last_error(err);
  return err;
}

}  // namespace simt::rt::erased
