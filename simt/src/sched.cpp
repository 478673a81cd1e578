// simt/src/sched.cpp -- the cooperative scheduler: run queue, policies (round-robin, random,
// PCT with block-major priorities, schedule tape), and the launch driver (blocks or whole
// clusters one at a time, in an order shuffled by the schedule seed).
#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <mutex>

#include "simt/src/internal.hpp"

namespace simt::detail {

ThreadPublic* g_cur = nullptr;
bool g_atomic_points = false;
Launch* g_launch = nullptr;
Stats g_stats;
uint64_t g_max_switches = [] {
  const char* e = std::getenv("SIMT_MAX_SWITCHES");
  unsigned long long v = e ? std::strtoull(e, nullptr, 0) : 0;
  return v ? static_cast<uint64_t>(v) : uint64_t{1000000000};
}();

namespace {

struct SplitMix {
  uint64_t s = 0;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

SplitMix g_rng;
Fiber g_main;  // the scheduler's own context
// PCT state
std::vector<uint64_t> g_pct_changes;  // decision indices where the running thread is demoted
uint64_t g_pct_step = 0;
uint64_t g_pct_last_steps = 0;
Thread* g_last_run = nullptr;

size_t pick(size_t n);

// Makes `t` the running CUDA thread (the caller then switches to its fiber).
void enter(Thread* t) {
  g_last_run = t;
  g_cur = t;
  g_cur_static_arena = t->block->arena;
  ++g_stats.switches;
}

// Leaves the running thread `self`: directly to the next runnable thread (no detour through the
// scheduler), or to the scheduler when nothing is runnable or the launch was aborted. Returns
// when `self` is resumed (or immediately if the policy picks `self` again).
bool watchdog_fired() {
  Launch& L = *g_launch;
  if (++L.switches <= g_max_switches) return false;
  record_report("no progress",
                "the launch exceeded " + std::to_string(g_max_switches) +
                    " fiber switches (livelock or a spin-wait on memory that another thread never writes?); "
                    "limit: SIMT_MAX_SWITCHES / simt::set_max_switches");
  return true;
}

void switch_away(Thread* self) {
  Launch& L = *g_launch;
  if (L.aborted || L.runq.empty() || watchdog_fired()) {
    switch_fiber(&self->fiber, &g_main);
    return;
  }
  Thread* next = L.runq[pick(L.runq.size())];
  if (next == self) return;
  enter(next);
  switch_fiber(&self->fiber, &next->fiber);
}

}  // namespace

// Tape state (control.cpp owns the bytes).
extern std::vector<uint8_t> g_tape;
extern size_t g_tape_pos;
extern uint64_t g_tape_hash;
extern uint64_t g_tape_launch;

uint64_t rng_next() { return g_rng.next(); }

void runq_add(Thread* t) {
  t->run_slot = static_cast<int>(g_launch->runq.size());
  g_launch->runq.push_back(t);
}

void runq_remove(Thread* t) {
  auto& q = g_launch->runq;
  int s = t->run_slot;
  if (s < 0) return;
  Thread* last = q.back();
  q[static_cast<size_t>(s)] = last;
  last->run_slot = s;
  q.pop_back();
  t->run_slot = -1;
}

void block_current(Wait w, Site s) {
  Thread* t = cur_thread();
  t->state = TState::kBlocked;
  t->wait = w;
  t->site = s;
  runq_remove(t);
  switch_away(t);
  if (g_launch->aborted) throw KernelAbort{};
}

void wake(Thread* t) {
  t->state = TState::kRunnable;
  t->wait = Wait::kNone;
  runq_add(t);
}

void maybe_yield() {
  if (g_sched.policy == Policy::kRoundRobin) return;
  switch_away(cur_thread());
  if (g_launch->aborted) throw KernelAbort{};
}

void atomic_yield() { maybe_yield(); }

void atomic_spin_yield() {
  Thread* t = cur_thread();
  t->atomics_run = 0;
  auto& q = g_launch->runq;
  if (q.size() > 1 && t->run_slot >= 0) {  // rr picks the back: make sure another thread runs
    Thread* front = q[0];
    std::swap(q[0], q[static_cast<size_t>(t->run_slot)]);
    front->run_slot = t->run_slot;
    t->run_slot = 0;
  }
  switch_away(t);
  if (g_launch->aborted) throw KernelAbort{};
}

namespace {

size_t pick(size_t n) {
  if (n == 1) return 0;
  ++g_stats.decisions;
  switch (g_sched.policy) {
    case Policy::kRoundRobin:
      return n - 1;  // LIFO over the swap-remove queue: deterministic, runs each thread to its next point
    case Policy::kRandom:
      return static_cast<size_t>(g_rng.next() % n);
    case Policy::kTape:
      if (g_tape_pos < g_tape.size()) return g_tape[g_tape_pos++] % n;
      return static_cast<size_t>(g_rng.next() % n);
    case Policy::kPCT: {
      ++g_pct_step;
      if (g_last_run && g_last_run->run_slot >= 0) {
        for (size_t i = 0; i < g_pct_changes.size(); ++i)
          if (g_pct_changes[i] == g_pct_step) g_last_run->prio = g_pct_changes.size() - i;  // demote
      }
      auto& q = g_launch->runq;
      size_t best = 0;
      for (size_t i = 1; i < n; ++i)
        if (q[i]->prio > q[best]->prio) best = i;
      return best;
    }
  }
  return 0;
}

void thread_main(Fiber* f) {
  Thread* t = static_cast<Thread*>(f->user);
  try {
    g_launch->invoke(g_launch->obj);
    // thread exit bookkeeping
    runq_remove(t);
    t->state = TState::kDone;
    Block& b = *t->block;
    --b.live;
    --g_launch->cl_live;
    b.min_waits = std::min(b.min_waits, t->cl_waits);
    warp_on_exit(t);
    barrier_on_exit(t);
    cluster_on_exit(t);
    if (b.live == 0) {
      b.exited = true;
      cluster_on_block_exit(b);
      mailbox_on_block_exit(b);
      shared_block_end(b);
    }
  } catch (const KernelAbort&) {
  } catch (const std::exception& e) {
    record_report("uncaught exception in kernel", who(t) + ": " + e.what());
  } catch (...) {
    record_report("uncaught exception in kernel", who(t) + ": (not a std::exception)");
  }
  runq_remove(t);
  t->state = TState::kDone;
  Launch& L = *g_launch;
  Fiber* to = &g_main;
  if (!L.aborted && !L.runq.empty()) {
    Thread* next = L.runq[pick(L.runq.size())];
    enter(next);
    to = &next->fiber;
  }
  exit_fiber(&t->fiber, to);
}

void deadlock_report() {
  std::string d = "no runnable thread but live threads remain:\n";
  int lines = 0;
  for (Block& b : g_launch->blocks) {
    for (unsigned i = 0; i < b.nthreads && lines < 24;) {
      Thread& t = b.threads[i];
      if (t.state != TState::kBlocked) { ++i; continue; }
      unsigned j = i + 1;
      while (j < b.nthreads && b.threads[j].state == TState::kBlocked && b.threads[j].wait == t.wait &&
             b.threads[j].site.line == t.site.line && b.threads[j].site.file == t.site.file &&
             b.threads[j].ckind == t.ckind && b.threads[j].mbar_id == t.mbar_id)
        ++j;
      char buf[160];
      std::snprintf(buf, sizeof buf, "  block (%u,%u,%u) threads %u-%u (warps %u-%u) wait in ", b.idx.x,
                    b.idx.y, b.idx.z, i, j - 1, i / 32, (j - 1) / 32);
      d += buf;
      if (t.wait == Wait::kBarrier) d += "__syncthreads";
      else if (t.wait == Wait::kClusterWait) d += "cluster barrier_wait";
      else if (t.wait == Wait::kMbar) d += mailbox_wait_str(t);
      else {
        std::snprintf(buf, sizeof buf, "%s(mask 0x%08x)", warp_op_name(static_cast<WarpOp>(t.ckind)), t.cmask);
        d += buf;
      }
      d += " at " + site_str(t.site) + "\n";
      ++lines;
      i = j;
    }
    unsigned exited = b.nthreads - b.live;
    if (exited) d += "  block (" + std::to_string(b.idx.x) + "," + std::to_string(b.idx.y) + "," +
                     std::to_string(b.idx.z) + "): " + std::to_string(exited) + " threads already exited\n";
  }
  record_report("deadlock", d);
}

void run_queue_loop() {
  Launch& L = *g_launch;
  g_main.is_main = true;
  while (!L.aborted && !L.runq.empty() && !watchdog_fired()) {
    Thread* t = L.runq[pick(L.runq.size())];
    enter(t);
    switch_fiber(&g_main, &t->fiber);
  }
  g_cur = nullptr;
  if (!L.aborted && L.cl_live > 0) deadlock_report();
}

}  // namespace

// Runs one cluster (or one block when there are no clusters): blocks `first..` of the grid.
void run_cluster(const std::vector<uint3>& block_ids, const uint3& cl_index) {
  Launch& L = *g_launch;
  const rt::LaunchConfig& c = L.cfg;
  static std::vector<Thread> threads;
  const size_t n = static_cast<size_t>(L.tpb) * L.bpc;
  if (threads.size() < n) threads = std::vector<Thread>(n);
  L.blocks.resize(L.bpc);
  L.runq.clear();
  L.cl_live = static_cast<unsigned>(n);
  L.cl_arrived = 0;
  L.cl_gen = 0;
  const unsigned nwarps = (L.tpb + 31) / 32;
  uint64_t block_prio_bits = 0;
  for (unsigned r = 0; r < L.bpc; ++r) {
    Block& b = L.blocks[r];
    b = Block{};
    b.idx = block_ids[r];
    b.rank = r;
    b.cl_idx = uint3{r % c.cluster.x, (r / c.cluster.x) % c.cluster.y, r / (c.cluster.x * c.cluster.y)};
    b.threads = &threads[static_cast<size_t>(r) * L.tpb];
    b.nthreads = b.live = L.tpb;
    b.warps.assign(nwarps, Warp{});
    shared_block_begin(b);
    if (g_sched.policy == Policy::kPCT) block_prio_bits = (g_rng.next() & 0xFFFFF) + 1;
    for (unsigned i = 0; i < L.tpb; ++i) {
      Thread& t = b.threads[i];
      t = Thread{};
      t.tid = uint3{i % c.block.x, (i / c.block.x) % c.block.y, i / (c.block.x * c.block.y)};
      t.bid = b.idx;
      t.bdim = c.block;
      t.gdim = c.grid;
      t.lane = i % 32;
      t.warp = i / 32;
      t.block = &b;
      t.linear = i;
      t.index = r * L.tpb + i;
      t.vc[t.lane] = 1;  // race flavour: own warp clock starts at 1 (0 = "never synchronised with")
      if (g_sched.policy == Policy::kPCT)
        t.prio = (block_prio_bits << 24) | ((g_rng.next() & 0xFFFFF) + 64);
      Warp& w = b.warps[t.warp];
      w.exists |= 1u << t.lane;
      w.lanes[t.lane] = &t;
      t.fiber.start(stack_pool().get(), &thread_main, &t);
    }
    for (Warp& w : b.warps) w.live = w.exists;
  }
  (void)cl_index;
  // Run queue: initial order by thread index (the policies pick from it).
  for (size_t i = n; i-- > 0;) runq_add(&threads[i]);
  if (g_sched.policy == Policy::kPCT) {
    uint64_t k = std::max<uint64_t>(g_pct_last_steps, n * 4);
    g_pct_changes.clear();
    for (int d = 1; d < g_sched.pct_depth; ++d) g_pct_changes.push_back(1 + g_rng.next() % k);
    g_pct_step = 0;
  }
  g_last_run = nullptr;
  cluster_launch_begin();
  mailbox_cluster_begin();
  g_stats.blocks += L.bpc;
  g_stats.threads += n;
  run_queue_loop();
  if (g_sched.policy == Policy::kPCT) g_pct_last_steps = g_pct_step;
  // Teardown: discard every fiber (finished or not), return stacks, release shared memory.
  for (size_t i = 0; i < n; ++i) stack_pool().put(threads[i].fiber.release());
  for (Block& b : L.blocks) shared_block_end(b, true);  // idempotent; covers aborted blocks
  shared_cluster_end();
}

void reseed_for_launch() {
  if (g_sched.policy == Policy::kTape)
    g_rng.s = g_tape_hash ^ (g_tape_launch++ * 0x9E3779B97F4A7C15ull);
  else
    g_rng.s = g_sched.seed;
  g_atomic_points = g_sched.policy != Policy::kRoundRobin;
}

}  // namespace simt::detail
