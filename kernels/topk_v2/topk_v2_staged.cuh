// kernels/topk_v2/topk_v2_staged.cuh -- the single-CTA Streaming row read once instead of twice.
// The histogram pass first reads a sample (the first kSampleVecs vectors) and picks a guess bin g:
// the bin whose suffix count in the sample reaches the expected count of the K-th element plus a
// 5-sigma margin (stage_guess_target in topk_v2_keys.cuh). It then re-reads the sample while it is
// still L2-hot and copies its elements with bin >= g to a shared-memory stage (value, position)
// (kStageSample), and reads the rest of the row, staging its elements with bin >= g as well.
// kStageFilter (the default): the rest is not binned as it streams; one fp32 compare against
// LB_W(g) (the bin's lower bound, or NaN) picks the lanes to stage, and the stage's elements
// of the rest are counted into the histogram after the row (settle). The histogram then holds the
// whole sample and exactly the rest's bins >= g, which decide the threshold bin t whenever t >= g;
// when the search lands below g (the guess was too high) or the stage overflowed, the whole row is
// counted again (recount). kStageFilter = 0: every lane of the rest is binned and counted as it
// streams (kStagePush: one stage-count atomic per vector with staged lanes, not one per lane).
// Once the full histogram gives the threshold bin t, the classify / refine passes read the stage
// alone instead of the whole row -- when that is complete:
//   t >= g (so every element of bin >= t is staged) and the stage did not overflow. Otherwise
//   they stream the whole row again, as without a stage. Either way the elements offered to the
// selection are a superset of those with bin >= t, so the result is the exact one of
// topk_v2_select.cuh; only the bytes read change. (kStageSample = 0, the A/B switch: the sample
// is not staged and the later passes read it again from global memory, after the whole row.)
#pragma once
#include "kernels/topk_v2/topk_v2_threshold.cuh"

namespace dsv4::ours::topk {

template <int kBatch = kStreamBatch>  // the rest's loads in flight per thread (StreamSrc's U)
struct StagedSrc {
  static constexpr bool kStaged = true;
  static constexpr bool kKeyClassified = DSV4_TOPK_KEY_CLASSIFY == 2;  // select_row step 3
  RowWin w;
  float* sval;  // cap values and positions in dynamic shared memory
  int* spos;
  int cap;      // the stage's capacity (Args::stage, stage_slots x kThreads)
  int c0 = 0;   // sample: vectors [0, c0)
  int g = 0;    // guess bin
  int cnt = -1; // staged elements when the stage is used, -1: stream the whole row
  bool partial = false;  // kStageFilter: the histogram holds only the rest's bins >= g
  float4* ring = nullptr;  // kRestAsync slots a thread (Args::ring), or none: the register walk

  SIMT_DEVICE StreamSrc<1, kBatch> part(int vb, int ve) const {
    StreamSrc<1, kBatch> s{w};
    s.vb = vb;
    s.ve = ve;
    return s;
  }

  // Pass 1: the coarse histogram (every lane, padding included, as for the other sources; with
  // kStageFilter the sample's, the rest's staged lanes following in settle) and the stage. All
  // threads call it; ends without a barrier.
  template <int W>
  SIMT_DEVICE void hist_pass(Smem& sm, const Args& a) {
    constexpr int kBins = 1 << W;
    c0 = w.nvec < kSampleVecs ? w.nvec : kSampleVecs;
    if constexpr (kStageFilter && kStageSample && kSampleKeep > 0) {
      keep_pass<W>(sm, a);
      return;
    }
    part(0, c0).each_vec([&](int, const float (&x)[4]) { hist_vec<W>(sm, x); });
    guess<W>(sm, a);
    if (kStageFilter) {
      if (g >= kBins) return;
      partial = true;
      const float lb = guess_lb<W>();
      if (kStageSample) filter_and_stage(sm, part(0, c0), lb);  // re-read, L2-hot
      tl_mark(a, kTlRestaged);
      filter_and_stage(sm, part(c0, 0x7FFFFFFF), lb);
      return;
    }
    if (kStageSample && g < kBins) bin_and_stage<W, false>(sm, part(0, c0));  // re-read, L2-hot
    tl_mark(a, kTlRestaged);
    bin_and_stage<W, true>(sm, part(c0, 0x7FFFFFFF));
  }

  // After the sample's histogram (all threads): the barrier, then the guess bin g -- the highest
  // bin whose sample suffix reaches stage_guess_target; 1 << W (nothing to stage) when the sample
  // is the whole row.
  template <int W>
  SIMT_DEVICE void guess(Smem& sm, const Args& a) {
#if !DSV4_FAULT_TOPK_STAGE_NO_SAMPLE_BARRIER  // planted: the guess reads a histogram still being built
    __syncthreads();
#endif
    tl_mark(a, kTlSampled);
    g = 1 << W;
    if (c0 < w.nvec) {
      int above = 0;
      find_threshold<(1 << W) - 1>(sm.hist, stage_guess_target(a.K, c0, w.nvec), sm, &g, &above);
    }
    tl_mark(a, kTlGuessed);
  }

  // kStageFilter's bound: LB_W(g), the guess bin's lower bound.
  template <int W>
  SIMT_DEVICE float guess_lb() const {
#if DSV4_FAULT_TOPK_STAGE_SKIPS_GUESS_BIN
    return coarse_bin_lower_bound(g + 1, W);  // planted: bin g itself is not staged
#else
    return coarse_bin_lower_bound(g, W);
#endif
  }
  SIMT_DEVICE static unsigned filter_mask(const float (&x)[4], float lb) {
    unsigned m = 0;
#pragma unroll
    for (int c = 0; c < 4; ++c) m |= (stage_filter_pass(x[c], lb) ? 1u : 0u) << c;
    return m;
  }

  // hist_pass with kSampleKeep: the same histogram and stage, the sample's vectors filtered from
  // the registers they were loaded into instead of read again.
  template <int W>
  SIMT_DEVICE void keep_pass(Smem& sm, const Args& a) {
    const int tid = static_cast<int>(threadIdx.x);
    float xs[kSampleVpt][4];
#pragma unroll
    for (int j = 0; j < kSampleVpt; ++j)
      if (tid + j * kThreads < c0) load_vec(w, tid + j * kThreads, xs[j]);
    const bool with_ring = kRestAsync > 0 && ring != nullptr;
    if (kRingEarly && with_ring) ring_start();  // the rest's first copies in flight during the guess
#pragma unroll
    for (int j = 0; j < kSampleVpt; ++j)
      if (tid + j * kThreads < c0) hist_vec<W>(sm, xs[j]);
    guess<W>(sm, a);
    if (g >= (1 << W)) {  // (no copy outlives the pass)
      if (kRingEarly && with_ring) SIMT_CP_ASYNC_WAIT(0);
      return;
    }
    partial = true;
    const float lb = guess_lb<W>();
#pragma unroll
    for (int j = 0; j < kSampleVpt; ++j)
      if (tid + j * kThreads < c0) push(sm, (tid + j * kThreads) * 4 - w.head, xs[j], filter_mask(xs[j], lb));
    tl_mark(a, kTlRestaged);
    if (with_ring) ring_pass(sm, lb, kRingEarly != 0);
    else  // (planted TOPK_REST_WALK_SHORT: the register walk ends a round early)
      filter_and_stage(sm, part(c0, DSV4_FAULT_TOPK_REST_WALK_SHORT ? w.nvec - kThreads : 0x7FFFFFFF), lb);
  }

  // The rest [c0, nvec) filtered and staged as filter_and_stage does, its whole vectors copied by
  // cp.async into this thread's kRestAsync ring slots (slot d: ring[d * kThreads + tid]) up to
  // kRestAsync vectors ahead; only this thread reads its slots, so the wait for its own copies
  // orders them (no barrier). A slot is refilled after its vector is in registers. The partial
  // last vector (never copied) is loaded lane by lane. `started`: ring_start, which issues the
  // first kRestAsync copies, was called (kRingEarly: before the guess).
  SIMT_DEVICE bool ring_whole(int v) const { return v * 4 >= w.head && v * 4 + 4 <= w.head + w.lim; }
  SIMT_DEVICE void ring_issue(int v, int d) {
    if (v < w.nvec && ring_whole(v))
      SIMT_CP_ASYNC16(ring + d * kThreads + threadIdx.x, reinterpret_cast<const float4*>(w.base) + v);
    SIMT_CP_ASYNC_COMMIT();  // one group a slot, empty or not: the wait counts groups
  }
  SIMT_DEVICE void ring_start() {
#pragma unroll
    for (int d = 0; d < (kRestAsync > 0 ? kRestAsync : 1); ++d) ring_issue(c0 + threadIdx.x + d * kThreads, d);
  }
  SIMT_DEVICE void ring_pass(Smem& sm, float lb, bool started) {
    constexpr int D = kRestAsync > 0 ? kRestAsync : 1;
    const float4* const mine = ring + threadIdx.x;
    if (!started) ring_start();
    for (int d = 0, v = c0 + static_cast<int>(threadIdx.x); v < w.nvec; v += kThreads) {
      SIMT_CP_ASYNC_WAIT(D - 1);  // the group of vector v (D - 1 newer ones may be in flight)
      float x[4];
      if (ring_whole(v)) {  // (planted TOPK_RING_STALE_SLOT: the next slot read)
        const float4 q = mine[(DSV4_FAULT_TOPK_RING_STALE_SLOT ? (d + 1) % D : d) * kThreads];
        x[0] = q.x; x[1] = q.y; x[2] = q.z; x[3] = q.w;
      } else {
        load_vec(w, v, x);
      }
      const unsigned m = filter_mask(x, lb);
      ring_issue(v + D * kThreads, d);
      push(sm, v * 4 - w.head, x, m);
      d = d + 1 == D ? 0 : d + 1;
    }
    SIMT_CP_ASYNC_WAIT(0);
  }

  // kStageFilter: stages every lane of `src` with !(x < lb) -- bin >= g, and NaN (counted in the
  // top bin); -0.0 too when lb = +0.0, a superset the histogram and the classification sort out
  // (stage_filter_pass) -- by one stage-count atomic per vector with staged lanes. Bins nothing.
  // (A walk of the whole vectors without StreamSrc's window test measured 3-10 % slower on the
  // H200: docs/performance.md, fourteenth pass.)
  SIMT_DEVICE void filter_and_stage(Smem& sm, const StreamSrc<1, kBatch>& src, float lb) {
    src.each_vec([&](int p, const float (&x)[4]) { push(sm, p, x, filter_mask(x, lb)); });
  }

  // The lanes `m` of the vector at position p onto the stage: popc(m) slots by one atomic, then
  // the set lanes one by one (those past cap only counted).
  SIMT_DEVICE void push(Smem& sm, int p, const float (&x)[4], unsigned m) {
    if (m == 0u) return;
    int i = atomicAdd(&sm.stage_cnt, __popc(m));
    do {
      const int c = __ffs(m) - 1;  // (selects: a register array is not indexed at run time)
      if (i < cap) {
        sval[i] = c == 0 ? x[0] : c == 1 ? x[1] : c == 2 ? x[2] : x[3];
        spos[i] = p + c;
      }
      ++i;
      m &= m - 1u;
    } while (m != 0u);
  }

  // After the barrier that ends pass 1, all threads: completes a partial histogram -- the stage's
  // elements of the rest (positions past the sample) counted into their bins, or, when the stage
  // overflowed (elements lost), the whole row counted again. Ends with a barrier.
  template <int W>
  SIMT_DEVICE void settle(Smem& sm) {
    if (!partial) return;
    const int n = sm.stage_cnt;
#if !DSV4_FAULT_TOPK_STAGE_OVERFLOW_NO_RECOUNT  // planted: the stored part of an overflowed stage counted
    if (n > cap) {
      recount<W>(sm);
      return;
    }
#endif
    const int p0 = c0 * 4 - w.head, m = n < cap ? n : cap;
    for (int i = threadIdx.x; i < m; i += kThreads)
      if (spos[i] >= p0) atomicAdd(&sm.hist[coarse_bin(sval[i], W)], 1);
    __syncthreads();
  }

  // The threshold search over a partial histogram found t below the guess bin (the rest's bins
  // < g uncounted): the whole row must be counted again before the search is repeated.
  SIMT_DEVICE bool needs_recount(int t) const {
#if DSV4_FAULT_TOPK_STAGE_NO_RECOUNT  // planted: the threshold of the partial histogram kept
    (void)t;
    return false;
#else
    return partial && t >= 0 && t < g;
#endif
  }

  // The whole row's histogram, counted again (every lane, padding included). All threads; ends
  // with a barrier. The stage stays as it is; decide() then streams the row.
  template <int W>
  SIMT_DEVICE void recount(Smem& sm) {
    __syncthreads();  // every thread is past its reads of the histogram
    for (int i = threadIdx.x; i < (1 << W); i += kThreads) sm.hist[i] = 0;
    __syncthreads();
    part(0, 0x7FFFFFFF).each_vec([&](int, const float (&x)[4]) { hist_vec<W>(sm, x); });
    __syncthreads();
    partial = false;
    g = 1 << W;  // the stage is not used
  }

  // Bins every lane of `src` (kCount: into the histogram too) and stages those of bin >= g.
  template <int W, bool kCount>
  SIMT_DEVICE void bin_and_stage(Smem& sm, const StreamSrc<1, kBatch>& src) {
    constexpr int kTop = (1 << W) - 1;
    const int gg = g;
    const auto staged = [gg](int bin) {
#if DSV4_FAULT_TOPK_STAGE_SKIPS_GUESS_BIN
      return bin > gg && bin < kTop;  // planted: bin g itself is not staged
#else
      return bin >= gg && bin < kTop;
#endif
    };
    const auto offer = [&](int pos, float x, int bin) {
      if (staged(bin)) {
        const int i = atomicAdd(&sm.stage_cnt, 1);
        if (i < cap) {
          sval[i] = x;
          spos[i] = pos;
        }
      }
    };
    src.each_vec([&](int p, const float (&x)[4]) {
      int bin[4];
      hist_bins4(x, W, bin);
      if (kStagePush == 0) {
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          if (kCount) atomicAdd(&sm.hist[bin[c]], 1);
          offer(p + c, x[c], bin[c]);
        }
        return;
      }
      // kStagePush: one stage-count atomic per vector with staged lanes (the lanes' mask), then
      // the set lanes one by one
      unsigned m = 0;
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        if (kCount) atomicAdd(&sm.hist[bin[c]], 1);
        m |= (staged(bin[c]) ? 1u : 0u) << c;
      }
      push(sm, p, x, m);
    });
  }

  // After the barrier that ends pass 1 and the threshold search: t = threshold bin (-1: every
  // element is taken, which the stage cannot serve). Uniform over the block.
  SIMT_DEVICE void decide(const Smem& sm, int t) {
    const int n = sm.stage_cnt;
#if DSV4_FAULT_TOPK_STAGE_NO_FALLBACK  // planted: the stage is used even when incomplete
    cnt = n < cap ? n : cap;
    (void)t;
#else
    cnt = (t >= 0 && t >= g && n <= cap) ? n : -1;
#endif
  }

  template <class F>
  SIMT_DEVICE void each(F&& f) const {
    if (cnt < 0) {
      part(0, 0x7FFFFFFF).each(f);
      return;
    }
    if (!kStageSample) part(0, c0).each(f);
    for (int i = threadIdx.x; i < cnt; i += kThreads) f(spos[i], sval[i]);
  }
};

}  // namespace dsv4::ours::topk
