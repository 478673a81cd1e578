// simt/src/mailbox.cpp -- the sm_90 cluster mailbox on the emulator: mbarriers with transaction
// counts (state in a per-cluster side table keyed by (cluster rank, shared-memory offset), not in
// the 8 bytes), st.async / red.async writes buffered with their barrier and applied in issue
// order when its phase completes (so a reader that skips mbar_wait sees stale data on every
// schedule), dsmem_atomic_add, and the relaxed cluster arrives. Contract: simt/portable.h;
// semantics and checks: docs/simt.md, "Cluster mailbox".
#include <cstring>
#include <deque>
#include <map>
#include <tuple>

#include "simt/host/mailbox.hpp"
#include "simt/src/internal.hpp"

namespace simt::detail {

namespace {

constexpr unsigned kMaxCount = (1u << 20) - 1;
constexpr int64_t kMaxTx = (1 << 20) - 1;

struct AsyncWrite {
  char* dst;
  unsigned v[4];
  int n;  // words
  bool add;
};

struct MBar {
  int id = 0;
  unsigned rank = 0;  // owning block's cluster rank
  bool dyn = false;   // in dynamic (else static) shared memory
  uint32_t off = 0;
  unsigned count = 0, pending = 0;
  int64_t tx = 0;         // transaction bytes still expected (negative: delivered before expected)
  uint64_t phase = 0;     // completed phases since the init
  bool touched = false;   // arrivals or bytes counted in the current phase
  const Thread* init_thread = nullptr;
  uint32_t init_arrives = 0;  // init thread's cluster arrivals at the init
  uint64_t init_bar_gen = 0;  // owning block's __syncthreads generation at the init
  bool fenced = false;
  uint32_t fence_arrives = 0;
  Site init_site{nullptr, 0};
  std::vector<AsyncWrite> writes;
};

using Key = std::tuple<unsigned, bool, uint32_t>;
std::deque<MBar> g_bars;          // by id (one entry per init)
std::map<Key, int> g_current;     // (rank, dyn, offset) -> id of the latest init

std::string block_str(const Block& b) {
  return "block (" + std::to_string(b.idx.x) + "," + std::to_string(b.idx.y) + "," + std::to_string(b.idx.z) +
         ") [cluster rank " + std::to_string(b.rank) + "]";
}

std::string plural(int64_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

std::string bar_str(const MBar& m, const char* state = "") {
  const Block& b = g_launch->blocks[m.rank];
  return "mbarrier " + shared_slot_name(m.dyn, m.off) + " (" + (m.dyn ? "dynamic" : "static") +
         " shared offset " + std::to_string(m.off) + ") of " + block_str(b) + ", phase " +
         std::to_string(m.phase) + state + ": " + plural(m.pending, "arrival") + " and " +
         plural(m.tx, "transaction byte") + " still pending";
}

// Offset of p (plus `bytes` after it) in the shared memory of the caller's block.
void locate(const Thread* t, const void* p, size_t bytes, size_t align, const char* what, Site s, bool& dyn,
            uint32_t& off) {
  const char* c = static_cast<const char*>(p);
  const Block& me = *t->block;
  if (c >= me.arena && c + bytes <= me.arena + kArenaBytes) {
    dyn = false;
    off = static_cast<uint32_t>(c - me.arena);
  } else if (me.dyn && c >= me.dyn && c + bytes <= me.dyn + me.dyn_size) {
    dyn = true;
    off = static_cast<uint32_t>(c - me.dyn);
  } else {
    fail(std::string(what) + " on a non-shared address",
         who(t) + " passed a pointer that is not in its block's shared memory (" + std::to_string(bytes) +
             " bytes) at " + site_str(s));
  }
  if (!dyn && !shared_slot_covers(off, bytes))
    fail(std::string(what) + " outside any SIMT_SHARED variable",
         who(t) + " passed static shared offset " + std::to_string(off) + " (" + std::to_string(bytes) +
             " bytes), which is not inside one SIMT_SHARED variable, at " + site_str(s));
  if (off % align)
    fail(std::string(what) + " on a misaligned address",
         who(t) + " passed shared offset " + std::to_string(off) + ", not " + std::to_string(align) +
             "-byte aligned, at " + site_str(s));
}

// Checks a (possibly remote) mailbox operation on cluster rank `rank` and returns that block.
Block& peer_of(const Thread* t, unsigned rank, const char* what, Site s) {
  Launch& L = *g_launch;
  if (rank >= L.bpc)
    fail(std::string(what) + " rank out of range",
         who(t) + " named rank " + std::to_string(rank) + " of a " + std::to_string(L.bpc) +
             "-block cluster at " + site_str(s));
  Block& peer = L.blocks[rank];
  if (&peer == t->block) return peer;
  if (peer.exited)
    fail("cluster shared-memory use after exit",
         who(t) + " " + what + " targets " + block_str(peer) + ", which has already exited, at " + site_str(s));
  if (g_dsmem_sync_check && t->cl_waits == 0)
    fail("DSMEM access before cluster.sync",
         who(t) + " " + what + " targets " + block_str(peer) + " at " + site_str(s) +
             " before completing any cluster barrier: the peer block may not have started (or initialised it)");
  return peer;
}

// The barrier at (rank, offset of bar in the caller's block), checked for use by thread t.
MBar& use_bar(const Thread* t, unsigned rank, const unsigned long long* bar, const char* what, Site s) {
  bool dyn = false;
  uint32_t off = 0;
  locate(t, bar, 8, 8, what, s, dyn, off);
  auto it = g_current.find(Key{rank, dyn, off});
  if (it == g_current.end())
    fail("mbarrier not initialised",
         who(t) + " " + what + " uses the mbarrier at " + (dyn ? "dynamic" : "static") + " shared offset " +
             std::to_string(off) + " (" + shared_slot_name(dyn, off) + ") of " +
             block_str(g_launch->blocks[rank]) + ", which no mbar_init initialised, at " + site_str(s));
  MBar& m = g_bars[static_cast<size_t>(it->second)];
  if (t == m.init_thread) return m;
  const bool same_block = t->block->rank == m.rank;
  const bool cluster_after_init = t->cl_waits > m.init_arrives;
  const bool block_after_init = same_block && t->block->bar_gen > m.init_bar_gen;
  if (!cluster_after_init && !block_after_init)
    fail("mbarrier used before its initialisation is visible",
         who(t) + " " + what + " uses " + bar_str(m) + " at " + site_str(s) + ", initialised by " +
             who(m.init_thread) + " at " + site_str(m.init_site) + " with no " +
             (same_block ? "__syncthreads or " : "") + "completed cluster barrier since the init");
  if (!same_block && !(m.fenced && t->cl_waits > m.fence_arrives))
    fail("mbarrier used remotely before mbar_init_fence",
         who(t) + " " + what + " uses " + bar_str(m) + " at " + site_str(s) + ": " + who(m.init_thread) +
             " initialised it at " + site_str(m.init_site) +
             (m.fenced ? " and fenced after the cluster barrier this thread completed"
                       : " without mbar_init_fence()") +
             " (fence.mbarrier_init, then a cluster barrier, before other ranks use it)");
  return m;
}

void complete_if_done(MBar& m) {
  if (m.pending != 0 || m.tx != 0) return;
  for (const AsyncWrite& w : m.writes) {
    if (w.add) {
      unsigned old;
      std::memcpy(&old, w.dst, 4);
      old += w.v[0];
      std::memcpy(w.dst, &old, 4);
    } else {
      std::memcpy(w.dst, w.v, 4 * static_cast<size_t>(w.n));
    }
    if (g_race_on) race_async_apply(w.dst, 4 * static_cast<size_t>(w.n), m.id, m.phase + 1);
  }
  m.writes.clear();
  ++m.phase;
  m.pending = m.count;
  m.touched = false;
  Block& b = g_launch->blocks[m.rank];
  for (unsigned i = 0; i < b.nthreads; ++i) {
    Thread& w = b.threads[i];
    if (w.state == TState::kBlocked && w.wait == Wait::kMbar && w.mbar_id == m.id) wake(&w);
  }
}

void add_tx(const Thread* t, MBar& m, int64_t delta, const char* what, Site s) {
  m.tx += delta;
  m.touched = true;
  if (m.tx > kMaxTx || m.tx < -kMaxTx)
    fail("mbarrier transaction count out of range",
         who(t) + " " + what + " at " + site_str(s) + " leaves " + bar_str(m) +
             " (the tx-count must stay within +-(2^20-1))");
}

}  // namespace

void mailbox_cluster_begin() {
  g_bars.clear();
  g_current.clear();
  if (g_race_on) race_cluster_begin();
}

void mbar_init(unsigned long long* bar, unsigned count, Site s) {
  Thread* t = cur_thread();
  bool dyn = false;
  uint32_t off = 0;
  locate(t, bar, 8, 8, "mbar_init", s, dyn, off);
  if (count == 0 || count > kMaxCount)
    fail("mbar_init count out of range",
         who(t) + " initialised an mbarrier with count " + std::to_string(count) + " (1.." +
             std::to_string(kMaxCount) + ") at " + site_str(s));
  const Key k{t->block->rank, dyn, off};
  auto it = g_current.find(k);
  if (it != g_current.end()) {
    const MBar& old = g_bars[static_cast<size_t>(it->second)];
    if (old.touched || !old.writes.empty())
      fail("mbarrier re-initialised during a phase",
           who(t) + " re-initialised " + bar_str(old) + " at " + site_str(s));
  }
  MBar m;
  m.id = static_cast<int>(g_bars.size());
  m.rank = t->block->rank;
  m.dyn = dyn;
  m.off = off;
  m.count = m.pending = count;
  m.init_thread = t;
  m.init_arrives = t->cl_arrives;
  m.init_bar_gen = t->block->bar_gen;
  m.init_site = s;
  g_bars.push_back(std::move(m));
  g_current[k] = g_bars.back().id;
}

void mbar_init_fence(Site) {
  Thread* t = cur_thread();
  for (MBar& m : g_bars)
    if (m.init_thread == t && !m.fenced) {
      m.fenced = true;
      m.fence_arrives = t->cl_arrives;
    }
}

void mbar_arrive_tx(unsigned long long* bar, unsigned rank, unsigned tx, Site s) {
  Thread* t = cur_thread();
  maybe_yield();
  peer_of(t, rank, "mbar_arrive_tx", s);
  MBar& m = use_bar(t, rank, bar, "mbar_arrive_tx", s);
  if (m.pending == 0)
    fail("mbarrier arrival overflow",
         who(t) + " arrived at " + bar_str(m) + " at " + site_str(s) + " but all " +
             plural(m.count, "expected arrival") + " of this phase are in (more arrivals than its count)");
  --m.pending;
  add_tx(t, m, static_cast<int64_t>(tx), "mbar_arrive_tx", s);
  complete_if_done(m);
}

void mbar_wait(unsigned long long* bar, unsigned parity, Site s) {
  Thread* t = cur_thread();
  const char* c = reinterpret_cast<const char*>(bar);
  const Block& me = *t->block;
  if (!(c >= me.arena && c < me.arena + kArenaBytes) && !(me.dyn && c >= me.dyn && c < me.dyn + me.dyn_size))
    fail("mbar_wait on a barrier outside the own block",
         who(t) + " waits on an address that is not in its own block's shared memory at " + site_str(s) +
             " (a thread can only wait on its own CTA's mbarrier)");
  MBar& m = use_bar(t, me.rank, bar, "mbar_wait", s);
  const uint64_t waiting = m.phase;
  if ((m.phase & 1) == (parity & 1)) {
    t->mbar_id = m.id;
    t->mbar_phase = waiting;
    block_current(Wait::kMbar, s);
    t->mbar_id = -1;
    if (g_race_on) race_mbar_acquire(t, m.id, waiting + 1);
  } else {
    if (g_race_on) race_mbar_acquire(t, m.id, waiting);
    maybe_yield();
  }
}

namespace {
// st.async / red.async: buffered with rank's barrier, applied when its phase completes.
void issue_async(void* p, unsigned rank, const unsigned* v, int n, bool add, unsigned long long* bar,
                 const char* what, Site s) {
  Thread* t = cur_thread();
  maybe_yield();
  Block& peer = peer_of(t, rank, what, s);
  bool dyn = false;
  uint32_t off = 0;
  const size_t bytes = 4 * static_cast<size_t>(n);
  locate(t, p, bytes, bytes, what, s, dyn, off);
  MBar& m = use_bar(t, rank, bar, what, s);
  AsyncWrite w{(dyn ? peer.dyn : peer.arena) + off, {0, 0, 0, 0}, n, add};
  for (int i = 0; i < n; ++i) w.v[i] = v[i];
  if (g_race_on) race_async_issue(t, w.dst, bytes, add, m.id, m.phase + 1, s);
  m.writes.push_back(w);
  add_tx(t, m, -static_cast<int64_t>(bytes), what, s);
  complete_if_done(m);
}
}  // namespace

void st_async_words(void* p, unsigned rank, const unsigned* v, int n, unsigned long long* bar, Site s) {
  if (n != 1 && n != 2 && n != 4)
    fail("st_async width", who(cur_thread()) + " stored " + std::to_string(n) + " words at " + site_str(s));
  issue_async(p, rank, v, n, false, bar, "st_async", s);
}

void red_async_add(void* p, unsigned rank, unsigned v, unsigned long long* bar, Site s) {
  issue_async(p, rank, &v, 1, true, bar, "red_async_add", s);
}

int dsmem_atomic_add(int* p, unsigned rank, int v, Site s) {
  Thread* t = cur_thread();
  atomic_point();
  Block& peer = peer_of(t, rank, "dsmem_atomic_add", s);
  bool dyn = false;
  uint32_t off = 0;
  locate(t, p, 4, 4, "dsmem_atomic_add", s, dyn, off);
  char* dst = (dyn ? peer.dyn : peer.arena) + off;
  if (g_race_on) race_dsmem_atomic(t, dst, s);
  unsigned old;
  std::memcpy(&old, dst, 4);
  const unsigned nv = old + static_cast<unsigned>(v);
  std::memcpy(dst, &nv, 4);
  return static_cast<int>(old);
}

void cluster_arrive_kind(int kind, Site s) {
  if (kind != 0 && kind != 1)
    fail("cluster arrive kind", who(cur_thread()) + " kind " + std::to_string(kind) + " at " + site_str(s));
  cluster_arrive_as(kind, s);
}

void mailbox_on_block_exit(Block& b) {
  for (const auto& [k, id] : g_current) {
    const MBar& m = g_bars[static_cast<size_t>(id)];
    if (m.rank != b.rank || (!m.touched && m.writes.empty())) continue;
    fail("block exited with an incomplete mbarrier phase",
         block_str(b) + " exited with " + bar_str(m, " incomplete") + " (" + plural(static_cast<int64_t>(m.writes.size()),
         "buffered async write") + " never applied; initialised at " + site_str(m.init_site) + ")");
  }
}

std::string mailbox_wait_str(const Thread& t) {
  if (t.mbar_id < 0 || static_cast<size_t>(t.mbar_id) >= g_bars.size()) return "mbar_wait";
  const MBar& m = g_bars[static_cast<size_t>(t.mbar_id)];
  return "mbar_wait(parity " + std::to_string(t.mbar_phase & 1) + ") on " + bar_str(m);
}

}  // namespace simt::detail
