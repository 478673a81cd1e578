// kernels/topk_v2/topk_v2_dispatch.cu -- the Top-K v2 dispatch decision (spec topk_v2.md §5.2,
// host, from B and L only: graph-capturable): plan_is_written (§6.3), the one-read stage, the path
// and the instantiation each launch takes. Pure host logic over the Sizing of topk_v2_launch.cu.
#include <climits>

#include "kernels/topk_v2/topk_v2_host.hpp"

namespace dsv4::ours::topk {

bool plan_is_written(const Sizing& s, long long B) {
  if (s.force == DSV4_PATH_POOL) return s.cluster_capable && B >= 1;
  return s.cluster_ok && s.P > 0 && s.P < B && B <= s.max_batch;
}

// The one-read Streaming stage (topk_v2_staged.cuh) when forced, or when rows may stream and are
// longer than DSV4_TOPK_STAGE_FROM_PCT % of Register4 (100: every row Register4 cannot hold): there
// one read and a classification of the stage alone beat a second read (A/B and benchmark on the
// H200, docs/performance.md, fourteenth and fifteenth passes).
bool use_stage(const Sizing& s, long long L) {
  return s.force == DSV4_PATH_STREAMING || 100LL * L > static_cast<long long>(DSV4_TOPK_STAGE_FROM_PCT) * s.r4;
}

namespace {
Decision decide_kernel(const Sizing& s, long long B, long long L, bool ragged) {
  Decision d;
  d.stage = use_stage(s, L);
  // the rest's ring where it was measured faster (keys.cuh, DSV4_TOPK_REST_ASYNC): two CTAs an SM
  // share its shared memory, 1 KB reserved a CTA
  d.ring_cta_bytes = d.stage && s.rest_ring && L <= kRestAsyncMaxL ? s.smem_per_sm / 2 - 1024 : 0;
  d.wide = DSV4_TOPK_SMALL_GRID_WIDE && B <= s.sm_count;
  d.floor = s.floor(B);
  d.kernel = L <= s.r2 ? DSV4_PATH_REGISTER2 : DSV4_PATH_REGISTER4;
  switch (ragged ? DSV4_PATH_AUTO : s.force) {
    case DSV4_PATH_REGISTER2: case DSV4_PATH_REGISTER4: case DSV4_PATH_STREAMING:
      d.kernel = DSV4_PATH_REGISTER4;
      return d;
    case DSV4_PATH_CLUSTER8: case DSV4_PATH_CLUSTER16: case DSV4_PATH_CLUSTER4: case DSV4_PATH_CLUSTER2:
      d.kernel = s.force;
      return d;
    case DSV4_PATH_POOL: {
      d.kernel = DSV4_PATH_POOL;
      const long long p = s.P < B ? s.P : B;
      d.pool_clusters = static_cast<int>(p > 1 ? p : 1);
      return d;
    }
    default: break;
  }
  if (ragged) {
    if (s.force == DSV4_PATH_REGISTER2 || s.force == DSV4_PATH_REGISTER4 || s.force == DSV4_PATH_STREAMING)
      d.kernel = DSV4_PATH_REGISTER4;
    return d;
  }
  // Mid-batch clusters (B above the small-batch cut, every cluster co-resident at one CTA per SM:
  // B <= P1_4 takes 4 CTAs per row, B <= P1_2 two) for rows longer than Register4 when each
  // rank's share is held (registers up to Register4, DSV4_TOPK_CLUSTER_SMEM: shared memory up to
  // twice that) or the rows are long (L > F_large). Measured on the H200 (docs/performance.md,
  // sixth pass): B=16 L=65536 18.1 -> 12.6 us, B=64 L=131072 31.0 -> 28.1, B=32 L=131072 37.4 ->
  // 27.1, with shared-memory shares B=64 L=65536 18.5 -> 15.9; Cluster-2 rows streamed at L in
  // (2 r4, F_large] were up to 3 % slower than one CTA reading the row once through the stage.
  if (s.cluster_ok && B > s.small_batch_cut && L > s.r4 && B <= s.max_batch) {
    const int nr = B <= s.P1_4 ? 4 : (B <= s.P1_2 ? 2 : 0);
    const long long held = static_cast<long long>(nr) * s.r4 * (DSV4_TOPK_CLUSTER_SMEM ? 2 : 1);
    if (nr > 0 && (L <= held || L > s.floor_large)) {
      d.kernel = nr == 4 ? DSV4_PATH_CLUSTER4 : DSV4_PATH_CLUSTER2;
      d.floor = s.r4;
      return d;
    }
  }
  const bool use_cluster = s.cluster_ok && L > d.floor && B <= s.max_batch;
  if (!use_cluster) return d;
  if (s.C16 > 0 && B <= s.C16) d.kernel = DSV4_PATH_CLUSTER16;
  else if (s.P > 0 && B <= s.P) d.kernel = DSV4_PATH_CLUSTER8;
  else if (s.P > 0) { d.kernel = DSV4_PATH_POOL; d.pool_clusters = s.P; }
  return d;
}
}  // namespace

// The kernel's path, then the instantiation it launches in: 1-CTA/SM (wide) for main-kernel grids of
// at most one CTA per SM and for Cluster-8 launches of at most P1 clusters, never for the pool
// (its main kernel shares the SMs); lean for Register4-sized launches.
Decision decide(const Sizing& s, long long B, long long L, bool ragged) {
  Decision d = decide_kernel(s, B, L, ragged);
  if (d.kernel == DSV4_PATH_POOL) d.wide = false;
  else if (d.kernel == DSV4_PATH_CLUSTER8) d.wide = B <= s.P1;
  // only launches whose rows fit Register4: the 64 KB buffer takes L1 from streamed rows (their
  // second read and the 32-register kernels' spills live there; H200 A/B, fifth pass: +5-17 %)
  d.lean = DSV4_TOPK_LEAN_R4 && !d.stage && d.kernel == DSV4_PATH_REGISTER4 && L <= s.r4;
  // Cluster-4 / -2: rank shares beyond Register4 (up to twice that) in kClusterRowBytes of dynamic
  // shared memory; longer launches stream (the buffer would take their L1)
  if (d.kernel == DSV4_PATH_CLUSTER4 || d.kernel == DSV4_PATH_CLUSTER2) {
    const long long nr = cluster_ranks(d.kernel);
    d.stage = DSV4_TOPK_CLUSTER_SMEM && L > nr * (DSV4_TOPK_CLUSTER_SMEM_R4 ? s.r2 : s.r4) && L <= 2 * nr * s.r4;
  }
  return d;
}

}  // namespace dsv4::ours::topk
