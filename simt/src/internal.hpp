// simt/src/internal.hpp -- emulator state shared by the scheduler, warp, shared-memory and
// cluster translation units. Not part of the kernel-facing API.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "simt/host/control.hpp"
#include "simt/host/core.hpp"
#include "simt/host/rt.hpp"
#include "simt/src/fiber.hpp"

namespace simt::detail {

enum class TState : uint8_t { kRunnable, kBlocked, kDone };
enum class Wait : uint8_t { kNone, kBarrier, kWarp, kClusterWait, kMbar };

struct Block;

struct Thread : ThreadPublic {
  Fiber fiber;
  Block* block = nullptr;
  unsigned linear = 0;  // thread rank within the block
  unsigned index = 0;   // index within the cluster's thread array
  TState state = TState::kRunnable;
  Wait wait = Wait::kNone;
  Site site{nullptr, 0};
  int run_slot = -1;  // position in the run queue, -1 if absent
  // warp collective / barrier deposit and result
  uint64_t cval = 0;
  int carg = 0;
  int cwidth = 32;
  int ckind = 0;
  uint32_t cmask = 0;
  uint64_t cres = 0;
  int cpred = 0;
  // cluster barrier
  uint32_t cl_arrives = 0;
  uint32_t cl_waits = 0;
  uint64_t cl_arrive_gen = 0;
  bool cl_pending = false;
  // mbar_wait (mailbox.cpp): the barrier (id in the cluster's table) and its phase being waited on
  int mbar_id = -1;
  uint64_t mbar_phase = 0;
  bool pdl_waited = false;
  uint64_t prio = 0;  // PCT priority
  // race flavour: vector clock over the lanes of the warp, address of the atomic in progress
  uint32_t vc[32] = {};
  const void* atomic_addr = nullptr;
  uintptr_t pre_wait_global_pc = 0;  // race flavour + strict: first device-memory access before SIMT_PDL_WAIT
};

struct Group {
  uint32_t mask;
  uint32_t arrived;
  WarpOp op;
  Site site;
};

struct Warp {
  uint32_t exists = 0;  // lanes that exist in this (possibly partial) warp
  uint32_t live = 0;    // lanes not yet exited
  int ngroups = 0;
  Group groups[32];
  Thread* lanes[32] = {};
};

struct Block {
  uint3 idx{0, 0, 0};
  unsigned rank = 0;      // rank within the cluster
  uint3 cl_idx{0, 0, 0};  // index within the cluster
  Thread* threads = nullptr;
  unsigned nthreads = 0;
  unsigned live = 0;
  // __syncthreads
  unsigned bar_arrived = 0;
  int bar_count = 0;
  bool bar_and = true, bar_or = false;
  Site bar_site{nullptr, 0};
  uint64_t bar_gen = 0;
  std::vector<Warp> warps;
  char* arena = nullptr;  // static shared memory
  char* dyn = nullptr;    // dynamic shared memory
  size_t dyn_size = 0;
  bool exited = false;
  bool exited_shadow = false;
  uint32_t min_waits = UINT32_MAX;  // min completed cluster waits over its exited threads
  // the latest-phase remote mapping of this block's shared memory by a peer block
  int64_t remote_phase = -1;
  Site remote_site{nullptr, 0};
  const Thread* remote_thread = nullptr;
};

struct Launch {
  rt::LaunchConfig cfg;
  const void* kernel = nullptr;
  void (*invoke)(void*) = nullptr;
  void* obj = nullptr;
  unsigned tpb = 0;        // threads per block
  unsigned bpc = 0;        // blocks per cluster
  uint64_t index = 0;      // launch counter
  std::vector<Block> blocks;  // the blocks of the running cluster
  std::vector<Thread*> runq;
  unsigned cl_live = 0;     // live threads in the cluster
  unsigned cl_arrived = 0;  // pending cluster-barrier arrivals
  uint64_t cl_gen = 0;
  bool aborted = false;
  uint64_t switches = 0;  // watchdog: fiber switches in this launch
};

extern Launch* g_launch;
extern Schedule g_sched;
extern bool g_strict;
extern bool g_quiet;
extern bool g_adv_activemask;
extern bool g_dsmem_sync_check;
extern bool g_fill_garbage;
extern Stats g_stats;
extern uint64_t g_max_switches;

inline Thread* cur_thread() { return static_cast<Thread*>(cur()); }

// Scheduler primitives (sched.cpp).
void runq_add(Thread* t);
void runq_remove(Thread* t);
void block_current(Wait w, Site s);  // suspend until woken
void wake(Thread* t);
void maybe_yield();  // a scheduling point that keeps the caller runnable (non-RR policies)
uint64_t rng_next();

// Reports (report.cpp). fail() records the report and unwinds the current fiber (never returns).
struct KernelAbort {};
std::string who(const Thread* t);
std::string site_str(Site s);
std::string launch_repro();
[[noreturn]] void fail(const std::string& kind, const std::string& detail);
void record_report(const std::string& kind, const std::string& detail);  // scheduler side

// Shared memory (shared.cpp).
constexpr size_t kStaticLimit = 48 * 1024;
constexpr size_t kRedzone = 32;
constexpr size_t kArenaBytes = kStaticLimit + 2 * kRedzone;
void shared_launch_begin(const void* kernel);
void shared_block_begin(Block& b);
void shared_block_end(Block& b, bool teardown = false);
void shared_cluster_end();
size_t shared_static_top();

// Exit bookkeeping of warps/barriers (warp.cpp / sched.cpp / cluster.cpp).
void warp_on_exit(Thread* t);
void barrier_on_exit(Thread* t);
void cluster_on_exit(Thread* t);
void cluster_on_block_exit(Block& b);
void cluster_launch_begin();
void cluster_arrive_as(int kind, Site s);  // kind 0 relaxed, 1 own-CTA smem release, 2 full

// Cluster mailbox (mailbox.cpp): mbarriers, st.async / red.async.
void mailbox_cluster_begin();
void mailbox_on_block_exit(Block& b);
std::string mailbox_wait_str(const Thread& t);  // deadlock report line for a Wait::kMbar waiter
std::string shared_slot_name(bool dyn, size_t off);  // shared.cpp: "s[+8]" of SIMT_SHARED(s)
bool shared_slot_covers(size_t off, size_t n);       // [off, off+n) inside one SIMT_SHARED slot
const char* warp_op_name(WarpOp op);

// Race flavour hooks (race_hooks_off.cpp: no-ops; simt/race/race.cpp: the detector).
extern bool g_race_on;
void race_collective(Warp& w, uint32_t mask);
void race_block_begin(Block& b);
void race_block_end(Block& b);
// mailbox ordering (race.cpp; no-ops in race_hooks_off.cpp). kind as cluster_arrive_as.
void race_cluster_begin();
void race_cluster_arrive(const Thread* t, int kind);  // before t->cl_arrives is incremented
void race_cluster_waited(const Thread* t);             // t returned from the wait of its phase
void race_barrier_complete(Block& b);                   // __syncthreads completed
void race_mbar_acquire(const Thread* t, int id, uint64_t completed);  // t saw `completed` phases
void race_async_issue(const Thread* t, const char* dst, size_t n, bool add, int id, uint64_t phase, Site s);
void race_async_apply(const char* dst, size_t n, int id, uint64_t phase);
void race_dsmem_atomic(const Thread* t, const void* p, Site s);
bool is_device_memory(const void* p);  // rt.cpp: device_malloc'd or registered
std::string symbolize_pc(uintptr_t pc);  // race flavour: "file:line (function)"; else hex

}  // namespace simt::detail
