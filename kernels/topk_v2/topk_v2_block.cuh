// kernels/topk_v2/topk_v2_block.cuh -- block-level building blocks of Top-K v2: the shared-memory
// layout, the team (one CTA or one cluster), the threshold search over a histogram and the row
// sources (register-resident vectors, streaming from global memory, cluster rank interleave).
#pragma once
#include "kernels/topk_v2/topk_v2_args.cuh"

namespace dsv4::ours::topk {

// Static shared memory of every Top-K v2 kernel (~45 KB, < 48 KB static limit).
struct Smem {
  int hist[kHistBins];          // coarse histogram; ranks != 0 reuse [0, 1024) for digit counts
  unsigned tie_key[kTieStage];  // staged threshold-bin candidates (key32, position)
  int tie_pos[kTieStage];
  int sel[kMaxTopK];            // selected raw positions (rank 0: the row's final list)
  int rh[4][256];               // radix digit histograms, one per round
  int warp_sum[kWarps];
  int res_t, res_above;         // find_threshold result
  int sel_cnt, tie_cnt, eq_taken;
  int base_sel, base_tie, flag;
};

// One CTA (NR = 1) or one cluster of NR CTAs: barrier and access to rank 0's shared memory.
template <int NR>
struct Team {
  decltype(simt_cg::this_cluster()) cl = simt_cg::this_cluster();
  SIMT_DEVICE void sync() { cl.sync(); }
  SIMT_DEVICE int rank() { return static_cast<int>(cl.block_rank()); }
  SIMT_DEVICE Smem* r0(Smem* p) { return cl.map_shared_rank(p, 0); }
};
template <>
struct Team<1> {
  SIMT_DEVICE void sync() { __syncthreads(); }
  SIMT_DEVICE int rank() { return 0; }
  SIMT_DEVICE Smem* r0(Smem* p) { return p; }
};

static_assert(kWarps <= 32, "find_threshold sums the warp totals inside one warp");
// Finds the bin t of hist[0, nb) with above(t) < target <= above(t) + hist[t], above(t) = sum of
// the bins above t. If the bins hold fewer than `target` elements (only possible under planted
// faults), returns t = 0. Every thread of the block calls it; `hist` may be remote (DSMEM).
SIMT_DEVICE void find_threshold(const int* hist, int nb, int target, Smem& sm, int* t_out,
                                int* above_out) {
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int bpt = (nb + kThreads - 1) / kThreads;
  const int lo = tid * bpt < nb ? tid * bpt : nb;
  const int hi = lo + bpt < nb ? lo + bpt : nb;
  int s = 0;
  for (int b = lo; b < hi; ++b) s += hist[b];
  int x = s;  // inclusive suffix sum inside the warp
  for (int d = 1; d < 32; d <<= 1) {
    const int y = __shfl_down_sync(0xFFFFFFFFu, x, d);
    if (lane + d < 32) x += y;
  }
  if (lane == 0) sm.warp_sum[warp] = x;
  __syncthreads();
  // elements above this thread's bins: own warp's exclusive suffix + the warps above (one read
  // per lane and a butterfly sum instead of a serial loop over up to 31 warp sums)
  int up = lane > warp && lane < kWarps ? sm.warp_sum[lane] : 0;
  for (int d = 16; d > 0; d >>= 1) up += __shfl_xor_sync(0xFFFFFFFFu, up, d);
  const int excl = x - s + up;
  if (excl < target && (target <= excl + s || tid == 0)) {
    int acc = excl, t = lo, above = -1;
    for (int b = hi - 1; b >= lo; --b) {
      if (acc + hist[b] >= target) { t = b; above = acc; break; }
      acc += hist[b];
    }
    if (above < 0) above = acc - (hi > lo ? hist[lo] : 0);  // fewer than target: t = lowest bin
    sm.res_t = t;
    sm.res_above = above;
  }
  __syncthreads();
  *t_out = sm.res_t;
  *above_out = sm.res_above;
}

// Register-resident row: VPT float4 vectors per thread, read once (Register2 / Register4).
template <int VPT>
struct RegSrc {
  float x[VPT][4];
  int nvec, head;
  SIMT_DEVICE void load(const RowWin& w) {
    nvec = w.nvec;
    head = w.head;
#pragma unroll
    for (int j = 0; j < VPT; ++j) {
      const int v = threadIdx.x + j * kThreads;
      if (v < nvec) load_vec(w, v, x[j]);
    }
  }
  template <class F>
  SIMT_DEVICE void each(F&& f) const {
#pragma unroll
    for (int j = 0; j < VPT; ++j) {
      const int v = threadIdx.x + j * kThreads;
      if (v < nvec) {
#pragma unroll
        for (int c = 0; c < 4; ++c) f(v * 4 + c - head, x[j][c]);
      }
    }
  }
};

// Streaming row (one CTA: every vector; cluster rank r of NR: chunks r, r+NR, ... of 128 vectors),
// one vector per thread per step (DSV4_TOPK_STREAM_PREFETCH=1: one-ahead prefetch, more register
// pressure: ptxas spills double at 32 registers). Every pass re-reads global memory.
struct StreamSrc {
  RowWin w;
  int rank = 0, nr = 1;
  SIMT_DEVICE int vec_of(int q) const {
    return (rank + nr * (q / kChunkVecs)) * kChunkVecs + (q % kChunkVecs);
  }
  template <class F>
  SIMT_DEVICE void each(F&& f) const {
#if DSV4_TOPK_STREAM_PREFETCH
    each_prefetch(f);
#else
    // kStreamBatch loads in flight per thread, then their lanes (vec_of is increasing in q, so
    // the first vector past the row ends the walk).
    constexpr int U = kStreamBatch;
    for (int q = threadIdx.x;; q += U * kThreads) {
      float cur[U][4];
      int v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        v[u] = vec_of(q + u * kThreads);
        if (v[u] < w.nvec) load_vec(w, v[u], cur[u]);
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (v[u] < w.nvec) {
#pragma unroll
          for (int c = 0; c < 4; ++c) f(v[u] * 4 + c - w.head, cur[u][c]);
        }
      if (v[U - 1] >= w.nvec) break;
    }
#endif
  }
  template <class F>
  SIMT_DEVICE void each_prefetch(F&& f) const {
    int q = threadIdx.x, v = vec_of(q);
    if (v >= w.nvec) return;
    float cur[4];
    load_vec(w, v, cur);
    for (;;) {
      const int vn = vec_of(q + kThreads);
      const bool more = vn < w.nvec;
      float nxt[4];
      if (more) load_vec(w, vn, nxt);
#pragma unroll
      for (int c = 0; c < 4; ++c) f(v * 4 + c - w.head, cur[c]);
      if (!more) break;
#pragma unroll
      for (int c = 0; c < 4; ++c) cur[c] = nxt[c];
      v = vn;
      q += kThreads;
    }
  }
};

// Staged candidates in shared memory (threshold bin with hist[t] <= kTieCapacity).
struct TieSrc {
  const Smem* sm;
  int cnt;
  template <class F>
  SIMT_DEVICE void each(F&& f) const {
    for (int i = threadIdx.x; i < cnt; i += kThreads) f(sm->tie_key[i], sm->tie_pos[i]);
  }
};

// The threshold-bin members of a row source, as (key32, position): refinement over the row.
template <class Src, int W>
struct BinSrc {
  const Src* src;
  int t;
  template <class F>
  SIMT_DEVICE void each(F&& f) const {
    const int tt = t;
    src->each([&](int pos, float x) {
      if (classify(x, coarse_bin(x, W), tt, W) == kCand) f(key32(x), pos);
    });
  }
};

SIMT_DEVICE void push_sel(Smem& sm, int pos) {
  const int i = atomicAdd(&sm.sel_cnt, 1);
  if (i < kMaxTopK) sm.sel[i] = pos;
}

}  // namespace dsv4::ours::topk
