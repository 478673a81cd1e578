// simt/src/race_hooks_off.cpp -- the default flavour: no race detector (simt_race replaces this).
#include "simt/src/internal.hpp"

namespace simt::detail {
bool g_race_on = false;
void race_atomic(const void*, unsigned) {}
void race_collective(Warp&, uint32_t) {}
void race_block_begin(Block&) {}
void race_block_end(Block&) {}
}  // namespace simt::detail
