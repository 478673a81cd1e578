// simt/host/virtual_device.hpp -- the virtual device that answers device_props and
// max_active_clusters on the CPU backend. Default profile: the H200 of
// shared/spec/occupancy_probe.md §3. Profiles are configurable and every query can be
// overridden by a fault-injection hook, so dispatch and probe fallbacks are testable in CI.
#pragma once

#include <driver_types.h>

#include <cstddef>
#include <functional>
#include <string>

namespace simt::vdev {

struct Profile {
  std::string name = "NVIDIA H200 (simt virtual device)";
  std::string uuid = "73696d742d766465762d683230300000";  // 32 hex chars
  int cc_major = 9, cc_minor = 0;
  int sm_count = 132;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int smem_per_sm = 233472;
  int smem_optin_per_block = 232448;
  int max_threads_per_block = 1024;
  int cluster_launch = 1;
  int max_portable_cluster = 8;
  int max_nonportable_cluster = 16;
  // Measured max active clusters: rows occupancy 1..4, columns cluster size 1,2,4,8,16,32.
  // Sizes/occupancies outside the table fall back to floor(sm_count * occ / size) for size <= 16.
  int clusters_table[4][6] = {{132, 66, 30, 15, 7, 0},
                              {264, 132, 62, 30, 14, 0},
                              {396, 198, 92, 45, 21, 0},
                              {528, 264, 124, 62, 28, 0}};
};

Profile h200();
Profile sm80_no_clusters();  // an A100-like profile: cc 8.0, no cluster launch (for fallback tests)

void set_profile(const Profile& p);
void reset();  // back to h200(), hook cleared
const Profile& profile();

enum class Query { kDeviceProps, kMaxActiveClusters };
struct QueryInfo {
  Query query;
  int cluster_size = 0;    // max_active_clusters: cluster size (x*y*z)
  int occupancy = 0;       // CTAs/SM derived from the launch configuration
  int block_threads = 0;
  size_t dynamic_smem = 0;
};
struct Injection {
  bool active = false;           // false = answer normally
  cudaError_t error = cudaSuccess;  // returned when != cudaSuccess
  int value = 0;                 // max_active_clusters result when error == cudaSuccess
};
using QueryHook = std::function<Injection(const QueryInfo&)>;
void set_query_hook(QueryHook hook);
void clear_query_hook();

// CTAs per SM the launch configuration reaches (threads, shared memory, block limit), the way
// the probe pins it; 0 if the block does not fit at all.
int occupancy_for(int block_threads, size_t dynamic_smem, size_t static_smem = 0);
// Table lookup (or fallback) for cluster_size at the given occupancy.
int max_active_clusters_for(int cluster_size, int occupancy);

}  // namespace simt::vdev
