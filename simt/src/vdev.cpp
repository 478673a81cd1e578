// simt/src/vdev.cpp -- the virtual device: profiles, occupancy derivation, cluster table and
// the per-query fault-injection hook.
#include "simt/host/virtual_device.hpp"

#include <algorithm>

namespace simt::vdev {

namespace {
Profile g_profile;
QueryHook g_hook;
}  // namespace

Profile h200() { return Profile{}; }

Profile sm80_no_clusters() {
  Profile p;
  p.name = "NVIDIA A100 (simt virtual device, no clusters)";
  p.uuid = "73696d742d766465762d613130300000";
  p.cc_major = 8;
  p.cc_minor = 0;
  p.sm_count = 108;
  p.max_threads_per_sm = 2048;
  p.max_blocks_per_sm = 32;
  p.smem_per_sm = 167936;
  p.smem_optin_per_block = 166912;
  p.cluster_launch = 0;
  p.max_portable_cluster = 1;
  p.max_nonportable_cluster = 1;
  for (auto& row : p.clusters_table) std::fill(std::begin(row), std::end(row), 0);
  return p;
}

void set_profile(const Profile& p) { g_profile = p; }
void reset() {
  g_profile = Profile{};
  g_hook = nullptr;
}
const Profile& profile() { return g_profile; }
void set_query_hook(QueryHook hook) { g_hook = std::move(hook); }
void clear_query_hook() { g_hook = nullptr; }

namespace detail {
bool injected(const QueryInfo& q, Injection* out) {
  if (!g_hook) return false;
  *out = g_hook(q);
  return out->active;
}
}  // namespace detail

int occupancy_for(int block_threads, size_t dynamic_smem, size_t static_smem) {
  const Profile& p = g_profile;
  if (block_threads <= 0 || block_threads > p.max_threads_per_block) return 0;
  const int warps = (block_threads + 31) / 32;
  int by_threads = p.max_threads_per_sm / (warps * 32);
  const size_t reserved = static_cast<size_t>(p.smem_per_sm - p.smem_optin_per_block);  // per-CTA reserve
  const size_t smem = dynamic_smem + static_smem;
  if (smem > static_cast<size_t>(p.smem_optin_per_block)) return 0;
  // shared memory is allocated in 1 KiB granules per CTA (plus the reserve)
  const size_t per_cta = (smem + 1023) / 1024 * 1024 + reserved;
  int by_smem = static_cast<int>(static_cast<size_t>(p.smem_per_sm) / per_cta);
  return std::max(0, std::min({by_threads, by_smem, p.max_blocks_per_sm}));
}

int max_active_clusters_for(int cluster_size, int occupancy) {
  const Profile& p = g_profile;
  if (cluster_size <= 0 || occupancy <= 0 || !p.cluster_launch) return 0;
  static const int sizes[6] = {1, 2, 4, 8, 16, 32};
  if (occupancy <= 4)
    for (int i = 0; i < 6; ++i)
      if (sizes[i] == cluster_size) return p.clusters_table[occupancy - 1][i];
  if (cluster_size > p.max_nonportable_cluster) return 0;
  return p.sm_count * occupancy / cluster_size;
}

}  // namespace simt::vdev
