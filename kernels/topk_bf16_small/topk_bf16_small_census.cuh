// kernels/topk_bf16_small/topk_bf16_small_census.cuh -- census and staging of the bf16 small
// top-k (spec topk_bf16_small.md §4.3 step 7), shared by the one-CTA kernel and the split kernel
// (topk_bf16_small_kernel.cuh, topk_bf16_small_split.cuh): a thread's G and E lane masks against
// the pivot, the packed prefix over the CTA (or cluster) by a warp scan and one atomic a warp on
// the census cursor, and the walk over the selected lanes.
#pragma once
#include "kernels/topk_bf16_small/topk_bf16_small_keys.cuh"

namespace dsv4::ours::bf16 {

// Masks of a thread's kWords key words: gt = lanes above the pivot, eq = lanes equal to it (lane l
// at bit census_bit(l)). Compares on whole words: a word's high key is above the pivot iff the
// word exceeds (pivot << 16 | 0xFFFF), at or above it iff the word reaches eq_floor; its low key
// the same after a shift by 16. pivot 0 (the absent key, only when fewer than k lanes are present):
// G = every present lane, E empty (a high key 0xFFFF, a positive NaN, is absent).
template <int kWords>
SIMT_DEVICE void census_masks(const uint32_t (&kw)[kWords], unsigned pivot, unsigned& gt, unsigned& eq) {
  gt = 0u;
  eq = 0u;
#if DSV4_FAULT_BF16_NEGZERO_PIVOT
  const float pv = key_value(pivot);
  DSV4_IDX_UNROLL
  for (int l = 0; l < 2 * kWords; ++l) {
    const uint32_t d = key_at(kw, l);
    // Planted defect: IEEE compares against the pivot value without the census fix.
    const bool g = pivot == 0u ? d > 0u : (d != 0u && key_value(d) > pv);
    const bool e = pivot != 0u && d != 0u && key_value(d) == pv;
    gt |= (g ? 1u : 0u) << census_bit(l);
    eq |= (!g && e ? 1u : 0u) << census_bit(l);
  }
#elif DSV4_BF16_SWAR_CENSUS
  // above: D >= pivot + 1 (<= 0xFF81: the largest present key is +inf's 0xFF80); at or above:
  // D >= pivot, or D >= 0xFFFF (no present key) for pivot 0
  const uint32_t t_gt = pivot + 1u, t_ge = pivot != 0u ? pivot : 0xFFFFu;
  const uint32_t gl = (t_gt & 0x7FFFu) * 0x10001u, gh = (t_gt & 0x8000u) ? ~0u : 0u;
  const uint32_t el = (t_ge & 0x7FFFu) * 0x10001u, eh = (t_ge & 0x8000u) ? ~0u : 0u;
#if DSV4_BF16_CENSUS_PAIRS  // a pair of words at a time: no 2 x kWords result words live at once
  unsigned ge = 0u;
  DSV4_IDX_UNROLL
  for (int j = 0; j < kWords / 2; ++j) {
    gt |= pack_pair_tops(ge_halves(kw[2 * j], gl, gh), ge_halves(kw[2 * j + 1], gl, gh), j);
    ge |= pack_pair_tops(ge_halves(kw[2 * j], el, eh), ge_halves(kw[2 * j + 1], el, eh), j);
  }
  eq = ge & ~gt;
#else
  uint32_t rg[kWords], re[kWords];
  DSV4_IDX_UNROLL
  for (int q = 0; q < kWords; ++q) {
    rg[q] = ge_halves(kw[q], gl, gh);
    re[q] = ge_halves(kw[q], el, eh);
  }
  gt = pack_half_tops(rg);
  eq = pack_half_tops(re) & ~gt;
#endif
#else
  const uint32_t gt_above = (pivot << 16) | 0xFFFFu;
  const uint32_t eq_floor = pivot != 0u ? pivot << 16 : 0xFFFFFFFFu;
  unsigned ge = 0u;  // eq = ge & ~gt once, not per lane (two independent compares per key)
  DSV4_IDX_UNROLL
  for (int q = 0; q < kWords; ++q) {
    const uint32_t lo = kw[q] << 16, hi = kw[q];
    gt |= (lo > gt_above ? 1u : 0u) << (2 * q);
    gt |= (hi > gt_above ? 1u : 0u) << (2 * q + 1);
    ge |= (lo >= eq_floor ? 1u : 0u) << (2 * q);
    ge |= (hi >= eq_floor ? 1u : 0u) << (2 * q + 1);
  }
  eq = ge & ~gt;
#endif
}

// The exclusive prefix (gt_before << 16 | eq_before) of a thread's packed counts over every
// thread adding to *cursor (the CTA's, or the cluster rank 0's through distributed shared memory):
// a warp inclusive scan and one atomic a warp (warp arrival order). Called by whole warps.
SIMT_DEVICE unsigned census_prefix(unsigned packed, unsigned* cursor) {
  const int lane = threadIdx.x & 31;
  unsigned incl = packed;
  DSV4_IDX_UNROLL
  for (int off = 1; off < 32; off <<= 1) {
    const unsigned t = __shfl_up_sync(0xFFFFFFFFu, incl, off);
    if (lane >= off) incl += t;
  }
  unsigned base = 0u;
  if (lane == 31) base = atomicAdd(cursor, incl);
  base = __shfl_sync(0xFFFFFFFFu, base, 31);
  return base + incl - packed;
}

// put(slot, l) for every lane this thread selects: all of gt and the first `quota` of eq, its
// share of the eq_total equal lanes needed, at consecutive slots from gt_before + min(eq_before,
// eq_total); l = census_lane(bit), the lane index in the thread's key words.
template <class Put>
SIMT_DEVICE void for_selected(unsigned gt, unsigned eq, unsigned excl, unsigned eq_total, Put&& put) {
  const unsigned gt_before = excl >> 16, eq_before = excl & 0xFFFFu;
  const unsigned eqc = __popc(eq);
  const unsigned lo_cut = eq_before < eq_total ? eq_before : eq_total;
  const unsigned hi_cut = eq_before + eqc < eq_total ? eq_before + eqc : eq_total;
  unsigned quota = hi_cut - lo_cut;
  unsigned sel = gt;
  for (unsigned m = eq; quota > 0u; --quota) {  // the first `quota` equal lanes
    const unsigned low = m & (0u - m);
    sel |= low;
    m ^= low;
  }
  int pos = static_cast<int>(gt_before + lo_cut);
  while (sel != 0u) {
    put(pos++, census_lane(__ffs(sel) - 1));
    sel &= sel - 1u;
  }
}

}  // namespace dsv4::ours::bf16
