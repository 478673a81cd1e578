// simt/host/core.hpp -- the per-fiber view kernels read (threadIdx & co.) and the entry points
// of the scheduler that the kernel-facing intrinsics call. Included by simt/host/runtime.hpp.
#pragma once

#include <driver_types.h>
#include <vector_types.h>

#include <cstddef>
#include <cstdint>

namespace simt {

// A source location, captured at the call site through a defaulted argument.
struct Site {
  const char* file;
  int line;
  static constexpr Site here(const char* f = __builtin_FILE(), int l = __builtin_LINE()) {
    return Site{f, l};
  }
};

namespace detail {

// The first member of every emulated CUDA thread; ::simt::detail::g_cur points at the running one.
struct ThreadPublic {
  uint3 tid;
  uint3 bid;
  dim3 bdim;
  dim3 gdim;
  unsigned lane;
  unsigned warp;
  unsigned atomics_run;  // atomics since the last forced yield (spin-wait progress under rr)
};

extern ThreadPublic* g_cur;
extern bool g_atomic_points;  // a scheduling point before each atomic (random/PCT/tape policies)

[[noreturn]] void outside_kernel(const char* what);
inline ThreadPublic* cur(const char* what = "a kernel intrinsic") {
  ThreadPublic* t = g_cur;
  if (__builtin_expect(t == nullptr, 0)) outside_kernel(what);
  return t;
}

// Barriers. kind: 0 = plain, 1 = _count, 2 = _and, 3 = _or. Returns the variant's result.
int block_barrier(int kind, int pred, Site s);

// Warp collectives (simt/src/warp.cpp).
enum class WarpOp : uint8_t {
  kSyncwarp,
  kShflIdx,
  kShflUp,
  kShflDown,
  kShflXor,
  kBallot,
  kAny,
  kAll,
  kMatchAny,
  kMatchAll,
  kRedAdd,
  kRedMinU,
  kRedMaxU,
  kRedMinS,
  kRedMaxS,
  kRedAnd,
  kRedOr,
  kRedXor,
};
// Deposits `value` (bit pattern), joins the group keyed by `mask`, returns this lane's result.
// For shuffles `arg` is the lane/delta/xor-mask operand; for match_all *pred receives the flag.
uint64_t warp_collective(WarpOp op, unsigned mask, uint64_t value, int arg, int width, Site s,
                         int* pred = nullptr);
unsigned activemask();

// Atomics: optional scheduling point.
void atomic_yield();
void atomic_spin_yield();  // every 4096th atomic of a thread yields even under rr (spin-waits)
inline void atomic_point() {
  if (g_atomic_points) {
    atomic_yield();
    return;
  }
  ThreadPublic* t = cur("an atomic");
  if (__builtin_expect(++t->atomics_run >= 4096, 0)) atomic_spin_yield();
}

// Shared memory.
struct SharedSlot {
  size_t size;
  size_t align;
  const char* name;
  const char* file;
  int line;
  uint64_t epoch;   // launch that resolved `offset`
  uint32_t offset;  // byte offset in the block's static arena
};
void* shared_slot_resolve(SharedSlot& slot);
extern uint64_t g_launch_epoch;
extern char* g_cur_static_arena;  // static arena of the running block
inline void* shared_slot_ptr(SharedSlot& slot) {
  if (__builtin_expect(slot.epoch != g_launch_epoch, 0)) return shared_slot_resolve(slot);
  cur("SIMT_SHARED");
  return g_cur_static_arena + slot.offset;
}
void* dynamic_shared();

// PDL bookkeeping (no-ops in execution).
void pdl_wait(Site s);
void pdl_trigger(Site s);

// Clusters (simt/src/cluster.cpp).
void cluster_arrive(Site s);
void cluster_wait(Site s);
void* cluster_map_shared(const void* p, unsigned rank, Site s);
unsigned cluster_block_rank();
unsigned cluster_num_blocks();
dim3 cluster_dims();
uint3 cluster_block_index();

}  // namespace detail
}  // namespace simt

#define threadIdx (::simt::detail::cur("threadIdx")->tid)
#define blockIdx (::simt::detail::cur("blockIdx")->bid)
#define blockDim (::simt::detail::cur("blockDim")->bdim)
#define gridDim (::simt::detail::cur("gridDim")->gdim)
