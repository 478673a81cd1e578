// kernels/topk_v2/topk_v2_threshold.cuh -- the threshold search of Top-K v2: the bin of a histogram
// (coarse bins, radix digits, the stage's guess) that holds the target-th largest element, found by
// one block through a warp suffix scan and one read of the warp totals.
#pragma once
#include "kernels/topk_v2/topk_v2_block.cuh"

namespace dsv4::ours::topk {

static_assert(kWarps <= 32, "find_threshold sums the warp totals inside one warp");
// Inclusive suffix sum over the lanes >= lane of the warp.
SIMT_DEVICE int warp_suffix(int v, int lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const int y = __shfl_down_sync(0xFFFFFFFFu, v, d);
    if (lane + d < 32) v += y;
  }
  return v;
}

// Thread u's bins of hist[0, NB): [u * kBpt, u * kBpt + kBpt), 0 past NB. At a multiple of 4 a
// thread (4 on the GPU's 1024 threads over 4095 bins) by 16-byte loads: `hist` must then be 16-byte
// aligned and hold NB rounded up to a multiple of 4 ints (Smem::hist and Smem::rh rows do).
template <int NB, int kBpt>
SIMT_DEVICE void load_bins(const int* hist, int u, int (&h)[kBpt]) {
  const int lo = u * kBpt;
  if constexpr (kBpt % 4 == 0) {
#pragma unroll
    for (int c = 0; c < kBpt; c += 4) {
      const int b = lo + c;
      int4 q = make_int4(0, 0, 0, 0);
      if (b < NB) q = *reinterpret_cast<const int4*>(hist + b);
      h[c] = q.x;
      h[c + 1] = b + 1 < NB ? q.y : 0;
      h[c + 2] = b + 2 < NB ? q.z : 0;
      h[c + 3] = b + 3 < NB ? q.w : 0;
    }
  } else {
#pragma unroll
    for (int j = 0; j < kBpt; ++j) h[j] = lo + j < NB ? hist[lo + j] : 0;
  }
}

// The bin of h (bins lo, lo + 1, ...; `excl` elements above them) holding the target-th largest,
// and the elements above it; none: lo and (excl + sum h) - h[0].
template <int kBpt>
SIMT_DEVICE void scan_bins(const int (&h)[kBpt], int lo, int excl, int target, int* t, int* above) {
  int acc = excl, tt = lo, ab = -1;
#pragma unroll
  for (int j = kBpt - 1; j >= 0; --j) {
    if (ab < 0) {
      if (acc + h[j] >= target) {
        tt = lo + j;
        ab = acc;
      } else {
        acc += h[j];
      }
    }
  }
  *t = tt;
  *above = ab < 0 ? acc - h[0] : ab;
}

// Finds the bin t of hist[0, NB) with above(t) < target <= above(t) + hist[t], above(t) = sum of
// the bins above t (target >= 1). If the bins hold fewer than `target` elements (a partial
// histogram, or a planted fault), returns t = 0 and above = their total - hist[0]. Every thread
// of the block calls it; `hist` may be remote (DSMEM).
template <int NB>
SIMT_DEVICE void find_threshold(const int* hist, int target, Smem& sm, int* t_out, int* above_out) {
  constexpr int kBpt = (NB + kThreads - 1) / kThreads;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int lo = tid * kBpt < NB ? tid * kBpt : NB;
  const int hi = lo + kBpt < NB ? lo + kBpt : NB;  // this thread's bins: [lo, hi)
  int h[kBpt] = {};
  int s = 0;
  if (DSV4_TOPK_FIND != 0) {
    load_bins<NB>(hist, tid, h);
#pragma unroll
    for (int j = 0; j < kBpt; ++j) s += h[j];
  } else {
    for (int b = lo; b < hi; ++b) s += hist[b];
  }
  const int x = warp_suffix(s, lane);
  if (lane == 0) sm.warp_sum[warp] = x;
  __syncthreads();
  // elements above this thread's bins: own warp's exclusive suffix + the warps above (one read
  // per lane and a butterfly sum instead of a serial loop over up to 31 warp sums)
  int up = lane > warp && lane < kWarps ? sm.warp_sum[lane] : 0;
  for (int d = 16; d > 0; d >>= 1) up += __shfl_xor_sync(0xFFFFFFFFu, up, d);
  const int excl = x - s + up;
  if (excl < target && (target <= excl + s || tid == 0)) {  // the hit thread (or thread 0)
    if (DSV4_TOPK_FIND != 0) {
      scan_bins(h, lo, excl, target, &sm.res_t, &sm.res_above);
    } else {
      int acc = excl, t = lo, above = -1;
      for (int b = hi - 1; b >= lo; --b) {
        if (acc + hist[b] >= target) { t = b; above = acc; break; }
        acc += hist[b];
      }
      sm.res_t = t;
      sm.res_above = above < 0 ? acc - (hi > lo ? hist[lo] : 0) : above;
    }
  }
  __syncthreads();
  *t_out = sm.res_t;
  *above_out = sm.res_above;
}

}  // namespace dsv4::ours::topk
