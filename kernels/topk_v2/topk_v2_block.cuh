// kernels/topk_v2/topk_v2_block.cuh -- block-level building blocks of Top-K v2: the shared-memory
// layout and the row sources (register-resident vectors, streaming from global memory, cluster
// rank interleave). The team (one CTA or one cluster): topk_v2_team.cuh. The threshold search
// over a histogram: topk_v2_threshold.cuh.
#pragma once
#include "kernels/topk_v2/topk_v2_args.cuh"

namespace dsv4::ours::topk {

// Static shared memory of every Top-K v2 kernel (~45 KB, < 48 KB static limit).
struct Smem {
  alignas(16) int hist[kHistBins];  // coarse histogram (ranks != 0: [0, 1024) for digit counts)
  unsigned tie_key[kTieStage];  // staged threshold-bin candidates (key32, position)
  int tie_pos[kTieStage];
  int sel[kMaxTopK];            // selected raw positions (rank 0: the row's final list)
  alignas(16) int rh[4][256];   // radix digit histograms, one per round
  int warp_sum[kWarps];
  int res_t, res_above;         // find_threshold result
  int sel_cnt, tie_cnt, eq_taken;
  int base_sel, base_tie, flag;
  int sub_cnt;                  // rank_staged: staged candidates of the pivot digit
  int stage_cnt;                // StagedSrc: elements offered to the stage (may exceed its capacity)
  alignas(16) int bcast[4];     // cluster: rank 0's threshold (t, above, hist[t]) for every rank
  alignas(8) int cnts[16][2];   // mailbox: rank r's (sel, tie) list lengths of the row
  unsigned long long mb[4];     // mailbox: the fold, publish, broadcast and count mbarriers (topk_v2_team.cuh)
};

// Row sources: each(f) calls f(pos, x) for every lane of the row's vectors this thread holds
// (padding lanes included: NaN). Cluster rank r of NR takes chunks r, r+NR, ... of kChunkVecs
// vectors; vec_of maps a thread's slot q to its vector (increasing in q).
template <int NR>
SIMT_DEVICE int vec_of(int q, int rank) {
  if (NR == 1) return q;
  return (rank + NR * (q / kChunkVecs)) * kChunkVecs + (q % kChunkVecs);
}

// Row sources iterate vectors (each_vec: f(position of lane 0, float[4])); each(f) is the same
// walk lane by lane, f(position, value).
template <class F>
SIMT_DEVICE auto lanes_of(F& f) {
  return [&f](int p, const float (&x)[4]) {
#pragma unroll
    for (int c = 0; c < 4; ++c) f(p + c, x[c]);
  };
}

// Register-resident row: VPT float4 vectors per thread, read once (Register2 / Register4 and the
// register-resident 16-wide cluster rows).
template <int VPT, int NR = 1>
struct RegSrc {
  static constexpr bool kKeyClassified = DSV4_TOPK_KEY_CLASSIFY == 2;  // select_row step 3
  float x[VPT][4];
  int nvec, head, rank;
  SIMT_DEVICE void load(const RowWin& w, int r = 0) {
    nvec = w.nvec;
    head = w.head;
    rank = r;
#pragma unroll
    for (int j = 0; j < VPT; ++j) {
      const int v = vec_of<NR>(threadIdx.x + j * kThreads, rank);
      if (v < nvec) load_vec(w, v, x[j]);
    }
  }
  template <class F>
  SIMT_DEVICE void each_vec(F&& f) const {  // f(position of lane 0, the vector's 4 lanes)
#pragma unroll
    for (int j = 0; j < VPT; ++j) {
      const int v = vec_of<NR>(threadIdx.x + j * kThreads, rank);
      if (v < nvec) f(v * 4 - head, x[j]);
    }
  }
  template <class F>
  SIMT_DEVICE void each(F&& f) const { each_vec(lanes_of(f)); }
};

// Register4-sized row held in dynamic shared memory (`buf`: VPT * kThreads float4; the lean
// instantiation of the main kernel, DSV4_TOPK_LEAN_R4): loaded once (kAsync: by cp.async, each_vec,
// which select_row calls first, waiting for them), each thread reading back only the vectors it
// wrote (no barrier). Classified by bit masks (select_row step 3): with a bound `lo` (the
// threshold bin's first key), one key compare per element marks the few lanes that can be ABOVE
// or CANDIDATE and only those are classified.
// NR > 1: a cluster rank's share (slot q of this thread holds vector vec_of<NR>(q, rank); the
// 1-CTA/SM cluster kernels, DSV4_TOPK_CLUSTER_SMEM, VPT = 8 in kClusterRowBytes).
template <int VPT, int NR = 1>
struct SmemSrc {
  static constexpr bool kKeyClassified = false;
  static constexpr bool kMasked = true;
  static_assert(VPT * 4 <= 32, "one 32-bit mask per thread");
  static constexpr bool kAsync = kSmemRowAsync && NR == 1;  // the lean Register4 rows
  float4* buf;
  int nvec = 0, head = 0, rank = 0;
  SIMT_DEVICE static int slot(int j) { return static_cast<int>(threadIdx.x) + j * kThreads; }
  SIMT_DEVICE int vec(int j) const { return vec_of<NR>(slot(j), rank); }
  SIMT_DEVICE void load(const RowWin& w, int r = 0) {
    nvec = w.nvec;
    head = w.head;
    rank = r;
    if constexpr (kAsync) {  // whole vectors by cp.async, waited for in each_vec
#pragma unroll
      for (int j = 0; j < VPT; ++j) {
        const int v = vec(j), l0 = v * 4;
        if (v >= nvec) continue;
        if (DSV4_FAULT_TOPK_SMEM_ROW_PARTIAL_WHOLE || (l0 >= w.head && l0 + 4 <= w.head + w.lim)) {
          SIMT_CP_ASYNC16(buf + slot(j), reinterpret_cast<const float4*>(w.base) + v);
        } else {
          float x[4];
          load_vec(w, v, x);
          buf[slot(j)] = make_float4(x[0], x[1], x[2], x[3]);
        }
      }
      SIMT_CP_ASYNC_COMMIT();
    } else {
      float x[VPT][4];
#pragma unroll
      for (int j = 0; j < VPT; ++j) {
        const int v = vec(j);
        if (v < nvec) load_vec(w, v, x[j]);
      }
#pragma unroll
      for (int j = 0; j < VPT; ++j)
        if (vec(j) < nvec) buf[slot(j)] = make_float4(x[j][0], x[j][1], x[j][2], x[j][3]);
    }
  }
  SIMT_DEVICE float lane(int bit) const {  // lane `bit` (4 j + c) of this thread's vectors
    return reinterpret_cast<const float*>(buf)[slot(bit >> 2) * 4 + (bit & 3)];
  }
  template <class F>
  SIMT_DEVICE void each_vec(F&& f) const {
    if constexpr (kAsync) SIMT_CP_ASYNC_WAIT(0);  // this thread's copies (load) have landed
#pragma unroll
    for (int j = 0; j < VPT; ++j) {
      const int v = vec(j);
      if (v < nvec) {
        const float4 q = buf[slot(j)];
        const float x[4] = {q.x, q.y, q.z, q.w};
        f(v * 4 - head, x);
      }
    }
  }
  template <class F>
  SIMT_DEVICE void each(F&& f) const { each_vec(lanes_of(f)); }
  // ABOVE / CANDIDATE masks of this thread's lanes under `cls`; lo != 0: only lanes with
  // key32 >= lo are classified (a superset of ABOVE and CANDIDATE, bins being monotone in key
  // order; positive NaNs pass and cls drops them).
  template <class C>
  SIMT_DEVICE void masks(const C& cls, unsigned lo, unsigned* above, unsigned* cand) const {
    unsigned maybe = 0;
#pragma unroll
    for (int j = 0; j < VPT; ++j) {
      if (vec(j) < nvec) {
        const float4 q = buf[slot(j)];
        maybe |= (key32(q.x) >= lo ? 1u : 0u) << (4 * j);
        maybe |= (key32(q.y) >= lo ? 1u : 0u) << (4 * j + 1);
        maybe |= (key32(q.z) >= lo ? 1u : 0u) << (4 * j + 2);
        maybe |= (key32(q.w) >= lo ? 1u : 0u) << (4 * j + 3);
      }
    }
    unsigned a = 0, m = 0;
    for (unsigned mm = maybe; mm != 0; mm &= mm - 1) {
      const int bit = __ffs(static_cast<int>(mm)) - 1;
      const int r = cls(lane(bit));
      a |= (r == kAbove ? 1u : 0u) << bit;
      m |= (r == kCand ? 1u : 0u) << bit;
    }
    *above = a;
    *cand = m;
  }
  SIMT_DEVICE int pos_of(int bit) const { return vec(bit >> 2) * 4 + (bit & 3) - head; }
  template <class F>
  SIMT_DEVICE void each_in(unsigned mask, F&& f) const {  // f(pos, x) for the lanes of `mask`
    for (unsigned m = mask; m != 0; m &= m - 1) {
      const int bit = __ffs(static_cast<int>(m)) - 1;
      f(pos_of(bit), lane(bit));
    }
  }
};

// Streaming row: every pass re-reads global memory, U vectors in flight per thread (kStreamBatch;
// kStreamBatch2Cta in the main kernel's 32-register instantiations). NR = 1 may be restricted to
// the vectors [vb, ve) (the staged source's sample and rest).
template <int NR, int U = kStreamBatch>
struct StreamSrc {
  static constexpr bool kKeyClassified = DSV4_TOPK_KEY_CLASSIFY >= 1;  // select_row step 3
  RowWin w;
  int rank = 0;
  int vb = 0, ve = 0x7FFFFFFF;
  template <class F>
  SIMT_DEVICE void each(F&& f) const { each_vec(lanes_of(f)); }
  template <class F>
  SIMT_DEVICE void each_vec(F&& f) const {
    // U loads in flight per thread, then their lanes (vec_of is increasing in q, so the first
    // vector past the end ends the walk).
    const int end = ve < w.nvec ? ve : w.nvec;
    for (int q = vb + static_cast<int>(threadIdx.x);; q += U * kThreads) {
      float cur[U][4];
      int v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        v[u] = vec_of<NR>(q + u * kThreads, rank);
        if (v[u] < end) load_vec(w, v[u], cur[u]);
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (v[u] < end) f(v[u] * 4 - w.head, cur[u]);
      if (v[U - 1] >= end) break;
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

// The bins of a vector's four lanes for the histogram passes (kPairBins: two at a time).
SIMT_DEVICE void hist_bins4(const float (&x)[4], int w, int (&bin)[4]) {
  if (kPairBins) {
    coarse_bins4(x, w, bin);
  } else {
#pragma unroll
    for (int c = 0; c < 4; ++c) bin[c] = coarse_bin(x[c], w);
  }
}

// Counts a vector's four lanes into the coarse histogram (select_row step 1, padding included).
template <int W>
SIMT_DEVICE void hist_vec(Smem& sm, const float (&x)[4]) {
  int bin[4];
  hist_bins4(x, W, bin);
#pragma unroll
  for (int c = 0; c < 4; ++c) atomicAdd(&sm.hist[bin[c]], 1);
}

}  // namespace dsv4::ours::topk
