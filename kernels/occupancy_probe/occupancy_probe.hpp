// kernels/occupancy_probe/occupancy_probe.hpp -- internal interface of the cluster occupancy probe
// (spec occupancy_probe.md), used by dsv4_get_max_active_clusters and by Top-K v2 pool sizing.
#pragma once
#include "dsv4/indexer_abi.h"

namespace dsv4::ours {

// How many clusters of `cluster_size` CTAs fit at once with `occupancy` CTAs/SM on the current
// device (occupancy_probe.md §2 pinning method). Memoized per (device identity, size, occupancy).
// Honours the injection fields of the config snapshot (dsv4_config.inject_probe_c8 applies to
// cluster_size 8, inject_probe_c16 to 16). Errors: DSV4_ERR_INVALID_ARGUMENT,
// DSV4_ERR_CLUSTERS_UNSUPPORTED, DSV4_ERR_NO_SCHEDULABLE_CLUSTERS, DSV4_ERR_CUDA.
dsv4_result probe_max_active_clusters(int cluster_size, int occupancy, int* out, dsv4_message* msg);

}  // namespace dsv4::ours
