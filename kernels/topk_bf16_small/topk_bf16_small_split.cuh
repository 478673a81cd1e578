// kernels/topk_bf16_small/topk_bf16_small_split.cuh -- the bf16 small top-k with one row split
// over a cluster of kRanks CTAs (2 or 4), for batches that leave most SMs idle (spec
// topk_bf16_small.md §4.2 fixes the algorithm, not the grid; the steps of §4.3 are the same).
// Rank r holds the row's lanes [r * kShare, (r + 1) * kShare), kVecsPerThread / kRanks vectors a
// thread; each rank histograms its own lanes, and warp 0 of every rank sums the kRanks histograms
// through distributed shared memory after a cluster barrier, so every rank finds the same pivots.
// The census cursor is rank 0's (one remote atomic a warp); every rank writes its selected lanes
// straight to out[] (slot order is unspecified) and its share of the -1 tail, whose start is known
// from the pivot: k, or k - eq_total when the pivot is the absent key. Keys NaN-cleared at the load
// (the one-CTA kernel's LATE_NAN path needs the whole row's bins before any key is cleared).
#pragma once
#include "kernels/topk_bf16_small/topk_bf16_small_census.cuh"

// DSV4_BF16_SPLIT: 1 = split_ranks_for below picks the split by batch; 0 (the default: on an H100
// the split was slower than one CTA a row at every batch, each cluster barrier ~0.75 us;
// docs/performance.md, twenty-seventh pass) = never split unless the configuration forces it;
// DSV4_BF16_SPLIT_FORCE 1 / 2 / 4: that split for every launch not forced by the configuration
// (A/B builds of scripts/gpu/bf16_ab.sh).
#ifndef DSV4_BF16_SPLIT
#define DSV4_BF16_SPLIT 0
#endif
#ifndef DSV4_BF16_SPLIT_FORCE
#define DSV4_BF16_SPLIT_FORCE 0
#endif

namespace dsv4::ours::bf16 {

// CTAs a row for a launch of B rows on `sms` SMs; `forced` 1, 2 or 4 (dsv4_config
// bf16_split_ranks): that one. By batch: 4 while the launch stays within 2 CTAs a SM
// (4B <= 2 sms: H200 B <= 66), 2 while 2B <= 2 sms, else 1 (the one-CTA kernel; in a full wave the
// split only adds the cluster's barriers: docs/performance.md, twenty-sixth pass).
inline int split_ranks_for(long long B, int sms, int forced, bool by_batch = DSV4_BF16_SPLIT) {
  const auto fits = [](int r) { return kVecsPerThread % r == 0; };
  if ((forced == 1 || forced == 2 || forced == 4) && fits(forced)) return forced;
  if (DSV4_BF16_SPLIT_FORCE == 2 || DSV4_BF16_SPLIT_FORCE == 4) return fits(DSV4_BF16_SPLIT_FORCE) ? DSV4_BF16_SPLIT_FORCE : 1;
  if (DSV4_BF16_SPLIT_FORCE == 1 || !by_batch || sms <= 0) return 1;
  if (4LL * B <= 2LL * sms && fits(4)) return 4;
  if (2LL * B <= 2LL * sms && fits(2)) return 2;
  return 1;
}

// The pivot search over the sum of the cluster's kRanks histograms at h (every rank's copy of the
// same offsets), by warp 0, published to the CTA in slots[at], slots[at + 1]. Called by every thread
// after a cluster barrier that follows every rank's last count.
template <int kRanks, bool kSkew, class Cl>
SIMT_DEVICE void cluster_pivot(Cl& cl, unsigned* h, unsigned kk, unsigned& bin, unsigned& remain,
                               unsigned* slots, int at) {
  warp0_pivot(slots, at, bin, remain, [&] {
    constexpr int kSum = DSV4_FAULT_BF16_SPLIT_OWN_HIST ? 1 : kRanks;  // planted: its own alone
    const Vec16* hr[kSum];
    DSV4_IDX_UNROLL
    for (int q = 0; q < kSum; ++q)
      hr[q] = reinterpret_cast<const Vec16*>(kSum == 1 ? h : cl.map_shared_rank(h, q));
    find_pivot_by<kSkew>([&](int a, unsigned (&c)[8]) {  // a % 8 == 0: two 16-byte words a rank
      Vec16 v[kSum][2];
      DSV4_IDX_UNROLL
      for (int q = 0; q < kSum; ++q) {
        v[q][0] = hr[q][a / 4];
        v[q][1] = hr[q][a / 4 + 1];
      }
      DSV4_IDX_UNROLL
      for (int i = 0; i < 8; ++i) {
        c[i] = 0u;
        DSV4_IDX_UNROLL
        for (int q = 0; q < kSum; ++q) c[i] += v[q][i / 4].w[i % 4];
      }
    }, kk, bin, remain);
  });
}

// The residency the split kernels' registers are allocated for (64 a thread): the batch rule
// keeps them at <= 2 CTAs a SM (at 3, 40 registers, the 4-rank kernel spilled 28 bytes).
constexpr int kSplitCtasPerSm = 2;
// Grid B * kRanks, clusters of kRanks (one a row: row blockIdx.x / kRanks, rank = block rank).
template <int kRanks>
SIMT_KERNEL void SIMT_LAUNCH_BOUNDS(kThreads, kSplitCtasPerSm) topk_bf16_split_kernel(Params p) {
  static_assert(kRanks >= 2 && kVecsPerThread % kRanks == 0, "a whole number of vectors a thread");
  constexpr int kVpt = kVecsPerThread / kRanks;
  constexpr int kWords = 4 * kVpt;
  constexpr int kShare = kRowCapacity / kRanks;  // lanes of one rank
  constexpr bool kSkew = DSV4_BF16_HIST_SKEW != 0;
  SIMT_SHARED(Vec16, hist_v, [129]);  // [0,256) pass 1, [256,512) pass 2, [512] its dump slot
  SIMT_SHARED(unsigned, cursor, );    // packed census (gt << 16 | eq); rank 0's is the row's
  SIMT_SHARED(unsigned, pivots, [4]);
  SIMT_SHARED(int, tcache, [kTableCache]);
  unsigned* const hist = &hist_v[0].w[0];
  auto cl = simt_cg::this_cluster();
  const int tx = threadIdx.x;
  const int r = static_cast<int>(cl.block_rank());
  for (int i = tx; i < 4 * 129; i += kThreads) hist[i] = 0u;
  if (tx == 0) cursor = 0u;

  SIMT_PDL_WAIT();  // nothing global is touched before this (spec README §4 PDL)
  const int b = static_cast<int>(blockIdx.x) / kRanks;
  const int n = p.seq_lens[b];
  int* out = p.out + static_cast<long long>(b) * p.out_stride;
  const int* trow = p.W > 0 ? p.table + static_cast<long long>(b) * p.table_stride : p.table;
  const int k = p.k;
  const int t0 = r * kThreads + tx;  // this thread's first slot of a rank-strided output loop
  constexpr int kStep = kRanks * kThreads;
  // row error or trivial row (uniform over the cluster): no score read
  if (row_done_before_scores(p, trow, out, b, n, t0, kStep, r == 0 && tx == 0)) return;

  // ---- load: vector v of thread tx is the rank's vector tx + v * kThreads ----
  const uint16_t* row = p.scores + static_cast<long long>(b) * p.score_stride;
  const int lo_pos = r * kShare, hi_pos = n < lo_pos + kShare ? n : lo_pos + kShare;
  const long long col0 = lo_pos >> p.page_bits;
  const long long col_end = hi_pos > lo_pos ? (static_cast<long long>(hi_pos - 1) >> p.page_bits) + 1 : col0;
  const long long wcols = (col_end < p.W ? col_end : p.W) - col0;
  const int cache_cols = wcols > 0 ? static_cast<int>(wcols) : 0;
  const bool use_cache = DSV4_BF16_TABLE_PREFETCH && col_end - col0 <= kTableCache;
  int treg[kTableSlots];
  DSV4_IDX_UNROLL
  for (int i = 0; i < kTableSlots; ++i) {
    const int c = tx + i * kThreads;
    treg[i] = use_cache && c < cache_cols ? trow[col0 + c] : 0;
  }
  const auto first = [&](int v) { return lo_pos + (tx + v * kThreads) * kVecLanes; };
  const auto whole = [&](int v) {
    return first(v) + kVecLanes <= n || (DSV4_FAULT_BF16_READ_PAST_SEQLEN && first(v) < n);
  };
  Vec16 raw[kVpt];
  DSV4_IDX_UNROLL
  for (int v = 0; v < kVpt; ++v)
    if (whole(v)) raw[v] = *reinterpret_cast<const Vec16*>(row + first(v));
  uint32_t kw[kWords];
  uint32_t nan_probe = 0u;
  DSV4_IDX_UNROLL
  for (int v = 0; v < kVpt; ++v) {
    const int e0 = first(v);
    if (whole(v)) {
      DSV4_IDX_UNROLL
      for (int q = 0; q < 4; ++q) {
        kw[4 * v + q] = word_keys(raw[v].w[q]);
        nan_probe |= pair_nan_probe(raw[v].w[q]);
      }
    } else {  // the partial last vector, lane by lane (nothing at or past n), or none
      DSV4_IDX_UNROLL
      for (int q = 0; q < 4; ++q) {
        const int e = e0 + 2 * q;
        const uint32_t lo = e < n ? lane_key(row[e]) : 0u;
        const uint32_t hi = e + 1 < n ? lane_key(row[e + 1]) : 0u;
        kw[4 * v + q] = lo | (hi << 16);
      }
    }
  }
  if ((nan_probe & 0x80008000u) != 0u) {
    DSV4_IDX_UNROLL
    for (int q = 0; q < kWords; ++q) kw[q] = clear_nan_keys(kw[q]);
  }
  if (use_cache) {
    DSV4_IDX_UNROLL
    for (int i = 0; i < kTableSlots; ++i) {
      const int c = tx + i * kThreads;
      if (c < cache_cols) tcache[c] = treg[i];
    }
  }
  __syncthreads();  // histograms zeroed, table cache filled

  // ---- pass 1 (high byte of D; bins >= 128 at bin ^ 16 with kSkew), summed over the cluster ----
  DSV4_IDX_UNROLL
  for (int q = 0; q < kWords; ++q) {
    const uint32_t s = kSkew ? kw[q] ^ ((kw[q] >> 3) & 0x10001000u) : kw[q];
    atomicAdd(&hist[(s >> 8) & 0xFFu], 1u);
    atomicAdd(&hist[s >> 24], 1u);
  }
#if !DSV4_FAULT_BF16_NO_HIST_BARRIER  // planted: the pivot search reads histograms being built
  cl.sync();
#endif
  unsigned hi_bin, remain1;
  cluster_pivot<kRanks, kSkew>(cl, hist, static_cast<unsigned>(k), hi_bin, remain1, pivots, 0);

  // ---- pass 2: low byte of the lanes in the pivot's high bin (others: the dump slot) ----
  unsigned* const h2 = hist + 256;
  const unsigned hb = hi_bin << 8;
  DSV4_IDX_UNROLL
  for (int q = 0; q < kWords; ++q) {
    const uint32_t off = min_u16x2(kw[q] ^ (hb * 0x10001u), 0x01000100u) << 2;
    atomicAdd(reinterpret_cast<unsigned*>(reinterpret_cast<char*>(h2) + (off & 0xFFFFu)), 1u);
    atomicAdd(reinterpret_cast<unsigned*>(reinterpret_cast<char*>(h2) + (off >> 16)), 1u);
  }
  cl.sync();
  unsigned lo_bin, eq_total;
  cluster_pivot<kRanks, false>(cl, h2, remain1, lo_bin, eq_total, pivots, 2);
  const unsigned pivot = (hi_bin << 8) | lo_bin;  // 0: fewer than k lanes present

  // ---- census over the cluster (rank 0's cursor), each selected lane straight to its slot ----
  unsigned gt, eq;
  census_masks(kw, pivot, gt, eq);
  const unsigned excl = census_prefix((__popc(gt) << 16) | __popc(eq), cl.map_shared_rank(&cursor, 0));
  cl.barrier_arrive();  // this CTA's last access to another rank's shared memory is done
  const int* tc = use_cache ? &tcache[0] : nullptr;
  // lane l = v * 8 + j is element first(v) + j
  for_selected(gt, eq, excl, eq_total, [&](int pos, int l) {
    out[pos] = map_position(p, trow, tc, first(l >> 3) + (l & 7), b, col0);
  });
  const int num_staged = pivot != 0u ? k : k - static_cast<int>(eq_total);
  for (int t = num_staged + t0; t < k; t += kStep) out[t] = -1;
  SIMT_PDL_TRIGGER();
  cl.barrier_wait();  // no rank exits while another may still read its histograms or cursor
}

}  // namespace dsv4::ours::bf16
