// kernels/topk_v2/topk_v2_team.cuh -- the team that selects one row: one CTA (NR = 1) or one
// cluster of NR CTAs, and a cluster row's hand-offs between its ranks (select_row): the fold of
// every rank's coarse histogram into rank 0's, rank 0's threshold broadcast to every rank, and
// every rank's selected / staged lists (and digit counts) appended to rank 0's.
//
// Two spellings (DSV4_TOPK_MAILBOX, topk_v2_keys.cuh). 0: remote atomics and stores with a
// cluster.sync() after each hand-off. 1 / 2, the mailbox: a split cluster barrier opens the row
// (open() right after the row's clears, opened() before the first remote operation); it orders
// only rank 0's clears of its own shared memory against the other ranks' later remote writes
// (kMailbox 1: a relaxed arrive behind fence.release.sync_restrict::shared::cta.cluster; 2: a
// full release arrive). Each hand-off then is a set of remote st.async / red.async completing
// their bytes on the receiver's mbarrier, and the receiver waits on that mbarrier (acquire):
//   fold   rank r != 0: red.async of its nonzero bins into rank 0's, each warp one arrival on
//          rank 0's mb[kMbFold] expecting its bytes ((NR - 1) * kWarps arrivals a phase);
//   bcast  rank 0: one 16-byte st.async {t, above, hist[t], 0} into each rank's bcast, which
//          expects it (its thread 0 arrives on its own mb[kMbBcast] at open(), 1 arrival);
//   count  every rank: its list lengths (sel, tie) by one 8-byte st.async into every other
//          rank's cnts[r], which expects NR - 1 of them (its thread 0 arrives on its own
//          mb[kMbCount] at open(), 1 arrival); rank r's lists then go at the sums of the lengths
//          of the ranks below it, and rank 0's totals are the sums over all ranks;
//   pub    rank r != 0: its lists into rank 0's at those offsets by st.async, its digit counts
//          added by red.async; thread 0 arrives on rank 0's mb[kMbPub] expecting all of them
//          (NR - 1 arrivals). No rank touches another's counters: every remote operation is an
//          st.async / red.async that its receiver waits for (the earlier reservations by remote
//          atomics were not ordered before rank 0's writes of its counters: simt's race
//          detector, stop 50).
// Every barrier completes one phase a row: its parity is tm.parity() (rows opened, mod 2).
#pragma once
#include "kernels/topk_v2/topk_v2_block.cuh"

namespace dsv4::ours::topk {

enum MailboxBar : int { kMbFold, kMbPub, kMbBcast, kMbCount };

// One CTA (NR = 1) or one cluster of NR CTAs: barrier and access to rank 0's shared memory.
template <int NR>
struct Team {
  decltype(simt_cg::this_cluster()) cl = simt_cg::this_cluster();
  unsigned rows = 0;  // mailbox rows opened
  SIMT_DEVICE void sync() { cl.sync(); }
  SIMT_DEVICE int rank() { return static_cast<int>(cl.block_rank()); }
  SIMT_DEVICE Smem* at(Smem* p, int r) { return cl.map_shared_rank(p, r); }
  SIMT_DEVICE Smem* r0(Smem* p) { return at(p, 0); }
  SIMT_DEVICE unsigned parity() const { return rows & 1u; }
  // The mailbox row's opening barrier, arrived at after the row's clears (first row: thread 0
  // initialises the barriers; the fence orders that before the arrive).
  SIMT_DEVICE void open(Smem& sm) {
    const int r = rank();
    if (threadIdx.x == 0) {
      if (rows == 0) {
        simt::mbar_init(&sm.mb[kMbFold], r == 0 ? (NR - 1) * kWarps : 1);
        simt::mbar_init(&sm.mb[kMbPub], r == 0 ? NR - 1 : 1);
        simt::mbar_init(&sm.mb[kMbBcast], 1);
        simt::mbar_init(&sm.mb[kMbCount], 1);
        simt::mbar_init_fence();
      }
      if (r != 0) simt::mbar_arrive_tx(&sm.mb[kMbBcast], static_cast<unsigned>(r), 16);
      simt::mbar_arrive_tx(&sm.mb[kMbCount], static_cast<unsigned>(r), 8 * (NR - 1));
    }
    if (kMailbox == 2) cl.barrier_arrive();
    else simt::cluster_arrive_smem();
  }
  SIMT_DEVICE void opened() { simt::cluster_wait(); }
  SIMT_DEVICE void close() { ++rows; }
  // Before the kernel's exit, after its last row: a relaxed cluster barrier, so that no rank exits
  // while another may still reserve on its lists (the mbarriers already order that; the
  // sanitizer's lifetime check sees only cluster barriers). Orders no data.
  SIMT_DEVICE void finish() {
    if (kMailbox && rows > 0) {
      simt::cluster_arrive_relaxed();
      simt::cluster_wait();
    }
  }
};
template <>
struct Team<1> {
  SIMT_DEVICE void sync() { __syncthreads(); }
  SIMT_DEVICE int rank() { return 0; }
  SIMT_DEVICE Smem* at(Smem* p, int) { return p; }
  SIMT_DEVICE Smem* r0(Smem* p) { return p; }
  SIMT_DEVICE unsigned parity() const { return 0; }
  SIMT_DEVICE void open(Smem&) {}
  SIMT_DEVICE void opened() {}
  SIMT_DEVICE void close() {}
  SIMT_DEVICE void finish() {}
};

// Fold (after the histogram pass's block barrier): the ranks' bins [0, kBins) into rank 0's.
template <int NR, int kBins>
SIMT_DEVICE void fold_hist(Smem& sm, Team<NR>& tm) {
  const int rank = tm.rank();
  if (kMailbox == 0) {
    if (rank != 0) {
      Smem* r0 = tm.r0(&sm);
      for (int i = threadIdx.x; i < kBins; i += kThreads)
        if (sm.hist[i] != 0) atomicAdd(&r0->hist[i], sm.hist[i]);
    }
    tm.sync();
    return;
  }
  if (rank != 0) {
    unsigned n = 0;
    for (int i = threadIdx.x; i < kBins; i += kThreads) {
      const int v = sm.hist[i];
      if (v != 0) {
        simt::red_async_add(&sm.hist[i], 0, static_cast<unsigned>(v), &sm.mb[kMbFold]);
        ++n;
      }
    }
    n = __reduce_add_sync(0xFFFFFFFFu, n);
    if ((threadIdx.x & 31) == 0) simt::mbar_arrive_tx(&sm.mb[kMbFold], 0, 4 * n);
  } else if (!DSV4_FAULT_TOPK_MAILBOX_NO_FOLD_WAIT) {
    simt::mbar_wait(&sm.mb[kMbFold], tm.parity());
  }
}

// Broadcast: rank 0's (t, above, ht) to every rank (rank 0 passes its own, the others receive).
template <int NR>
SIMT_DEVICE void bcast_threshold(Smem& sm, Team<NR>& tm, int* t, int* above, int* ht) {
  const int rank = tm.rank();
  if (kMailbox == 0) {
    if (rank == 0 && static_cast<int>(threadIdx.x) < NR) {
      Smem* d = tm.at(&sm, static_cast<int>(threadIdx.x));
      d->bcast[0] = *t;
      d->bcast[1] = *above;
      d->bcast[2] = *ht;
    }
    tm.sync();
  } else if (rank == 0) {
    const unsigned d = threadIdx.x;
    if (d >= 1 && d < static_cast<unsigned>(NR))
      simt::st_async4(&sm.bcast[0], d, static_cast<unsigned>(*t), static_cast<unsigned>(*above),
                      static_cast<unsigned>(*ht), 0u, &sm.mb[kMbBcast]);
    return;
  } else {
    simt::mbar_wait(&sm.mb[kMbBcast], tm.parity());
  }
  *t = sm.bcast[0];
  *above = sm.bcast[1];
  *ht = sm.bcast[2];
}

// Publish (after the classification's block barrier): ranks != 0 append their sel (and tie)
// lists to rank 0's (0: on ranges reserved atomically; mailbox: at offsets summed from the
// exchanged counts); with `digits` (mailbox only: each rank counted its staged candidates' digits
// into its own hist[kDigit, kDigit + 256)) their digit counts too. Rank 0 ends with its lists
// complete (mailbox: its counters set to the totals, a block barrier after). Every rank calls it
// once a row.
template <int NR, int kDigit>
SIMT_DEVICE void publish(Smem& sm, Team<NR>& tm, bool with_ties, bool digits) {
  const int rank = tm.rank();
  if (kMailbox == 0) {
    if (rank != 0) {
      Smem* r0 = tm.r0(&sm);
      if (threadIdx.x == 0) {  // the two reservations from two warps: their round trips overlap
        const int ms = sm.sel_cnt < kMaxTopK ? sm.sel_cnt : kMaxTopK;
        sm.base_sel = ms > 0 ? atomicAdd(&r0->sel_cnt, ms) : 0;
        sm.sel_cnt = ms;
      } else if (threadIdx.x == 32) {
        const int mt = sm.tie_cnt < kTieStage ? sm.tie_cnt : kTieStage;
        sm.base_tie = with_ties && mt > 0 ? atomicAdd(&r0->tie_cnt, mt) : 0;
        sm.tie_cnt = with_ties ? mt : 0;
      }
      __syncthreads();
      for (int i = threadIdx.x; i < sm.sel_cnt; i += kThreads)
        if (sm.base_sel + i < kMaxTopK) r0->sel[sm.base_sel + i] = sm.sel[i];
      for (int i = threadIdx.x; i < sm.tie_cnt; i += kThreads)
        if (sm.base_tie + i < kTieStage) {
          r0->tie_key[sm.base_tie + i] = sm.tie_key[i];
          r0->tie_pos[sm.base_tie + i] = sm.tie_pos[i];
        }
    }
    tm.sync();
    return;
  }
  // The counts: every rank's (sel, tie) list lengths to every other rank's cnts[rank] (threads
  // d < NR, one st.async each; rank 0's raw, the others' clamped to their lists' capacity).
  static_assert(NR <= 16 && kThreads >= 32, "cnts[16]; warp 0 holds one rank's counts a lane");
  const int q = rank;
  int cs = 0, ct = 0;
  if (q != 0) {
    cs = sm.sel_cnt < kMaxTopK ? sm.sel_cnt : kMaxTopK;
    ct = with_ties ? (sm.tie_cnt < kTieStage ? sm.tie_cnt : kTieStage) : 0;
  } else if (threadIdx.x < 32) {
    cs = sm.sel_cnt, ct = sm.tie_cnt;  // rank 0: warp 0 reads them; lane 0 overwrites them below
  }
  if (threadIdx.x < static_cast<unsigned>(NR) && threadIdx.x != static_cast<unsigned>(q))
    simt::st_async2(&sm.cnts[q][0], threadIdx.x, static_cast<unsigned>(cs), static_cast<unsigned>(ct),
                    &sm.mb[kMbCount]);
  // Warp 0 sums them (lane p holds rank p's): rank q's lists go at the sums over ranks p < q.
  int pre_s = 0, pre_t = 0, tot_s = 0, tot_t = 0;
  if (threadIdx.x < 32) {
    if (!DSV4_FAULT_TOPK_MAILBOX_NO_COUNT_WAIT) simt::mbar_wait(&sm.mb[kMbCount], tm.parity());
    const int lane = static_cast<int>(threadIdx.x);
    const int vs = lane == q ? cs : lane < NR ? sm.cnts[lane][0] : 0;
    const int vt = lane == q ? ct : lane < NR ? sm.cnts[lane][1] : 0;
    const unsigned below = (1u << q) - 1u;  // lanes p < q (q < 16)
    pre_s = __reduce_add_sync(0xFFFFFFFFu, (below >> lane) & 1u ? vs : 0);
    pre_t = __reduce_add_sync(0xFFFFFFFFu, (below >> lane) & 1u ? vt : 0);
    tot_s = __reduce_add_sync(0xFFFFFFFFu, vs);
    tot_t = __reduce_add_sync(0xFFFFFFFFu, vt);
  }
  unsigned long long* bar = &sm.mb[kMbPub];
  if (q != 0) {
    if (threadIdx.x == 0) {
      sm.base_sel = pre_s;
      sm.base_tie = pre_t;
    }
    constexpr int kDigitSteps = (256 + kThreads - 1) / kThreads;  // 1 on the GPU's 1024 threads
    int nd = 0;  // nonzero digit counts (the block barrier also publishes the bases)
#pragma unroll
    for (int s = 0; s < kDigitSteps; ++s) {
      const int j = static_cast<int>(threadIdx.x) + s * kThreads;
      nd += __syncthreads_count(digits && j < 256 && sm.hist[kDigit + j] != 0);
    }
    const int bs = sm.base_sel, bt = sm.base_tie;
    const int ns = bs >= kMaxTopK ? 0 : (cs < kMaxTopK - bs ? cs : kMaxTopK - bs);
    const int nt = bt >= kTieStage ? 0 : (ct < kTieStage - bt ? ct : kTieStage - bt);
    if (threadIdx.x == 0) simt::mbar_arrive_tx(bar, 0, static_cast<unsigned>(4 * ns + 8 * nt + 4 * nd));
    for (int i = threadIdx.x; i < ns; i += kThreads)
      simt::st_async(&sm.sel[bs + i], 0, static_cast<unsigned>(sm.sel[i]), bar);
    for (int i = threadIdx.x; i < nt; i += kThreads) {
      simt::st_async(&sm.tie_key[bt + i], 0, sm.tie_key[i], bar);
      simt::st_async(&sm.tie_pos[bt + i], 0, static_cast<unsigned>(sm.tie_pos[i]), bar);
    }
    if (digits)
      for (int j = threadIdx.x; j < 256; j += kThreads)
        if (sm.hist[kDigit + j] != 0)
          simt::red_async_add(&sm.hist[kDigit + j], 0, static_cast<unsigned>(sm.hist[kDigit + j]), bar);
  } else {
    // A shuffle or reduction orders no memory: the __syncwarp orders warp 0's reads of the
    // counters (above) before lane 0's write (compute-sanitizer racecheck on the H100, stop 51;
    // a read by lane 0 alone is no cure, since nvcc may load in every lane and select).
    if (threadIdx.x < 32) __syncwarp();
    if (threadIdx.x == 0) {
      sm.sel_cnt = tot_s;
      sm.tie_cnt = tot_t;
    }
    simt::mbar_wait(bar, tm.parity());
    __syncthreads();
  }
  tm.close();
}

}  // namespace dsv4::ours::topk
