// kernels/topk_v2/topk_v2_host.hpp -- host-side sizing (probe-driven P / C16, tunables from the
// config snapshot), plan_is_written and the ONE dispatch function of Top-K v2 (spec §5.2, §6.3, §7).
#pragma once
#include "dsv4/indexer_abi.h"
#include "kernels/topk_v2/topk_v2_args.cuh"

namespace dsv4::ours::topk {

// Resolved configuration of the current device (one snapshot per device and config generation).
struct Sizing {
  int cc_major = 0, cc_minor = 0;
  bool cluster_capable = false;  // hardware: sm_90+ with cluster launch
  bool cluster_ok = false;       // cluster paths enabled (sm_9x / sm_10x by default)
  int P = 0;                     // persistent pool clusters (0 = pool disabled)
  int C16 = 0;                   // max B for the small-batch Cluster-16 kernel (0 = off)
  int P1 = 0;                    // max B for the 1-CTA/SM Cluster-8 kernel (0 = off)
  int P1_4 = 0, P1_2 = 0;        // max B for the 1-CTA/SM mid-batch cluster kernels of 4 / 2
                                 // (0 = off: DSV4_TOPK_MID_CLUSTER=0, mid_cluster_enable = 0)
  bool p_from_kernel = false;    // P from the real pool kernel's occupancy query
  int probe_c8 = -1;             // the probe(8, o) answer when it was asked (-1 = not asked)
  int floor_small = 0, floor_large = 0, small_batch_cut = 15, max_batch = 512;
  int t_min = 32768;
  int r2 = kRegister2Max, r4 = kRegister4Max, tie_cap = kTieStage;
  int force = DSV4_PATH_AUTO;
  int early_read = 0;
  bool rest_ring = true;         // the stage's rest through the cp.async ring (rest_ring_off != 1)
  int sm_count = 0;
  int smem_per_sm = 0;           // bytes (device query)
  int floor(long long B) const { return B <= small_batch_cut ? floor_small : floor_large; }
};

// Fills *s for the current device (cached). DSV4_ERR_CUDA on a device query failure.
dsv4_result resolve_sizing(Sizing* s, dsv4_message* msg);

// §6.3 (and §5.4 forced pool): does topk_v2_plan write the metadata for a batch of B rows?
bool plan_is_written(const Sizing& s, long long B);

// The dispatch decision of one transform (host, from B and L only).
struct Decision {
  int kernel = 0;      // DSV4_PATH_* of the launch: REGISTER2 (main, no R4), REGISTER4 (main
                       // with R4), CLUSTER8, CLUSTER16, CLUSTER4, CLUSTER2, POOL (pool +
                       // pool-aware main)
  int pool_clusters = 0;
  int floor = 0;
  bool stage = false;  // the main kernel carries the Streaming stage (stage_slots, dynamic smem);
                       // Cluster-4 / -2: rank shares in kClusterRowBytes (DSV4_TOPK_CLUSTER_SMEM)
  bool wide = false;   // the main kernel in its 1-CTA/SM instantiation: B <= SMs, no pool; the
                       // 8-wide cluster kernel in its (DSV4_TOPK_C8_WIDE): B <= Sizing::P1
  bool lean = false;   // the Register4-capable main kernel without the stage holds Register4 rows
                       // in dynamic shared memory (DSV4_TOPK_LEAN_R4, kLeanBytes)
  int ring_cta_bytes = 0;  // the stage's rest through the cp.async ring (DSV4_TOPK_REST_ASYNC):
                           // the shared memory a CTA may take with it (two CTAs an SM;
                           // rest_ring_depth), 0 = no ring (L > kRestAsyncMaxL, rest_ring_off = 1)
};
Decision decide(const Sizing& s, long long B, long long L, bool ragged);

// Launches the plan kernel (caller checked plan_is_written).
dsv4_result launch_plan(const Sizing& s, const int* seq_lens, int B, int* meta,
                        int static_threshold, void* stream, dsv4_message* msg);

// Launches the transform for `a` (a.plan set iff the pool is used) per `d`.
dsv4_result launch_transform(const Args& a, const Decision& d, void* stream, dsv4_message* msg);

}  // namespace dsv4::ours::topk
