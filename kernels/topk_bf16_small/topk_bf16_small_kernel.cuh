// kernels/topk_bf16_small/topk_bf16_small_kernel.cuh -- exact bf16 small-row top-k with a fused,
// range-checked page transform (spec topk_bf16_small.md). One CTA of kThreads threads per row,
// at most 4 vectors of 8 bf16 per thread (strided, coalesced), two radix byte passes over the
// distorted key D (keys, parameters and helpers: topk_bf16_small_keys.cuh).
#pragma once
#include "kernels/topk_bf16_small/topk_bf16_small_census.cuh"

namespace dsv4::ours::bf16 {

// kCtasPerSm: the residency the registers are allocated for (bf16_ctas_per_sm, host entry): 3 (40
// registers, the page-table prefetch) or 4 (32 registers, no prefetch: its registers would spill).
template <int kCtasPerSm>
SIMT_KERNEL void SIMT_LAUNCH_BOUNDS(kThreads, kCtasPerSm) topk_bf16_small_kernel(Params p) {
  constexpr bool kPrefetch = DSV4_BF16_TABLE_PREFETCH && kCtasPerSm < 4;
  constexpr int kHistWords = 2 * 256 + 1;  // [0,256): high byte of D; [256,512): low byte;
  SIMT_SHARED(unsigned, hist, [kHistWords]);  // [512]: dump slot of pass 2 (never read)
  SIMT_SHARED(int, stage, [kMaxK]);
  SIMT_SHARED(unsigned, cursor, );     // packed census (gt << 16 | eq)
  SIMT_SHARED(int, tcache, [kTableCache]);  // page-table prefetch (output gather from shared)
#if DSV4_BF16_SHARED_PIVOT
  SIMT_SHARED(unsigned, pivots, [4]);  // warp 0's (bin, remain) of pass 1, pass 2
  unsigned* const pivot_slots = &pivots[0];
#else
  unsigned* const pivot_slots = nullptr;
#endif
  const int tx = threadIdx.x;
  if (DSV4_BF16_LATE_NAN && kHistWords <= 2 * kThreads) {  // no loop: one or two words a thread
    hist[tx] = 0u;
    if (tx + kThreads < kHistWords) hist[tx + kThreads] = 0u;
  } else {
    for (int i = tx; i < kHistWords; i += kThreads) hist[i] = 0u;
  }
  if (tx == 0) cursor = 0u;

  SIMT_PDL_WAIT();  // nothing global is touched before this (spec README §4 PDL)
  const int b = blockIdx.x;
  const int n = p.seq_lens[b];
  int* out = p.out + static_cast<long long>(b) * p.out_stride;
  // never offset a null table (W == 0 allows data == NULL; every mapping then fails the column check)
  const int* trow = p.W > 0 ? p.table + static_cast<long long>(b) * p.table_stride : p.table;
  const int k = p.k;

  if (row_done_before_scores(p, trow, out, b, n, tx, kThreads, tx == 0)) return;  // no score read

  // ---- load: vector v of thread tx is vector tx + v * kThreads of the row (balanced: counts
  // differ by at most one; every warp load is one coalesced 512-byte access). NaN and padding
  // lanes -> key 0 ----
  const uint16_t* row = p.scores + static_cast<long long>(b) * p.score_stride;
  // Table prefetch: the columns the row can gather, loaded into registers now (in flight together
  // with the score loads) and parked in shared memory after them; the output then gathers from
  // shared memory instead of a dependent global load.
  const long long need_cols = (static_cast<long long>(n) + (1 << p.page_bits) - 1) >> p.page_bits;
  const int cache_cols = static_cast<int>(need_cols < p.W ? need_cols : p.W);
  const bool use_cache = kPrefetch && need_cols <= kTableCache;
  int treg[kTableSlots];
  DSV4_IDX_UNROLL
  for (int i = 0; i < kTableSlots; ++i) {
    const int c = tx + i * kThreads;
    treg[i] = use_cache && c < cache_cols ? trow[c] : 0;
  }
  // Every whole vector's load is issued before any key is made (one memory latency per thread,
  // not one per vector); the partial last vector, lane by lane, after them.
  const auto first = [&](int v) { return (tx + v * kThreads) * kVecLanes; };  // vector loaded iff < n
  const auto whole = [&](int v) {
    return first(v) + kVecLanes <= n || (DSV4_FAULT_BF16_READ_PAST_SEQLEN && first(v) < n);
  };
  Vec16 raw[kVecsPerThread];
  DSV4_IDX_UNROLL
  for (int v = 0; v < kVecsPerThread; ++v)
    if (whole(v)) raw[v] = *reinterpret_cast<const Vec16*>(row + first(v));
  // Keys by sign_order_halves; NaN lanes (rare) cleared afterwards, only when this thread holds one.
  uint32_t kw[4 * kVecsPerThread];
  uint32_t nan_probe = 0u;
  DSV4_IDX_UNROLL
  for (int v = 0; v < kVecsPerThread; ++v) {
    const int e0 = first(v);
    if (whole(v)) {
      DSV4_IDX_UNROLL
      for (int q = 0; q < 4; ++q) {
        kw[4 * v + q] = word_keys(raw[v].w[q]);
        if (!DSV4_BF16_LATE_NAN) nan_probe |= pair_nan_probe(raw[v].w[q]);
      }
    } else if (e0 < n) {  // the partial last vector: nothing at or past n
      DSV4_IDX_UNROLL
      for (int q = 0; q < 4; ++q) {
        const int e = e0 + 2 * q;
        const uint32_t lo = e < n ? lane_key(row[e]) : 0u;
        const uint32_t hi = e + 1 < n ? lane_key(row[e + 1]) : 0u;
        kw[4 * v + q] = lo | (hi << 16);
      }
    } else {
      DSV4_IDX_UNROLL
      for (int q = 0; q < 4; ++q) kw[4 * v + q] = 0u;
    }
  }
  if ((nan_probe & 0x80008000u) != 0u) {
    DSV4_IDX_UNROLL
    for (int q = 0; q < 4 * kVecsPerThread; ++q) kw[q] = clear_nan_keys(kw[q]);
  }
  if (use_cache) {
    DSV4_IDX_UNROLL
    for (int i = 0; i < kTableSlots; ++i) {
      const int c = tx + i * kThreads;
      if (c < cache_cols) tcache[c] = treg[i];
    }
  }
  __syncthreads();  // histograms zeroed, table cache filled
  if (DSV4_BF16_ABLATE == 1) {  // keep the loads: their keys decide a (never taken) write
    uint32_t x = 0u;
    for (int i = 0; i < 4 * kVecsPerThread; ++i) x ^= kw[i];
    if (x == 0x9E3779B9u) out[0] = 0;
    return;
  }

  // ---- pass 1: high byte of D, every lane. Absent lanes (D = 0) count in bin 0 here and in
  // pass 2: the pivot search may then end on D = 0 with lanes "needed" there, which the census
  // turns into "every present lane" (pivot 0) ----
#if DSV4_BF16_HIST_SKEW  // bins >= 128 stored 16 banks away (bin ^ 16), a word at once
  DSV4_IDX_UNROLL
  for (int q = 0; q < 4 * kVecsPerThread; ++q) {
    const uint32_t s = kw[q] ^ ((kw[q] >> 3) & 0x10001000u);  // bit 7 of each half's bin -> bit 4
    atomicAdd(&hist[(s >> 8) & 0xFFu], 1u);
    atomicAdd(&hist[s >> 24], 1u);
  }
#else
  DSV4_IDX_UNROLL
  for (int l = 0; l < kLanesPerThread; ++l) atomicAdd(&hist[key_at(kw, l) >> 8], 1u);
#endif
#if !DSV4_FAULT_BF16_NO_HIST_BARRIER  // planted: the pivot search reads a histogram being built
  __syncthreads();
#endif
#if DSV4_BF16_LATE_NAN
  // Every NaN key has high byte 0x00 (negative NaN) or 0xFF (positive NaN), bins that otherwise
  // hold only the absent lanes (bin 0: the kRowCapacity - n lanes at or past n) and |x| >= 2^127
  // (+-inf among them). Only when either bin holds more are the keys cleared (rare, uniform over
  // the CTA): a positive NaN's count moves from bin 0xFF to bin 0, a negative one stays in bin 0.
  constexpr unsigned kTopBin = DSV4_BF16_HIST_SKEW ? (0xFFu ^ 16u) : 0xFFu;
  if (hist[0] != static_cast<unsigned>(kRowCapacity - n) || hist[kTopBin] != 0u) {
    unsigned moved = 0u;
    DSV4_IDX_UNROLL
    for (int q = 0; q < 4 * kVecsPerThread; ++q) {
      const uint32_t c = clear_nan_keys(kw[q]);
      moved += ((kw[q] >> 8) & 0xFFu) == 0xFFu && (c & 0xFFFFu) == 0u;
      moved += (kw[q] >> 24) == 0xFFu && (c >> 16) == 0u;
      kw[q] = c;
    }
    __syncthreads();  // every thread has read bins 0 and 0xFF
    if (moved != 0u && !DSV4_FAULT_BF16_NAN_COUNT_KEPT) {
      atomicSub(&hist[kTopBin], moved);
      atomicAdd(&hist[0], moved);
    }
    __syncthreads();
  }
#endif
  unsigned hi_bin, remain1;
  pivot_of<DSV4_BF16_HIST_SKEW != 0>(hist, static_cast<unsigned>(k), hi_bin, remain1,
                                      pivot_slots, 0);
  if (DSV4_BF16_ABLATE == 2) {
    if (hi_bin == 0x9E37u) out[0] = 0;
    return;
  }

  // ---- pass 2: low byte of the lanes in the pivot's high bin. x = D ^ (hi_bin << 8) is the low
  // byte for those and >= 256 for every other lane, which min() sends to the one dump slot: the
  // shared atomics of a warp to one address cost one update (ATOMS.POPC.INC), so one slot beats a
  // slot per lane and a predicated-off atomic (H200 A/B, docs/performance.md, seventh pass).
  // Conflicts cost by bank, not by address: a warp's atomics to n distinct words of one bank take
  // n passes (scripts/gpu/smem_atomics_probe.cu) ----
  unsigned* const h2 = hist + 256;
  const unsigned hb = hi_bin << 8;
#if DSV4_BF16_PASS2_WORDS  // both halves at once: min(x, 256) per half, times 4 = byte offsets
  DSV4_IDX_UNROLL
  for (int q = 0; q < 4 * kVecsPerThread; ++q) {
    const uint32_t off = min_u16x2(kw[q] ^ (hb * 0x10001u), 0x01000100u) << 2;
    atomicAdd(reinterpret_cast<unsigned*>(reinterpret_cast<char*>(h2) + (off & 0xFFFFu)), 1u);
    atomicAdd(reinterpret_cast<unsigned*>(reinterpret_cast<char*>(h2) + (off >> 16)), 1u);
  }
#else
  DSV4_IDX_UNROLL
  for (int l = 0; l < kLanesPerThread; ++l) {
    const unsigned x = key_at(kw, l) ^ hb;
    atomicAdd(&h2[x < 256u ? x : 256u], 1u);
  }
#endif
  __syncthreads();
  unsigned lo_bin, eq_total;
  pivot_of<false>(h2, remain1, lo_bin, eq_total, pivot_slots, 2);
  // pivot 0 = the absent key (padding code): only when fewer than k lanes are present
  const unsigned pivot = (hi_bin << 8) | lo_bin;
  if (DSV4_BF16_ABLATE == 3) {
    if (pivot == 0x9E37u) out[0] = static_cast<int>(eq_total);
    return;
  }

  // ---- census and staging (spec §4.3 step 7; topk_bf16_small_census.cuh): lane l = v * 8 + j
  // (mask bit census_bit(l)) is element (tx + v * kThreads) * 8 + j ----
  unsigned gt, eq;
  census_masks(kw, pivot, gt, eq);
  const unsigned excl = census_prefix((__popc(gt) << 16) | __popc(eq), &cursor);
  for_selected(gt, eq, excl, eq_total,
               [&](int pos, int l) { stage[pos] = (tx + (l >> 3) * kThreads) * kVecLanes + (l & 7); });
  SIMT_PDL_TRIGGER();
  __syncthreads();
  if (DSV4_BF16_ABLATE == 4) return;

  // ---- output: staged positions through the transform, then -1 ----
  const unsigned total = cursor;
  const unsigned eq_all = total & 0xFFFFu;
  const int num_staged = static_cast<int>((total >> 16) + (eq_all < eq_total ? eq_all : eq_total));
  const int* tc = use_cache ? &tcache[0] : nullptr;
  for (int t = tx; t < k; t += kThreads) out[t] = t < num_staged ? map_position(p, trow, tc, stage[t], b) : -1;
  if (DSV4_FAULT_BF16_WIDE_LAST_SLOT && kCtasPerSm == kWideCtasPerSm && tx == 0) out[k - 1] = -1;  // planted
}

}  // namespace dsv4::ours::bf16
