// simt/src/race_hooks_off.cpp -- the default flavour: no race detector (simt_race replaces this).
#include <cstdio>

#include "simt/src/internal.hpp"

namespace simt::detail {
bool g_race_on = false;
void race_atomic(const void*, unsigned) {}
void race_collective(Warp&, uint32_t) {}
void race_block_begin(Block&) {}
void race_block_end(Block&) {}
void race_cluster_begin() {}
void race_cluster_arrive(const Thread*, int) {}
void race_cluster_waited(const Thread*) {}
void race_barrier_complete(Block&) {}
void race_mbar_acquire(const Thread*, int, uint64_t) {}
void race_async_issue(const Thread*, const char*, size_t, bool, int, uint64_t, Site) {}
void race_async_apply(const char*, size_t, int, uint64_t) {}
void race_dsmem_atomic(const Thread*, const void*, Site) {}
std::string symbolize_pc(uintptr_t pc) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "pc 0x%lx", static_cast<unsigned long>(pc));
  return buf;
}
}  // namespace simt::detail
