// simt/race/race.cpp -- the race flavour (target simt_race): a schedule-independent detector of
// shared-memory data races. Kernel TUs are compiled with clang's TSan instrumentation
// (-fsanitize=thread, func entry/exit off) but linked against the hooks in race_hooks.cpp
// instead of the TSan runtime. Every access inside a shared-memory arena of the running cluster
// is checked against an exact per-byte shadow (last writer, last reader) keyed by
// (thread, block-barrier generation, cluster phase, warp clock). Two accesses conflict iff
// different threads, at least one write, not both atomic, and not ordered by a __syncthreads
// (same block), a completed cluster barrier (for other blocks: one whose arrival kind covers the
// access), or a __syncwarp (vector clocks; shuffles, votes and reductions order no memory).
// Mailbox ordering (relaxed arrives, mbarrier phases, st.async / red.async): race_mailbox.cpp.
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "simt/race/race_internal.hpp"

namespace simt::detail {

bool g_race_on = true;

namespace race {

namespace {

struct Region {
  char* lo = nullptr;
  char* hi = nullptr;
  std::vector<Shadow> shadow;
  bool exited = false;
};
struct BlockRegions {
  Region stat, dyn;
};
std::vector<BlockRegions> g_regions;  // by cluster rank
size_t g_hwm = 0;                     // highest static arena byte ever shadowed
bool g_in_hook = false;

std::string symbolize(uintptr_t pc) {
  if (!pc) return "<unknown pc>";
  Dl_info info;
  char buf[512];
  if (dladdr(reinterpret_cast<void*>(pc), &info) && info.dli_fname) {
    uintptr_t off = pc - reinterpret_cast<uintptr_t>(info.dli_fbase) - 1;
    std::snprintf(buf, sizeof buf, "llvm-symbolizer --obj='%s' 0x%lx 2>/dev/null", info.dli_fname,
                  static_cast<unsigned long>(off));
    if (FILE* p = popen(buf, "r")) {
      std::string fn, loc;
      if (std::fgets(buf, sizeof buf, p)) fn = buf;
      if (std::fgets(buf, sizeof buf, p)) loc = buf;
      pclose(p);
      while (!fn.empty() && fn.back() == '\n') fn.pop_back();
      while (!loc.empty() && loc.back() == '\n') loc.pop_back();
      if (!loc.empty() && loc.rfind("??", 0) != 0) return loc + " (" + fn + ")";
    }
  }
  std::snprintf(buf, sizeof buf, "pc 0x%lx", static_cast<unsigned long>(pc));
  return buf;
}

}  // namespace

std::vector<ThreadOrder> g_order;
static_assert(sizeof(Acc) == 32, "the shadow keeps four accesses per byte");

std::string acc_site(const Acc& a) {
  if (a.line) return a.pc ? std::string(reinterpret_cast<const char*>(a.pc)) + ":" + std::to_string(a.line)
                         : std::string("<unknown site>");
  return symbolize(a.pc);
}

const Thread* thread_of(uint32_t tid1) {
  const Launch& L = *g_launch;
  const uint32_t i = tid1 - 1;
  return &L.blocks[i / L.tpb].threads[i % L.tpb];
}

bool ordered(const Acc& p, const Thread* t, bool atomic, unsigned rank) {
  if (p.tid1 == 0) return true;
  if (p.kind != AccKind::kPlain) return async_ordered(p, t, atomic);
  if (p.tid1 == t->index + 1) return true;
  if (p.atomic && atomic) return true;
  const Thread* pt = thread_of(p.tid1);
  // a cluster barrier p arrived at after its access (other blocks: an arrival whose kind covers it)
  if (t->cl_waits > p.phase && (pt->block == t->block || cluster_released(p, t, rank))) return true;
  if (pt->block != t->block) return false;
  if (p.bar != static_cast<uint32_t>(t->block->bar_gen)) return true;  // a __syncthreads in between
  if (pt->warp == t->warp && t->vc[pt->lane] >= p.clk) return true;  // a __syncwarp in between
  return false;
}

void race_report(const Acc& p, bool p_write, const Thread* t, bool write, const Acc& me, const char* base_name,
                 size_t off, unsigned rank) {
  const Thread* pt = thread_of(p.tid1);
  std::string other = std::string(p_write ? "write" : "read") + " by " + who(pt) + " at " + acc_site(p);
  if (p.kind == AccKind::kAsyncPending)
    other = std::string(p.atomic ? "red_async_add" : "st_async") + " issued by " + who(pt) + " at " +
            acc_site(p) + ", not yet applied (its mbarrier phase has not completed)";
  else if (p.kind == AccKind::kAsyncApplied)
    other = std::string(p.atomic ? "red_async_add" : "st_async") + " issued by " + who(pt) + " at " +
            acc_site(p) + ", applied when its mbarrier completed phase " + std::to_string(p.phase - 1) +
            ", which this thread has not waited on";
  fail("shared-memory data race",
       std::string(write ? "write" : "read") + " by " + who(t) + " at " + acc_site(me) + "\n  conflicts with " +
           other + "\n  address: " + base_name + " shared memory of cluster rank " + std::to_string(rank) +
           ", byte offset " + std::to_string(off) +
           " (no __syncthreads / cluster barrier / __syncwarp / mbarrier wait orders them; a shuffle or"
           " reduction does not)");
}

Shadow* shadow_of(const char* a, size_t& n, unsigned& rank, const char*& kind, size_t& off, bool& exited) {
  for (unsigned i = 0; i < g_regions.size() && i < g_launch->bpc; ++i) {
    Region* reg = nullptr;
    if (a >= g_regions[i].stat.lo && a < g_regions[i].stat.hi) {
      reg = &g_regions[i].stat;
      kind = "static";
    } else if (a >= g_regions[i].dyn.lo && a < g_regions[i].dyn.hi) {
      reg = &g_regions[i].dyn;
      kind = "dynamic";
    }
    if (!reg) continue;
    rank = i;
    n = std::min<size_t>(n, static_cast<size_t>(reg->hi - a));
    off = static_cast<size_t>(a - reg->lo);
    exited = reg->exited;
    return &reg->shadow[off];
  }
  return nullptr;
}

void check_access(Thread* t, const char* a, size_t size, bool write, bool atomic, const Acc& me, bool lifetime) {
  size_t n = size, off0 = 0;
  unsigned rank = 0;
  const char* kind = "static";
  bool exited = false;
  Shadow* sh = shadow_of(a, n, rank, kind, off0, exited);
  if (!sh) return;
  if (exited)
    fail("cluster shared-memory use after exit",
         who(t) + " accessed the shared memory of cluster rank " + std::to_string(rank) +
             ", which has exited, at " + acc_site(me));
  Block& owner = g_launch->blocks[rank];
  if (lifetime && &owner != t->block && static_cast<int64_t>(t->cl_arrives) >= owner.remote_phase) {
    owner.remote_phase = t->cl_arrives;  // feeds the schedule-independent lifetime check
    owner.remote_thread = t;
    owner.remote_site = Site{"(DSMEM access)", 0};
  }
  for (size_t i = 0; i < n; ++i) {
    Shadow& s = sh[i];
    if (!ordered(s.w, t, atomic, rank)) race_report(s.w, true, t, write, me, kind, off0 + i, rank);
    if (s.a.tid1 && !async_ordered(s.a, t, atomic)) race_report(s.a, true, t, write, me, kind, off0 + i, rank);
    if (write) {
      if (!ordered(s.r, t, atomic, rank)) race_report(s.r, false, t, write, me, kind, off0 + i, rank);
      if (!ordered(s.r2, t, atomic, rank)) race_report(s.r2, false, t, write, me, kind, off0 + i, rank);
      s.w = me;
      s.r = s.r2 = Acc{};
      if (!atomic) s.a = Acc{};  // a plain write ordered after the async one supersedes it
    } else {
      if (s.r.tid1 && !ordered(s.r, t, false, rank)) s.r2 = s.r;  // concurrent readers: keep one more
      s.r = me;
    }
  }
}

}  // namespace race

using namespace race;

void race_block_begin(Block& b) {
  if (g_regions.size() < g_launch->bpc) g_regions.resize(g_launch->bpc);
  BlockRegions& r = g_regions[b.rank];
  r.stat.lo = b.arena;
  r.stat.hi = b.arena + kArenaBytes;
  r.stat.exited = false;
  if (r.stat.shadow.size() < kArenaBytes) r.stat.shadow.resize(kArenaBytes);
  g_hwm = std::max(g_hwm, shared_static_top() + 64);
  std::memset(static_cast<void*>(r.stat.shadow.data()), 0, std::min(g_hwm, kArenaBytes) * sizeof(Shadow));
  r.dyn.lo = b.dyn;
  r.dyn.hi = b.dyn + b.dyn_size;
  r.dyn.exited = false;
  r.dyn.shadow.assign(b.dyn_size, Shadow{});
}

void race_block_end(Block& b) {
  if (b.rank < g_regions.size()) {
    g_regions[b.rank].stat.exited = true;
    g_regions[b.rank].dyn.exited = true;
  }
}

void race_collective(Warp& w, uint32_t mask) {
  uint32_t join[32] = {};
  for (unsigned l = 0; l < 32; ++l)
    if ((mask >> l) & 1u)
      for (unsigned k = 0; k < 32; ++k) join[k] = std::max(join[k], w.lanes[l]->vc[k]);
  for (unsigned l = 0; l < 32; ++l)
    if ((mask >> l) & 1u) {
      std::memcpy(w.lanes[l]->vc, join, sizeof join);
      ++w.lanes[l]->vc[l];
    }
  collective_seen(w, mask);
}

void race_atomic(const void* p, unsigned) {
  if (g_cur) cur_thread()->atomic_addr = p;
}

std::string symbolize_pc(uintptr_t pc) { return symbolize(pc); }

void race_access(const void* addr, size_t size, bool write, uintptr_t pc) {
  if (g_in_hook || !g_cur || !g_launch || size == 0) return;
  Thread* t = cur_thread();
  if (g_strict) {  // PDL rule: no device-memory access before SIMT_PDL_WAIT() (if the kernel waits)
    if (!t->pdl_waited && !t->pre_wait_global_pc && is_device_memory(addr)) t->pre_wait_global_pc = pc;
  }
  const bool atomic = t->atomic_addr == addr;
  const Acc me{t->index + 1, static_cast<uint32_t>(t->block->bar_gen), t->cl_arrives, t->vc[t->lane], pc,
               atomic, AccKind::kPlain, 0};
  g_in_hook = true;
  struct Unguard {
    ~Unguard() { g_in_hook = false; }
  } unguard;
  check_access(t, static_cast<const char*>(addr), size, write, atomic, me, true);
}

}  // namespace simt::detail
