// simt/src/race_hooks_off.cpp -- the default flavour: no race detector (simt_race replaces this).
#include <cstdio>

#include "simt/src/internal.hpp"

namespace simt::detail {
bool g_race_on = false;
void race_atomic(const void*, unsigned) {}
void race_collective(Warp&, uint32_t) {}
void race_block_begin(Block&) {}
void race_block_end(Block&) {}
std::string symbolize_pc(uintptr_t pc) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "pc 0x%lx", static_cast<unsigned long>(pc));
  return buf;
}
}  // namespace simt::detail
