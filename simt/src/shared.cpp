// simt/src/shared.cpp -- static (SIMT_SHARED) and dynamic (SIMT_DYN_SHARED) shared memory.
// Static slots get per-kernel offsets (stable across blocks and launches) in a 48 KiB arena
// with 32-byte redzones; under ASan the arena is poisoned except live slots, and poisoned again
// when the block exits. Dynamic shared memory is a separate exact-size heap block per block.
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

#include "simt/src/internal.hpp"
#include "simt/src/sanitizer.hpp"

namespace simt::detail {

uint64_t g_launch_epoch = 1;
char* g_cur_static_arena = nullptr;

namespace {

struct Layout {
  std::vector<std::pair<SharedSlot*, uint32_t>> slots;
  size_t top = kRedzone;
};
std::map<const void*, Layout> g_layouts;
Layout* g_layout = nullptr;
struct ArenaPool {
  std::vector<char*> free;
  ~ArenaPool() {
    for (char* a : free) std::free(a);
  }
};
ArenaPool g_pool;
constexpr unsigned char kGarbage = 0xCD;

char* arena_get() {
  if (!g_pool.free.empty()) {
    char* a = g_pool.free.back();
    g_pool.free.pop_back();
    return a;
  }
  return static_cast<char*>(std::aligned_alloc(64, kArenaBytes));
}

void arena_put(char* a) {
  SIMT_UNPOISON(a, kArenaBytes);
  g_pool.free.push_back(a);
}

}  // namespace

void shared_launch_begin(const void* kernel) {
  ++g_launch_epoch;
  g_layout = &g_layouts[kernel];
}

size_t shared_static_top() { return g_layout && !g_layout->slots.empty() ? g_layout->top : 0; }

void shared_block_begin(Block& b) {
  b.arena = arena_get();
  SIMT_UNPOISON(b.arena, kArenaBytes);
  if (g_fill_garbage) std::memset(b.arena, kGarbage, g_layout->top);
  SIMT_POISON(b.arena, kArenaBytes);
  for (const auto& s : g_layout->slots) SIMT_UNPOISON(b.arena + s.second, s.first->size);
  const size_t dyn = g_launch->cfg.dynamic_smem;
  b.dyn_size = dyn;
  void* d = nullptr;  // exact size (ASan redzones right after the last byte), 16-byte aligned
  if (posix_memalign(&d, 16, dyn ? dyn : 1) != 0) fail("out of memory", "cannot allocate dynamic shared memory");
  b.dyn = static_cast<char*>(d);
  if (g_fill_garbage) std::memset(b.dyn, kGarbage, dyn);
  if (g_race_on) race_block_begin(b);
}

void shared_block_end(Block& b, bool teardown) {
  if (g_race_on && !b.exited_shadow) {
    race_block_end(b);
    b.exited_shadow = true;
  }
  // The race flavour keeps the dynamic block until teardown so a stale DSMEM access is reported
  // as "use after exit" rather than hitting recycled heap memory.
  if (g_race_on && !teardown) return;
  if (b.arena) {
    SIMT_POISON(b.arena, kArenaBytes);
    // Under ASan the arena stays poisoned until the cluster is torn down (use-after-exit by a
    // cluster peer is reported); the pool unpoisons it on reuse.
  }
  std::free(b.dyn);
  b.dyn = nullptr;
}

// Returns arenas of a finished cluster to the pool (called from launch teardown).
void shared_cluster_end() {
  for (Block& b : g_launch->blocks) {
    if (b.arena) arena_put(b.arena);
    b.arena = nullptr;
  }
}

void* shared_slot_resolve(SharedSlot& slot) {
  Thread* t = cur_thread();
  Layout& L = *g_layout;
  for (const auto& s : L.slots) {
    if (s.first == &slot) {
      slot.offset = s.second;
      slot.epoch = g_launch_epoch;
      return t->block->arena + slot.offset;
    }
  }
  size_t off = (L.top + kRedzone + slot.align - 1) / slot.align * slot.align;
  if (off + slot.size + kRedzone > kArenaBytes)
    fail("static shared memory over 48 KiB",
         who(t) + ": SIMT_SHARED(" + slot.name + ") at " + slot.file + ":" + std::to_string(slot.line) +
             " needs " + std::to_string(slot.size) + " bytes at offset " + std::to_string(off) +
             "; a kernel's static __shared__ total must stay within 48 KiB");
  L.top = off + slot.size;
  L.slots.emplace_back(&slot, static_cast<uint32_t>(off));
  slot.offset = static_cast<uint32_t>(off);
  slot.epoch = g_launch_epoch;
  for (Block& b : g_launch->blocks) {  // a new slot: make it usable in every live block
    if (b.exited || !b.arena) continue;
    SIMT_UNPOISON(b.arena + off, slot.size);
    if (g_fill_garbage) std::memset(b.arena + off, kGarbage, slot.size);
  }
  return t->block->arena + off;
}

void* dynamic_shared() { return cur_thread()->block->dyn; }

bool shared_slot_covers(size_t off, size_t n) {
  if (g_layout)
    for (const auto& s : g_layout->slots)
      if (off >= s.second && off + n <= s.second + s.first->size) return true;
  return false;
}

std::string shared_slot_name(bool dyn, size_t off) {
  if (dyn) return "dynamic[+" + std::to_string(off) + "]";
  if (g_layout)
    for (const auto& s : g_layout->slots)
      if (off >= s.second && off < s.second + s.first->size)
        return std::string("'") + s.first->name + "'" +
               (off == s.second ? "" : "[+" + std::to_string(off - s.second) + "]");
  return "<unnamed>";
}

}  // namespace simt::detail

namespace simt::detail {
size_t shared_static_top_for(const void* kernel) {
  auto it = g_layouts.find(kernel);
  return it == g_layouts.end() || it->second.slots.empty() ? 0 : it->second.top;
}
}  // namespace simt::detail
