// kernels/occupancy_probe/occupancy_probe.cu -- cluster occupancy probe (spec occupancy_probe.md):
// cudaOccupancyMaxActiveClusters on an empty dummy kernel whose launch configuration pins the
// requested CTAs/SM (§2), the failure modes of §4, per-device memoization (§5), the config
// injections (dsv4_config.inject_probe_c8 / _c16) and the ABI entry dsv4_get_max_active_clusters.
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "kernels/common/config.hpp"
#include "kernels/common/faults.h"
#include "kernels/common/validate.hpp"
#include "kernels/occupancy_probe/occupancy_probe.hpp"
#include "kernels/occupancy_probe/occupancy_probe_testing.hpp"
#include "simt/portable.h"

namespace dsv4::ours {
namespace {

SIMT_KERNEL void probe_dummy_kernel() {}

struct ProbeKey {
  std::string device;
  int size, occupancy;
  bool operator<(const ProbeKey& o) const {
    return std::tie(device, size, occupancy) < std::tie(o.device, o.size, o.occupancy);
  }
};
std::mutex g_probe_mu;
std::map<ProbeKey, int> g_probe_cache;  // successful answers only (>= 1)
long long g_probe_queries = 0;          // device queries issued (tests: memoization)

dsv4_result answer(int value, int size, int occ, const simt::rt::DeviceProps& d, int* out,
                   dsv4_message* msg) {
#if DSV4_FAULT_PROBE_ZERO_POOL
  // Planted defect (class 13): a zero answer is passed on as a successful pool size of 0.
  *out = value;
  return ok(msg);
#else
  if (value <= 0)
    return fail(msg, DSV4_ERR_NO_SCHEDULABLE_CLUSTERS,
                "get_max_active_clusters: no cluster of %d CTAs fits at occupancy %d on %s "
                "(%d SMs, compute capability %d.%d): the driver answered %d",
                size, occ, d.name, d.sm_count, d.cc_major, d.cc_minor, value);
  *out = value;
  return ok(msg);
#endif
}

}  // namespace

dsv4_result probe_max_active_clusters(int cluster_size, int occupancy, int* out,
                                      dsv4_message* msg) {
  static const char* kEntry = "get_max_active_clusters";
  if (out == nullptr)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: out is NULL", kEntry);
  // Argument checks come before any arithmetic (occupancy 0 divided by zero upstream).
  if (cluster_size <= 0)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: cluster_size = %d violates cluster_size > 0",
                kEntry, cluster_size);
  if (occupancy <= 0)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: occupancy = %d violates occupancy > 0",
                kEntry, occupancy);
  simt::rt::DeviceProps d;
  auto e = simt::rt::device_props(&d);
  if (e != simt::rt::kSuccess)
    return fail(msg, DSV4_ERR_CUDA, "%s: reading device properties failed: %s (code %d)", kEntry,
                simt::rt::error_string(e), static_cast<int>(e));
  if (occupancy > d.max_blocks_per_sm)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT,
                "%s: occupancy = %d exceeds the %d resident CTAs per SM of %s", kEntry, occupancy,
                d.max_blocks_per_sm, d.name);
  if (d.cc_major < 9 || !d.cluster_launch)
    return fail(msg, DSV4_ERR_CLUSTERS_UNSUPPORTED,
                "%s: thread-block clusters need sm_90 or newer; device %s has compute capability "
                "%d.%d%s",
                kEntry, d.name, d.cc_major, d.cc_minor,
                d.cluster_launch ? "" : " (cluster launch not supported)");

  // INJECT (config snapshot): >= 0 replaces the answer, -2 = CUDA-style failure, -1 = device.
  const dsv4_config& cfg = user_config();
  const int inject = cluster_size == 8 ? cfg.inject_probe_c8
                     : cluster_size == 16 ? cfg.inject_probe_c16 : -1;
  if (inject == -2)
    return fail(msg, DSV4_ERR_CUDA,
                "%s: cudaOccupancyMaxActiveClusters failed (injected by dsv4_config for cluster "
                "size %d)",
                kEntry, cluster_size);
  if (inject >= 0) return answer(inject, cluster_size, occupancy, d, out, msg);

  const ProbeKey key{std::string(d.uuid) + "/" + std::to_string(d.device), cluster_size, occupancy};
  std::lock_guard<std::mutex> lock(g_probe_mu);
  auto it = g_probe_cache.find(key);
  if (it != g_probe_cache.end()) {
    *out = it->second;
    return ok(msg);
  }

  // Pinning configuration (§2).
  const long long smem_sm = d.smem_per_sm, optin = d.smem_optin_per_block;
  const long long reserved = smem_sm > optin ? smem_sm - optin : 0;
  const long long budget = smem_sm / occupancy;
  long long dyn = budget - (budget < reserved ? budget : reserved);
  if (dyn > optin) dyn = optin;
  dyn = (dyn / 1024) * 1024;
  long long thr = d.max_threads_per_sm / occupancy;
  if (thr > 1024) thr = 1024;
  thr = (thr / 32) * 32;
  if (thr < 32) thr = 32;

  simt::rt::LaunchConfig c;
  c.grid = {static_cast<unsigned>(cluster_size), 1024u, 1u};
  c.block = {32u, static_cast<unsigned>(thr / 32), 1u};
  c.dynamic_smem = static_cast<size_t>(dyn);
  c.cluster = {static_cast<unsigned>(cluster_size), 1u, 1u};
  c.pdl = false;
  c.nonportable_cluster = cluster_size > 8;
  int value = 0;
  ++g_probe_queries;
  e = simt::rt::max_active_clusters(c, probe_dummy_kernel, &value);
  if (e != simt::rt::kSuccess) {
    simt::rt::last_error();  // clear the runtime's last-error state
    return fail(msg, DSV4_ERR_CUDA,
                "%s: cudaOccupancyMaxActiveClusters(cluster %d, occupancy %d: %lld threads, "
                "%lld B dynamic smem) failed on %s: %s (code %d)",
                kEntry, cluster_size, occupancy, thr, dyn, d.name, simt::rt::error_string(e),
                static_cast<int>(e));
  }
  const dsv4_result r = answer(value, cluster_size, occupancy, d, out, msg);
  if (r == DSV4_OK && value > 0) g_probe_cache[key] = value;
  return r;
}

void probe_cache_clear_for_testing() {
  std::lock_guard<std::mutex> lock(g_probe_mu);
  g_probe_cache.clear();
}
long long probe_device_queries_for_testing() {
  std::lock_guard<std::mutex> lock(g_probe_mu);
  return g_probe_queries;
}

}  // namespace dsv4::ours

extern "C" DSV4_EXPORT dsv4_result dsv4_get_max_active_clusters(int32_t cluster_size,
                                                                int32_t occupancy, int32_t* out,
                                                                dsv4_message* msg) {
  int v = 0;
  if (out == nullptr)
    return dsv4::ours::fail(msg, DSV4_ERR_INVALID_ARGUMENT, "get_max_active_clusters: out is NULL");
  const dsv4_result r = dsv4::ours::probe_max_active_clusters(cluster_size, occupancy, &v, msg);
  if (r == DSV4_OK) *out = v;
  return r;
}
