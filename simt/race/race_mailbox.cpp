// simt/race/race_mailbox.cpp -- the race detector's view of the cluster mailbox (race flavour):
//  * relaxed cluster arrives: kind 0 releases nothing, kind 1 only the arriving thread's accesses
//    to its own CTA's shared memory, full arrives (cg sync / barrier_arrive) everything. A plain
//    access is ordered before a later access by a thread of another block iff the accessor arrived
//    after it, with a kind covering it, on a phase the later thread has completed;
//  * st.async / red.async: issued = a write still in flight (conflicts with everything except
//    red vs atomic); applied at the phase completion = a write ordered before exactly the threads
//    that observed that phase: by returning from mbar_wait, or transitively through __syncthreads,
//    warp collectives and cluster barriers (per-thread observed phases per mbarrier, joined there).
// All of it depends only on program order and synchronisation, never on the schedule.
#include <algorithm>
#include <map>

#include "simt/race/race_internal.hpp"

namespace simt::detail {
namespace race {

namespace {
std::vector<unsigned> g_bar_rank;                 // mbarrier id -> owning cluster rank
std::vector<std::vector<uint32_t>> g_cl_released;  // cluster phase -> phases released into it

void join_into(std::vector<uint32_t>& dst, const std::vector<uint32_t>& src) {
  if (dst.size() < src.size()) dst.resize(src.size(), 0);
  for (size_t i = 0; i < src.size(); ++i) dst[i] = std::max(dst[i], src[i]);
}

uint32_t seen_of(const Thread* t, uint32_t id) {
  const std::vector<uint32_t>& s = g_order[t->index].seen;
  return id < s.size() ? s[id] : 0;
}

Acc site_acc(const Thread* t, Site s, bool atomic, AccKind kind, uint32_t bar, uint32_t phase) {
  return Acc{t->index + 1, bar, phase, t->vc[t->lane], reinterpret_cast<uintptr_t>(s.file), atomic, kind,
             static_cast<uint32_t>(s.line > 0 ? s.line : 1)};
}
}  // namespace

bool cluster_released(const Acc& p, const Thread* t, unsigned rank) {
  const ThreadOrder& o = g_order[p.tid1 - 1];
  if (!o.weak) return true;
  const size_t j = t->cl_waits - 1;  // the latest phase t completed
  if (j >= o.last_full.size()) return true;  // (cannot happen: every completed phase had its arrival)
  const bool own = thread_of(p.tid1)->block->rank == rank;
  return (own ? o.last_smem[j] : o.last_full[j]) >= static_cast<int32_t>(p.phase);
}

bool async_ordered(const Acc& p, const Thread* t, bool atomic) {
  if (p.atomic && atomic) return true;  // red.async vs atomics: both atomic
  if (p.kind == AccKind::kAsyncPending) return false;
  return seen_of(t, p.bar) >= p.phase;
}

void collective_seen(Warp& w, uint32_t mask) {
  std::vector<uint32_t> join;
  for (unsigned l = 0; l < 32; ++l)
    if ((mask >> l) & 1u) join_into(join, g_order[w.lanes[l]->index].seen);
  if (join.empty()) return;
  for (unsigned l = 0; l < 32; ++l)
    if ((mask >> l) & 1u) g_order[w.lanes[l]->index].seen = join;
}

}  // namespace race

using namespace race;

void race_cluster_begin() {
  g_order.assign(static_cast<size_t>(g_launch->tpb) * g_launch->bpc, ThreadOrder{});
  g_bar_rank.clear();
  g_cl_released.clear();
}

void race_cluster_arrive(const Thread* t, int kind) {
  ThreadOrder& o = g_order[t->index];
  const int32_t j = static_cast<int32_t>(t->cl_arrives);  // this arrival's index (= its phase)
  o.last_full.resize(static_cast<size_t>(j) + 1, -1);
  o.last_smem.resize(static_cast<size_t>(j) + 1, -1);
  const int32_t pf = j > 0 ? o.last_full[static_cast<size_t>(j) - 1] : -1;
  const int32_t ps = j > 0 ? o.last_smem[static_cast<size_t>(j) - 1] : -1;
  o.last_full[static_cast<size_t>(j)] = kind == 2 ? j : pf;
  o.last_smem[static_cast<size_t>(j)] = kind >= 1 ? j : ps;
  if (kind < 2) o.weak = true;
  if (kind == 0 || o.seen.empty()) return;
  // What this thread observed is released into the phase: everything for a full arrive, only
  // its own CTA's barriers (whose async writes landed in its own shared memory) for kind 1.
  const size_t ph = static_cast<size_t>(t->cl_arrive_gen);
  if (g_cl_released.size() <= ph) g_cl_released.resize(ph + 1);
  std::vector<uint32_t>& dst = g_cl_released[ph];
  if (dst.size() < o.seen.size()) dst.resize(o.seen.size(), 0);
  for (size_t i = 0; i < o.seen.size(); ++i)
    if (kind == 2 || (i < g_bar_rank.size() && g_bar_rank[i] == t->block->rank)) dst[i] = std::max(dst[i], o.seen[i]);
}

void race_cluster_waited(const Thread* t) {
  const size_t ph = static_cast<size_t>(t->cl_arrive_gen);
  if (ph < g_cl_released.size()) join_into(g_order[t->index].seen, g_cl_released[ph]);
}

void race_barrier_complete(Block& b) {
  std::vector<uint32_t> join;
  for (unsigned i = 0; i < b.nthreads; ++i)
    if (b.threads[i].state != TState::kDone) join_into(join, g_order[b.threads[i].index].seen);
  if (join.empty()) return;
  for (unsigned i = 0; i < b.nthreads; ++i)
    if (b.threads[i].state != TState::kDone) g_order[b.threads[i].index].seen = join;
}

void race_mbar_acquire(const Thread* t, int id, uint64_t completed) {
  const size_t i = static_cast<size_t>(id);
  if (g_bar_rank.size() <= i) g_bar_rank.resize(i + 1, ~0u);
  g_bar_rank[i] = t->block->rank;
  std::vector<uint32_t>& s = g_order[t->index].seen;
  if (s.size() <= i) s.resize(i + 1, 0);
  s[i] = std::max(s[i], static_cast<uint32_t>(completed));
}

void race_async_issue(const Thread* t, const char* dst, size_t n, bool add, int id, uint64_t phase, Site s) {
  size_t off0 = 0;
  unsigned rank = 0;
  const char* kind = "static";
  bool exited = false;
  Shadow* sh = shadow_of(dst, n, rank, kind, off0, exited);
  if (!sh || exited) return;  // (the mailbox already rejected exited targets)
  const Acc me = site_acc(t, s, add, AccKind::kAsyncPending, static_cast<uint32_t>(id), static_cast<uint32_t>(phase));
  // The write may land any time after the issue: it must be ordered after every earlier access.
  const Acc as_plain{me.tid1, static_cast<uint32_t>(t->block->bar_gen), t->cl_arrives, me.clk, me.pc, add,
                     AccKind::kPlain, me.line};
  for (size_t i = 0; i < n; ++i) {
    Shadow& x = sh[i];
    if (!ordered(x.w, t, add, rank)) race_report(x.w, true, t, true, as_plain, kind, off0 + i, rank);
    if (!ordered(x.r, t, add, rank)) race_report(x.r, false, t, true, as_plain, kind, off0 + i, rank);
    if (!ordered(x.r2, t, add, rank)) race_report(x.r2, false, t, true, as_plain, kind, off0 + i, rank);
    if (x.a.tid1 && !async_ordered(x.a, t, add)) race_report(x.a, true, t, true, as_plain, kind, off0 + i, rank);
    x.a = me;  // the plain history stays: a thread ordered after this write is not ordered after it
  }
}

void race_async_apply(const char* dst, size_t n, int id, uint64_t phase) {
  size_t off0 = 0;
  unsigned rank = 0;
  const char* kind = "static";
  bool exited = false;
  Shadow* sh = shadow_of(dst, n, rank, kind, off0, exited);
  if (!sh) return;
  for (size_t i = 0; i < n; ++i) {
    Acc& w = sh[i].a;
    if (w.kind == AccKind::kAsyncPending && w.bar == static_cast<uint32_t>(id) && w.phase == phase)
      w.kind = AccKind::kAsyncApplied;
  }
}

void race_dsmem_atomic(const Thread* t, const void* p, Site s) {
  Thread* self = const_cast<Thread*>(t);
  const Acc me{t->index + 1, static_cast<uint32_t>(t->block->bar_gen), t->cl_arrives, t->vc[t->lane],
               reinterpret_cast<uintptr_t>(s.file), true, AccKind::kPlain, static_cast<uint32_t>(s.line > 0 ? s.line : 1)};
  check_access(self, static_cast<const char*>(p), 4, true, true, me, false);
}

}  // namespace simt::detail
