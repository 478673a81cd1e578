// simt/race/race_internal.hpp -- state shared by the race detector's translation units
// (race.cpp: shadow and access checks; race_mailbox.cpp: ordering by relaxed cluster arrives,
// mbarrier phases and buffered async writes). Not part of any public API.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "simt/src/internal.hpp"

namespace simt::detail::race {

enum class AccKind : uint8_t { kPlain, kAsyncPending, kAsyncApplied };

// One access in the shadow. For async writes: tid1 = issuer, bar = mbarrier id, phase = the
// number of completed phases of that barrier a thread must have observed to be ordered after it.
struct Acc {
  uint32_t tid1;   // cluster thread index + 1; 0 = none
  uint32_t bar;    // accessor block's barrier generation (async: mbarrier id)
  uint32_t phase;  // accessor's cluster arrivals at the access (async: phases to observe)
  uint32_t clk;    // accessor's own warp-clock entry
  uintptr_t pc;    // return address, or the `const char*` file when line != 0
  bool atomic;
  AccKind kind;
  uint32_t line;   // source line of a mailbox call (0: pc is a return address)
};
struct Shadow {
  Acc w, r;  // last plain (or atomic) writer, last reader since it
  Acc r2;    // an earlier reader since w that r is not ordered after (concurrent readers: a later
             // writer is checked against both; one slot lost 31 lanes' reads to lane 0's own)
  Acc a;     // last st.async / red.async into the byte (kind kAsyncPending / kAsyncApplied)
};

// Per cluster thread: which of its cluster-barrier arrivals release what, and which mbarrier
// phases it has observed (directly by mbar_wait or through __syncthreads, warp collectives and
// cluster barriers).
struct ThreadOrder {
  std::vector<int32_t> last_full;  // [j]: its latest arrival <= j that orders all its accesses
  std::vector<int32_t> last_smem;  // [j]: its latest arrival <= j that orders own-CTA smem accesses
  bool weak = false;               // made an arrival that is not a full release
  std::vector<uint32_t> seen;      // [mbarrier id]: phases observed
};
extern std::vector<ThreadOrder> g_order;  // by cluster thread index

const Thread* thread_of(uint32_t tid1);
// True if a later access by t (atomic or not) of shared memory of cluster rank `rank` is ordered
// after p.
bool ordered(const Acc& p, const Thread* t, bool atomic, unsigned rank);
// Whether the accessor of p (a plain access into rank's shared memory) released it by a cluster
// barrier arrival whose phase t has completed (t->cl_waits phases).
bool cluster_released(const Acc& p, const Thread* t, unsigned rank);
bool async_ordered(const Acc& p, const Thread* t, bool atomic);
std::string acc_site(const Acc& a);

// Shadow bytes [a, a+n) of the running cluster's shared memory; nullptr if not shared.
Shadow* shadow_of(const char* a, size_t& n, unsigned& rank, const char*& kind, size_t& off, bool& exited);
[[noreturn]] void race_report(const Acc& p, bool p_write, const Thread* t, bool write, const Acc& me,
                              const char* base_name, size_t off, unsigned rank);
void collective_seen(Warp& w, uint32_t mask);  // join the observed phases of a warp collective
// Checks an access by t of n bytes at a (shared memory or not) and records it.
void check_access(Thread* t, const char* a, size_t n, bool write, bool atomic, const Acc& me, bool lifetime);

}  // namespace simt::detail::race
