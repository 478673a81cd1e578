// kernels/topk_v2/topk_v2_select.cuh -- the exact per-row selection (spec topk_v2.md §4) for one
// CTA (NR = 1, 12-bit bins) or one cluster of NR CTAs (10-bit bins, histograms folded into rank 0
// through distributed shared memory). No cap: the threshold bin is resolved by a staged radix
// select when hist[t] <= tie capacity, else by radix refinement over the row itself (§4.7).
#pragma once
#include "kernels/topk_v2/topk_v2_staged.cuh"
#include "kernels/topk_v2/topk_v2_team.cuh"

namespace dsv4::ours::topk {

// The row's lists: selected positions (sel) and staged threshold-bin candidates (ties).
SIMT_DEVICE void push_sel(Smem& sm, int pos) {
  const int i = atomicAdd(&sm.sel_cnt, 1);
  if (i < kMaxTopK) sm.sel[i] = pos;
}

// Stages one threshold-bin candidate (key32, position) for the exact ranking of step 5; with
// `dh`, also counts its digit there (rank 0's digit histogram, remote on the other ranks).
SIMT_DEVICE void push_tie(Smem& sm, int* dh, const TieDigit& dg, int pos, float x) {
  const int i = atomicAdd(&sm.tie_cnt, 1);
  if (i < kTieStage) {
    const unsigned k = key32(x);
    sm.tie_key[i] = k;
    sm.tie_pos[i] = pos;
    if (dh != nullptr) atomicAdd(&dh[dg(k)], 1);
  }
}

// push_sel of the lanes in each thread's `mask` (a masked source's bits): one reservation per
// warp after a warp scan of the counts. Every lane of the warp calls it.
template <class Src>
SIMT_DEVICE void push_sel_mask(Smem& sm, const Src& src, unsigned mask) {
  const int lane = threadIdx.x & 31;
  const int cnt = __popc(mask);
  int incl = cnt;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const int y = __shfl_up_sync(0xFFFFFFFFu, incl, d);
    if (lane >= d) incl += y;
  }
  int base = 0;
  if (lane == 31 && incl > 0) base = atomicAdd(&sm.sel_cnt, incl);
  int i = __shfl_sync(0xFFFFFFFFu, base, 31) + incl - cnt;
  for (unsigned m = mask; m != 0; m &= m - 1, ++i)
    if (i < kMaxTopK) sm.sel[i] = src.pos_of(__ffs(static_cast<int>(m)) - 1);
}

// MSB-first radix select of the r-th largest key32 among the candidates of `ce` (4 rounds of
// 8-bit digits). multi = the candidates are spread over the ranks of a cluster (fold into rank
// 0's digit histograms). Result: candidates with (key & mask) > prefix are selected, and `rem`
// of those with (key & mask) == prefix. Decisions are uniform over the team.
template <int NR, class CandSrc>
SIMT_DEVICE void radix_select(const CandSrc& ce, int r, bool multi, Smem& sm, Team<NR>& tm,
                              unsigned* prefix_out, unsigned* mask_out, int* rem_out) {
  const bool remote = NR > 1 && multi && tm.rank() != 0;
  Smem* r0 = multi ? tm.r0(&sm) : &sm;
  if (remote) {  // own coarse histogram is dead: reuse it for the local digit counts
    for (int i = threadIdx.x; i < 4 * 256; i += kThreads) sm.hist[i] = 0;
    __syncthreads();
  }
  unsigned prefix = 0, mask = 0;
  int rem = r;
  for (int round = 0; round < 4; ++round) {
    const int shift = 24 - 8 * round;
    int* cnt = remote ? &sm.hist[round * 256] : sm.rh[round];
    const unsigned pf = prefix, mk = mask;
    ce.each([&](unsigned k, int) {
      if ((k & mk) == pf) atomicAdd(&cnt[(k >> shift) & 255u], 1);
    });
    __syncthreads();
    if (NR > 1 && multi) {
      if (remote)
        for (int j = threadIdx.x; j < 256; j += kThreads)
          if (cnt[j] != 0) atomicAdd(&r0->rh[round][j], cnt[j]);
      tm.sync();
    }
    const int* g = r0->rh[round];
    int digit = 0, above = 0;
    find_threshold<256>(g, rem, sm, &digit, &above);
    rem -= above;
    prefix |= static_cast<unsigned>(digit) << shift;
    mask |= 255u << shift;
    if (g[digit] <= rem) break;  // every remaining match is selected: stop early
  }
  *prefix_out = prefix;
  *mask_out = mask;
  *rem_out = rem;
}

// Emits the radix-select winners into the caller's own sel list; equal keys take tickets on
// rank 0's (multi) or the own (single) eq_taken counter.
template <class CandSrc>
SIMT_DEVICE void emit_selected(const CandSrc& ce, unsigned prefix, unsigned mask, int rem,
                               Smem& sm, int* eq_ctr) {
  ce.each([&](unsigned k, int pos) {
    const unsigned m = k & mask;
    if (m > prefix) push_sel(sm, pos);
    else if (m == prefix && atomicAdd(eq_ctr, 1) < rem) push_sel(sm, pos);
  });
}

// All-pairs ranking of few staged candidates (<= kPairRankMax <= kThreads, no barrier): candidate
// i's rank = #(larger key32) + #(equal key32 staged before it), a strict total order, so exactly
// the r candidates of rank < r are selected (bit-identical values: any choice). One thread per
// candidate; kLanes: g lanes of one warp per candidate (g = the largest power of two <= 32 with
// g * cnt <= kThreads), each comparing a 1/g share of the list, a butterfly summing the shares
// (the serial chain is cnt / g compares). Measured on the H200 (docs/performance.md, fifth pass):
// kLanes pays on cluster rows (10-bit bins: ~100-250 candidates), one thread on single-CTA rows.
// The candidates are (key[i], pos[i]), i < cnt: the staged list or rank_staged's pivot-digit list.
template <bool kLanes>
SIMT_DEVICE void rank_pairs(Smem& sm, const unsigned* key, const int* pos, int cnt, int r) {
  if (!kLanes) {
    const int i = threadIdx.x;
    if (i >= cnt) return;
    const unsigned ki = key[i];
    int rank = 0;
    for (int j = 0; j < cnt; ++j) {
      const unsigned kj = key[j];
      rank += (kj > ki || (kj == ki && j < i)) ? 1 : 0;
    }
    if (rank < r) push_sel(sm, pos[i]);
    return;
  }
  int g = 32;
  while (g > 1 && g * cnt > kThreads) g >>= 1;
  if ((static_cast<int>(threadIdx.x) & ~31) / g >= cnt) return;  // the whole warp is past cnt
  const int i = static_cast<int>(threadIdx.x) / g, part = static_cast<int>(threadIdx.x) % g;
  const bool live = i < cnt;
  const unsigned ki = live ? key[i] : 0u;
  int rank = 0;
  if (live)
    for (int j = part; j < cnt; j += g) {
      const unsigned kj = key[j];
      rank += (kj > ki || (kj == ki && j < i)) ? 1 : 0;
    }
  for (int d = g >> 1; d > 0; d >>= 1) rank += __shfl_xor_sync(0xFFFFFFFFu, rank, d);
  if (live && part == 0 && rank < r) push_sel(sm, pos[i]);
}

// Every warp alone (no barrier; the same answer in each) finds the digit dt of the r-th largest
// staged candidate in the digit histogram dh[0, 256): above(dt) < r <= above(dt) + dh[dt], with
// above(d) = the candidates of digits > d. Returns dt, sets *above_out. (r beyond the total, only
// under a planted fault: dt = 0 and above = the total.) The bf16 kernel's find_pivot
// (topk_bf16_small_keys.cuh) is the same search; one shared helper made these cluster rows
// 0.1-0.3 us slower on the H200 (docs/performance.md, tenth pass), so each keeps its own.
SIMT_DEVICE int find_digit(const int* dh, int r, int* above_out) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  int v[8], s = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    v[j] = dh[lane * 8 + j];
    s += v[j];
  }
  const int x = warp_suffix(s, lane);  // inclusive suffix sum over the lanes >= lane
  const int excl = x - s;
  const unsigned hit = __ballot_sync(0xFFFFFFFFu, excl < r && r <= x);
  const int src = hit != 0u ? __ffs(static_cast<int>(hit)) - 1 : 0;
  int dt = lane * 8, acc = excl;
#pragma unroll
  for (int j = 7; j >= 0; --j) {
    if (acc + v[j] >= r) { dt = lane * 8 + j; break; }
    acc += v[j];
  }
  *above_out = __shfl_sync(0xFFFFFFFFu, acc, src);
  return __shfl_sync(0xFFFFFFFFu, dt, src);
}

// The digit histogram of a cluster row's staged candidates: 256 counters in rank 0's coarse
// histogram array past the 10-bit bins (unused by cluster rows), cleared with the bins.
constexpr int kDigitAt = 1 << kBitsCluster;

// Exact ranking of the `staged` candidates of the threshold bin on rank 0 of a cluster, of which
// the r largest are selected, from their digit histogram (complete: every candidate was counted
// before the caller's last barrier). Candidates of digits above the pivot digit dt are selected;
// those of dt all when they are all needed, else the r - above(dt) largest of them by all-pairs
// ranking of their own list (in the dead coarse bins [0, 2 kPairRankMax)). Returns false, having
// selected nothing, when dt holds more than kPairRankMax candidates (heavy exact ties): the
// caller ranks the whole list. Decisions are uniform over the block; ends without a barrier.
template <bool kLanes>
SIMT_DEVICE bool rank_staged(Smem& sm, int staged, int r, const TieDigit& dg) {
  static_assert(2 * kPairRankMax <= kDigitAt, "the pivot digit's list stays below the digit counts");
  const int* dh = sm.hist + kDigitAt;
  int above = 0;
  const int dt = find_digit(dh, r, &above);
  const int cnt = dh[dt], r2 = r - above;
  if (cnt > kPairRankMax) return false;
  unsigned* sub_key = reinterpret_cast<unsigned*>(sm.hist);
  int* sub_pos = sm.hist + kPairRankMax;
  for (int i = threadIdx.x; i < staged; i += kThreads) {
    const unsigned k = sm.tie_key[i];
    const int d = dg(k);
    if (d > dt || (d == dt && (r2 >= cnt || DSV4_FAULT_TOPK_DIGIT_PIVOT_ALL))) {
      push_sel(sm, sm.tie_pos[i]);
    } else if (d == dt) {
      const int j = atomicAdd(&sm.sub_cnt, 1);
      if (j < kPairRankMax) { sub_key[j] = k; sub_pos[j] = sm.tie_pos[i]; }
    }
  }
  if (r2 >= cnt) return true;
  __syncthreads();
  rank_pairs<kLanes>(sm, sub_key, sub_pos, sm.sub_cnt < kPairRankMax ? sm.sub_cnt : kPairRankMax, r2);
  return true;
}

// Selects row b (window w, elements from `src`) and, on rank 0, writes its K output slots.
// W = bin width. All threads of all NR ranks call it with the same arguments.
template <int NR, int W, class Src>
SIMT_DEVICE void select_row(const Args& a, int b, const RowWin& w, Src& src, Smem& sm,
                            Team<NR>& tm) {
  constexpr bool kStaged = requires { Src::kStaged; };
  constexpr int kBins = 1 << W, kTop = kBins - 1;
  constexpr bool kDigit = kDigitRank && NR > 1;               // rank_staged on cluster rows
  constexpr int kClear = kDigit ? kDigitAt + 256 : kBins;     // the bins and the digit counts
  static_assert(!kDigit || kBins == kDigitAt, "the digit counts follow the 10-bit bins");
  const int rank = tm.rank();
  for (int i = threadIdx.x; i < kClear; i += kThreads) sm.hist[i] = 0;
  for (int i = threadIdx.x; i < 4 * 256; i += kThreads) (&sm.rh[0][0])[i] = 0;
  if (threadIdx.x == 0) {
    sm.sel_cnt = 0; sm.tie_cnt = 0; sm.eq_taken = 0; sm.stage_cnt = 0;
    if (kDigit) sm.sub_cnt = 0;
  }
  if (NR > 1 && kMailbox) tm.open(sm);  // after the clears: they are rank 0's before any remote write
  __syncthreads();
  // 1. coarse histogram (every lane, padding included: padding is NaN -> top bin)
  if constexpr (kStaged) src.template hist_pass<W>(sm, a);
  else src.each_vec([&](int, const float (&x)[4]) { hist_vec<W>(sm, x); });
  __syncthreads();
  if constexpr (kStaged) src.template settle<W>(sm);  // the stage's rest into the histogram
  tl_mark(a, kTlHist);
  if (DSV4_TOPK_ABLATE == 2) return;
  if (NR > 1) {
    if (kMailbox) tm.opened();
    else tm.sync();
  }
  // rank 0's shared memory, mapped only after a cluster barrier (the mailbox maps it only to
  // refine: its hand-offs name rank 0 by rank)
  Smem* r0 = kMailbox && NR > 1 ? &sm : tm.r0(&sm);
  if (NR > 1) {
    fold_hist<NR, kBins>(sm, tm);
    tl_mark(a, kTlFold);
    if (DSV4_TOPK_ABLATE == 6) return;
  }
  // 2. threshold bin, searched in one CTA's shared memory: a cluster's rank 0 searches the folded
  // histogram and hands (t, above, hist[t]) to every rank (all ranks reading rank 0's histogram
  // remotely cost ~2 us on the H200: docs/performance.md, fifth pass)
  int t = -1, above = 0, r = 0, ht = 0;
  if (NR == 1) {
    const auto search = [&] {
      const int* gh = r0->hist;
      const int nv = w.nvec * 4 - gh[kTop];  // non-NaN lanes
      if (nv > a.K) {
        find_threshold<kTop>(gh, a.K, sm, &t, &above);
        r = a.K - above;
        ht = gh[t];
      }
    };
    search();
    if constexpr (kStaged) {
      if (src.needs_recount(t)) {  // a partial histogram's search below the guess bin
        src.template recount<W>(sm);
        t = -1, above = 0, r = 0, ht = 0;
        search();
      }
    }
  } else {
    if (rank == 0 && w.nvec * 4 - sm.hist[kTop] > a.K) {
      find_threshold<kTop>(sm.hist, a.K, sm, &t, &above);
      ht = sm.hist[t];
    }
    bcast_threshold<NR>(sm, tm, &t, &above, &ht);
    if (t >= 0) r = a.K - above;
  }
  if constexpr (kStaged) src.decide(sm, t);
  tl_mark(a, kTlThreshold);
  if (DSV4_TOPK_ABLATE == 3) return;
  const bool take_all = t < 0 || r >= ht;
  const bool stage = !take_all && (DSV4_FAULT_TOPK_TIE_CAP_2048 || ht <= a.tie_cap);
  // many staged candidates of a cluster row: their digits are counted into rank 0 (rank_staged)
  const bool use_digit = kDigit && stage && ht > kDigitRankMin;
  const TieDigit dg = use_digit ? TieDigit(t, W) : TieDigit();
  int* const dh = use_digit ? r0->hist + kDigitAt : nullptr;  // mailbox: each rank's own, published
  // 3. classify by recomputed bin: ABOVE (and all candidates when they all fit) -> sel
  // (each row source says whether it is classified by keys, Src::kKeyClassified)
  constexpr bool kByKey = !DSV4_FAULT_TOPK_LB_NO_ULP && !DSV4_FAULT_TOPK_NEGZERO_ABOVE && Src::kKeyClassified;
  const KeyClassifier kc(kByKey ? t : -1, W);
  if constexpr (requires { requires Src::kMasked; }) {  // rows in shared memory: bit masks
    // the prefilter bound: none when every non-NaN element is taken (t < 0) and under the planted
    // boundary faults, whose classifier is not monotone in key order
    constexpr bool kPrefilter = !DSV4_FAULT_TOPK_LB_NO_ULP && !DSV4_FAULT_TOPK_NEGZERO_ABOVE;
    const auto cls = [&](float x) { return kByKey ? kc(x) : classify(x, coarse_bin(x, W), t, W); };
    unsigned above = 0, cand = 0;
    src.masks(cls, kPrefilter && t >= 0 ? bin_key_floor(t, W) : 0u, &above, &cand);
    tl_mark(a, kTlMasked);
    push_sel_mask(sm, src, take_all ? (above | cand) : above);
    tl_mark(a, kTlSelPushed);
    if (stage && cand != 0) src.each_in(cand, [&](int pos, float x) { push_tie(sm, dh, dg, pos, x); });
  } else {
    src.each([&](int pos, float x) {
      const int c = kByKey ? kc(x) : classify(x, coarse_bin(x, W), t, W);
      if (c == kAbove || (c == kCand && take_all)) {
        push_sel(sm, pos);
      } else if (c == kCand && stage) {
        push_tie(sm, dh, dg, pos, x);
      }
    });
  }
  __syncthreads();
  tl_mark(a, kTlClassified);
  if (DSV4_TOPK_ABLATE == 4) return;
  // 4. threshold bin too large to stage: exact radix refinement over the row, all ranks
  if (!take_all && !stage) {
    const BinSrc<Src, W> bins{&src, t};
    unsigned prefix = 0, mask = 0;
    int rem = 0;
    radix_select<NR>(bins, r, true, sm, tm, &prefix, &mask, &rem);
    emit_selected(bins, prefix, mask, rem, sm, &(kMailbox && NR > 1 ? tm.r0(&sm) : r0)->eq_taken);
    if (NR > 1 && kMailbox) tm.sync();  // rank 0's mapping ends here, the lists are the ranks' own
    else __syncthreads();
    tl_mark(a, kTlRefined);
  }
  if (NR > 1) {
    publish<NR, kDigitAt>(sm, tm, stage, use_digit);
    tl_mark(a, kTlPublished);
    if (rank != 0 || DSV4_TOPK_ABLATE == 7) return;
  }
  // 5. staged candidates: rank 0 alone ranks them exactly (many on a cluster row: by their digit;
  // few: all-pairs, else radix select)
  const int staged = sm.tie_cnt < kTieStage ? sm.tie_cnt : kTieStage;
  if (use_digit && rank_staged<(NR > 1)>(sm, staged, r, dg)) {
    __syncthreads();
  } else if (stage && staged <= kPairRankMax) {
    rank_pairs<(NR > 1) || DSV4_TOPK_PAIR_LANES_SINGLE>(sm, sm.tie_key, sm.tie_pos, staged, r);
    __syncthreads();
  } else if (stage) {
    const TieSrc ties{&sm, staged};
    Team<1> self;
    unsigned prefix = 0, mask = 0;
    int rem = 0;
    radix_select<1>(ties, r, false, sm, self, &prefix, &mask, &rem);
    emit_selected(ties, prefix, mask, rem, sm, &sm.eq_taken);
    __syncthreads();
  }
  tl_mark(a, kTlRanked);
  if (DSV4_TOPK_ABLATE == 5) return;
  write_row(a, b, w, sm.sel, sm.sel_cnt < kMaxTopK ? sm.sel_cnt : kMaxTopK);
  tl_mark(a, kTlWritten);
}

}  // namespace dsv4::ours::topk
