// kernels/topk_v2/topk_v2_kernels.cuh -- the Top-K v2 kernels (spec topk_v2.md §5): main
// (one CTA per row: trivial / Register2 / Register4 / Streaming; optionally pool-aware), the
// small-batch cluster kernels (8 and 16 CTAs per row, elected-rank shortcut) and the persistent
// cluster-8 pool fed by the plan. PDL: nothing global is read or written before the wait
// (except seq_lens under the opt-in early_read).
#pragma once
#include "kernels/topk_v2/topk_v2_select.cuh"

namespace dsv4::ours::topk {

// Guards + trivial rows. Returns true when the row is finished (error or trivial).
SIMT_DEVICE bool finish_simple_row(const Args& a, int b, int n, RowWin* w) {
  long long bad = 0;
  const int code = prepare_row(a, b, n, w, &bad);
  if (code != 0) {
    if (threadIdx.x == 0) raise_status(a.status, code, DSV4_KERNEL_TOPK_V2, b, bad);
    write_empty(a, b);
    report_path(a, b, DSV4_PATH_ROW_ERROR);
    return true;
  }
  if (n <= a.K) {  // §3.1: no score reads
    write_row(a, b, *w, nullptr, n);
    report_path(a, b, DSV4_PATH_TRIVIAL);
    return true;
  }
  return false;
}

// Single-CTA path of a non-trivial row (§5.3): forced path if it holds the row, else the
// smallest register path that fits (lanes counted from the aligned base), else Streaming.
SIMT_DEVICE int single_path(const Args& a, const RowWin& w, bool allow_r4) {
  const int lanes = w.head + w.lim;
  const bool r2 = lanes <= a.r2_lanes, r4 = allow_r4 && lanes <= a.r4_lanes;
  if (a.force == DSV4_PATH_REGISTER2 && r2) return DSV4_PATH_REGISTER2;
  if (a.force == DSV4_PATH_REGISTER4 && r4) return DSV4_PATH_REGISTER4;
  if (a.force == DSV4_PATH_STREAMING) return DSV4_PATH_STREAMING;
  if (r2) return DSV4_PATH_REGISTER2;
  if (r4) return DSV4_PATH_REGISTER4;
  return DSV4_PATH_STREAMING;
}

// Streaming reads the row once (StagedSrc) when the launch carries the stage (a.stage: its capacity
// of dynamic shared memory; only kernels instantiated with kStage may), else twice. kLean: the
// launch's dynamic buffer holds Register4 rows (SmemSrc, lean classification) instead of registers.
// kBatch: the streamed rows' loads in flight per thread (StreamSrc's U).
template <bool kStage, bool kLean = false, int kBatch = kStreamBatch>
SIMT_DEVICE void run_single(const Args& a, int b, const RowWin& w, int path, Smem& sm) {
  Team<1> tm;
  if (kLean && path == DSV4_PATH_REGISTER4) {
    SIMT_DYN_SHARED(int, rowbuf);
    SmemSrc<4> s{reinterpret_cast<float4*>(rowbuf)};
    s.load(w);
    tl_mark(a, kTlLoaded);
    select_row<1, kBitsSingle>(a, b, w, s, sm, tm);
  } else if (path == DSV4_PATH_REGISTER2) {
    RegSrc<2> s;
    s.load(w);
    tl_mark(a, kTlLoaded);
    select_row<1, kBitsSingle>(a, b, w, s, sm, tm);
  } else if (path == DSV4_PATH_REGISTER4) {
    RegSrc<4> s;
    s.load(w);
    tl_mark(a, kTlLoaded);
    select_row<1, kBitsSingle>(a, b, w, s, sm, tm);
  } else if (kStage && a.stage) {
    SIMT_DYN_SHARED(int, stage);
    StagedSrc<kBatch> s{w, reinterpret_cast<float*>(stage), stage + a.stage, a.stage};
    if (kRestAsync > 0 && a.ring > 0) s.ring = reinterpret_cast<float4*>(stage + 2 * a.stage);
    select_row<1, kBitsSingle>(a, b, w, s, sm, tm);
  } else {
    StreamSrc<1, kBatch> s{w};
    select_row<1, kBitsSingle>(a, b, w, s, sm, tm);
  }
  report_path(a, b, path);
}

// The cluster kernels that can hold rank shares in kClusterRowBytes of shared memory.
template <int NR, bool kWide>
constexpr bool kSmemRows = DSV4_TOPK_CLUSTER_SMEM && kWide && NR <= 4;
// ... and whether rank shares up to Register4 are held in registers (else, where kSmemRows, in
// shared memory too: DSV4_TOPK_CLUSTER_SMEM_R4, topk_v2_keys.cuh).
template <int NR, bool kWide>
constexpr bool kReg4 = kWide && (NR != 8 || DSV4_TOPK_C8_WIDE_REG) && !(DSV4_TOPK_CLUSTER_SMEM_R4 && kSmemRows<NR, kWide>);

// A whole-cluster row: in the 1-CTA/SM kernels (kWide: 16-, 4- and 2-wide always, the 8-wide one
// for B <= P1; 64 registers) held in registers when the ranks' shares fit (2 or 4 vectors per
// thread, bounded by the Register2 / Register4 tunables scaled by NR); in the 4- and 2-wide
// kernels launched with kClusterRowBytes (a.stage) up to twice that in shared memory
// (SmemSrc<8, NR>, lean classification); else streamed.
// (Register rows in the 2-CTA/SM 8-wide kernel and the pool, 32 registers, spill and measured
// slower than streaming: docs/performance.md.)
template <int NR, bool kWide>
SIMT_DEVICE void run_cluster(const Args& a, int b, const RowWin& w, Smem& sm, Team<NR>& tm, int path) {
  const int rank = tm.rank();
  const long long lanes = static_cast<long long>(w.nvec) * 4;
  constexpr bool kReg = kWide && (NR != 8 || DSV4_TOPK_C8_WIDE_REG);
  if (kReg && lanes <= static_cast<long long>(NR) * a.r2_lanes) {
    RegSrc<2, NR> s;
    s.load(w, rank);
    tl_mark(a, kTlLoaded);
    select_row<NR, kBitsCluster>(a, b, w, s, sm, tm);
  } else if (kReg4<NR, kWide> && lanes <= static_cast<long long>(NR + DSV4_FAULT_TOPK_CLUSTER_REG_OVERFILL) * a.r4_lanes) {
    RegSrc<4, NR> s;
    s.load(w, rank);
    tl_mark(a, kTlLoaded);
    select_row<NR, kBitsCluster>(a, b, w, s, sm, tm);
  } else if (kSmemRows<NR, kWide> && a.stage && lanes <= 2LL * NR * a.r4_lanes) {
    SIMT_DYN_SHARED(int, rowbuf);  // launched with kClusterRowBytes (Decision::stage)
    SmemSrc<8, NR> s{reinterpret_cast<float4*>(rowbuf)};
    s.load(w, rank);
    tl_mark(a, kTlLoaded);
    select_row<NR, kBitsCluster>(a, b, w, s, sm, tm);
  } else {
    StreamSrc<NR> s{w, rank};
    select_row<NR, kBitsCluster>(a, b, w, s, sm, tm);
  }
  if (rank == 0) report_path(a, b, path);
}

// Pool-aware main kernel: is row b owned by the pool (a valid plan listing, §5.3)? Sets
// STALE_PLAN for an unlisted row longer than T. A bad header leaves every row to this kernel
// (BAD_PLAN is raised by the pool kernel).
SIMT_DEVICE bool owned_by_pool(const Args& a, int b, int n) {
  const int T = a.plan[0], N = a.plan[1];
  if (N < 0 || N > a.B || T < 0) return false;
  int found = 0;
  for (int j = threadIdx.x; j < N; j += kThreads) found |= a.plan[2 * (j + 1)] == b;
  if (__syncthreads_or(found)) return true;
  if (n > T && threadIdx.x == 0)
    raise_status(a.status, DSV4_CODE_STALE_PLAN, DSV4_KERNEL_TOPK_V2, b, n);
  return false;
}

// kStage: launched with the Streaming stage (a.stage = its capacity, 8 bytes of dynamic shared memory each);
// a separate instantiation so that launches without it keep the smaller kernel. kMinBlocks: the
// launch bounds' CTAs/SM (1 for grids of at most one CTA per SM, Decision::wide). kLean: launched
// with kLeanBytes of dynamic shared memory holding Register4 rows (Decision::lean). Streamed rows
// load kStreamBatch2Cta vectors a thread at a time in the 2-CTA/SM instantiations, kStreamBatch
// in the 1-CTA/SM ones.
template <bool kR4, bool kStage, int kMinBlocks = DSV4_TOPK_MAIN_MIN_BLOCKS, bool kLean = false>
SIMT_KERNEL void SIMT_LAUNCH_BOUNDS(kThreads, kMinBlocks) topk_main_kernel(Args a) {
  constexpr int kMainBatch = kMinBlocks >= 2 ? kStreamBatch2Cta : kStreamBatch;  // 32 registers: 1
  SIMT_SHARED(Smem, sm, );
  const int b = blockIdx.x;
  tl_mark(a, kTlEntry);
  int n = 0;
  if (a.early_read) n = read_len(a, b);
  SIMT_PDL_WAIT();
  SIMT_PDL_TRIGGER();
  if (!a.early_read) n = read_len(a, b);
  tl_mark(a, kTlLen);
  if (a.plan != nullptr && owned_by_pool(a, b, n)) return;
  RowWin w;
  if (finish_simple_row(a, b, n, &w)) return;
  if (DSV4_TOPK_ABLATE == 1) return;
  run_single<kStage, kLean, kMainBatch>(a, b, w, single_path(a, w, kR4), sm);
  if (DSV4_TOPK_TWICE) {
    __syncthreads();
    tl_mark(a, kTlLen);
    run_single<kStage, kLean, kMainBatch>(a, b, w, single_path(a, w, kR4), sm);
  }
}

// The path a cluster kernel of NR CTAs per row reports.
template <int NR>
constexpr int cluster_path() {
  constexpr int p = NR == 16 ? DSV4_PATH_CLUSTER16 : NR == 8 ? DSV4_PATH_CLUSTER8 : NR == 4 ? DSV4_PATH_CLUSTER4 : DSV4_PATH_CLUSTER2;
  static_assert(cluster_ranks(p) == NR, "cluster_path and cluster_ranks disagree");
  return p;
}

// Cluster kernel (small batches: 16 or 8 CTAs per row; mid-size batches: 4 or 2, launched at one
// CTA per SM), grid (B * NR), one cluster per row. The elected rank b mod NR
// alone handles errors, trivial rows, rows within Register4 capacity and rows up to F(B)
// (Streaming); other rows (and, when the path is forced, every non-trivial row) use the whole
// cluster. The decision is uniform over the cluster.
template <int NR, int kMinBlocks = NR == 16 ? 1 : 2>
SIMT_KERNEL void SIMT_LAUNCH_BOUNDS(kThreads, kMinBlocks) topk_cluster_kernel(Args a) {
  SIMT_SHARED(Smem, sm, );
  Team<NR> tm;
  const int rank = tm.rank();
  const int b = static_cast<int>(blockIdx.x) / NR;
  tl_mark(a, kTlEntry);
  int n = 0;
  if (a.early_read) n = read_len(a, b);
  SIMT_PDL_WAIT();
  SIMT_PDL_TRIGGER();
  if (!a.early_read) n = read_len(a, b);
  tl_mark(a, kTlLen);
  if (DSV4_TOPK_ABLATE == 1) return;
  const bool elected = rank == b % NR;
  RowWin w;
  long long bad = 0;
  const int code = prepare_row(a, b, n, &w, &bad);
  const bool forced = is_cluster_path(a.force);
  const bool whole = code == 0 && n > a.K &&
                     (forced || (w.head + w.lim > a.r4_lanes && n > a.floor));
  if (!whole) {
    if (!elected) return;
    if (finish_simple_row(a, b, n, &w)) return;
    run_single<false>(a, b, w, w.head + w.lim <= a.r4_lanes ? DSV4_PATH_REGISTER4 : DSV4_PATH_STREAMING, sm);
    return;
  }
  run_cluster<NR, kMinBlocks == 1>(a, b, w, sm, tm, cluster_path<NR>());
  if (DSV4_TOPK_TWICE) {
    tm.sync();
    tl_mark(a, kTlLen);
    run_cluster<NR, kMinBlocks == 1>(a, b, w, sm, tm, cluster_path<NR>());
  }
  tm.finish();
}

// Persistent pool: `nclusters` clusters of 8; cluster c processes plan items N-1-c, N-1-c-P, ...
// with the Cluster-8 algorithm. Invalid plan parts are ignored (BAD_PLAN); a recorded length
// that differs from the current one is STALE_PLAN. No inter-cluster dependency.
SIMT_KERNEL void SIMT_LAUNCH_BOUNDS(kThreads, 2) topk_pool_kernel(Args a, int nclusters) {
  SIMT_SHARED(Smem, sm, );
  Team<8> tm;
  const int rank = tm.rank();
  const int c = static_cast<int>(blockIdx.x) / 8;
  const bool lead = rank == 0 && threadIdx.x == 0;
  SIMT_PDL_WAIT();
  SIMT_PDL_TRIGGER();
  const int T = a.plan[0], N = a.plan[1];
  if (N < 0 || N > a.B || T < 0) {
    if (c == 0 && lead) raise_status(a.status, DSV4_CODE_BAD_PLAN, DSV4_KERNEL_TOPK_V2, -1, N);
    return;
  }
  for (int i = N - 1 - c; i >= 0; i -= nclusters) {
    const int id = a.plan[2 * (i + 1)], rec = a.plan[2 * (i + 1) + 1];
    int dup = 0;
    if (id >= 0 && id < a.B)
      for (int j = threadIdx.x; j < i; j += kThreads) dup |= a.plan[2 * (j + 1)] == id;
    if (__syncthreads_or(dup) || id < 0 || id >= a.B) {
      if (lead) raise_status(a.status, DSV4_CODE_BAD_PLAN, DSV4_KERNEL_TOPK_V2, i + 1, id);
      continue;
    }
    const int n = read_len(a, id);
    if (n != rec && lead) raise_status(a.status, DSV4_CODE_STALE_PLAN, DSV4_KERNEL_TOPK_V2, id, n);
    RowWin w;
    long long bad = 0;
    if (prepare_row(a, id, n, &w, &bad) != 0 || n <= a.K) {
      if (rank == 0) finish_simple_row(a, id, n, &w);
      continue;
    }
    run_cluster<8, false>(a, id, w, sm, tm, DSV4_PATH_POOL);
  }
  tm.finish();
}

// Plan (§6): one CTA. Thresholds/caps of the candidate table; forced = pool forced (T = 0).
struct PlanParams {
  int static_threshold = -1;
  int t_min = 32768;
  int forced = 0;
  int nt = 0;
  int thr[8] = {};
  int cap[8] = {};
};

SIMT_KERNEL void SIMT_LAUNCH_BOUNDS(kThreads, 1) topk_plan_kernel(const int* seq_lens, int B, int* meta,
                                                                  PlanParams p, StatusBlock* status) {
  SIMT_SHARED(int, cnt, [8]);
  SIMT_SHARED(int, warp_cnt, [kWarps]);
  SIMT_SHARED(int, base, );
  SIMT_PDL_WAIT();
  SIMT_PDL_TRIGGER();
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  if (tid < 8) cnt[tid] = 0;
  if (tid == 0) base = 0;
  __syncthreads();
  for (int b = tid; b < B; b += kThreads) {
    const int len = seq_lens[b];
    if (len < 0) raise_status(status, DSV4_CODE_NEGATIVE_LENGTH, DSV4_KERNEL_PLAN, b, len);
    for (int j = 0; j < p.nt; ++j)
      if (len > p.thr[j]) atomicAdd(&cnt[j], 1);  // negative lengths count as 0
  }
  __syncthreads();
  int s = p.static_threshold;
  if (s < 0) {
    s = p.nt > 0 ? p.thr[p.nt - 1] : 0;
    for (int j = p.nt - 1; j >= 0; --j) {
      if (cnt[j] > p.cap[j]) break;
      s = p.thr[j];
    }
  }
  const int T = p.forced ? 0 : (s > p.t_min ? s : p.t_min);
  for (int b0 = 0; b0 < B; b0 += kThreads) {  // ascending compaction of rows with len > T
    const int b = b0 + tid;
    const int len = b < B ? seq_lens[b] : 0;
    const bool take = b < B && len > T;
    const unsigned m = __ballot_sync(0xFFFFFFFFu, take);
    if (lane == 0) warp_cnt[warp] = __popc(m);
    __syncthreads();
    int before = base;
    for (int w = 0; w < warp; ++w) before += warp_cnt[w];
    before += __popc(m & ((1u << lane) - 1u));
    if (take) { meta[2 * (before + 1)] = b; meta[2 * (before + 1) + 1] = len; }
    __syncthreads();
    if (tid == 0) for (int w = 0; w < kWarps; ++w) base += warp_cnt[w];
    __syncthreads();
  }
  if (tid == 0) { meta[0] = T; meta[1] = base; }
}

}  // namespace dsv4::ours::topk
