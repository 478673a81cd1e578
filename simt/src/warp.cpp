// simt/src/warp.cpp -- warp collectives with PTX semantics. Each warp keeps pending groups keyed
// by mask, so disjoint divergent subsets proceed independently; a group completes when every
// lane of its mask has arrived; results are computed once, participants are woken.
#include <cstdio>

#include "simt/src/internal.hpp"

namespace simt::detail {

const char* warp_op_name(WarpOp op) {
  switch (op) {
    case WarpOp::kSyncwarp: return "__syncwarp";
    case WarpOp::kShflIdx: return "__shfl_sync";
    case WarpOp::kShflUp: return "__shfl_up_sync";
    case WarpOp::kShflDown: return "__shfl_down_sync";
    case WarpOp::kShflXor: return "__shfl_xor_sync";
    case WarpOp::kBallot: return "__ballot_sync";
    case WarpOp::kAny: return "__any_sync";
    case WarpOp::kAll: return "__all_sync";
    case WarpOp::kMatchAny: return "__match_any_sync";
    case WarpOp::kMatchAll: return "__match_all_sync";
    case WarpOp::kRedAdd: return "__reduce_add_sync";
    case WarpOp::kRedMinU: return "__reduce_min_sync(unsigned)";
    case WarpOp::kRedMaxU: return "__reduce_max_sync(unsigned)";
    case WarpOp::kRedMinS: return "__reduce_min_sync(int)";
    case WarpOp::kRedMaxS: return "__reduce_max_sync(int)";
    case WarpOp::kRedAnd: return "__reduce_and_sync";
    case WarpOp::kRedOr: return "__reduce_or_sync";
    case WarpOp::kRedXor: return "__reduce_xor_sync";
  }
  return "?";
}

namespace {

std::string hex(uint32_t m) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", m);
  return b;
}

bool is_shuffle(WarpOp op) {
  return op == WarpOp::kShflIdx || op == WarpOp::kShflUp || op == WarpOp::kShflDown || op == WarpOp::kShflXor;
}

// PTX shfl.sync source lane for `lane`; returns -1 when the source is out of range (own value).
int shfl_source(WarpOp op, unsigned lane, int b, int width) {
  const uint32_t c = (static_cast<uint32_t>(32 - width) << 8) | (op == WarpOp::kShflUp ? 0u : 0x1Fu);
  const int segmask = static_cast<int>((c >> 8) & 31u);
  const int cval = static_cast<int>(c & 31u);
  const int bval = b & 31;
  const int ln = static_cast<int>(lane);
  const int max_lane = (ln & segmask) | (cval & ~segmask);
  const int min_lane = ln & segmask;
  int j = 0;
  bool ok = false;
  switch (op) {
    case WarpOp::kShflUp: j = ln - bval; ok = j >= max_lane; break;
    case WarpOp::kShflDown: j = ln + bval; ok = j <= max_lane; break;
    case WarpOp::kShflXor: j = ln ^ bval; ok = j <= max_lane; break;
    default: j = min_lane | (bval & ~segmask); ok = j <= max_lane; break;
  }
  return ok ? j : -1;
}

// Computes every participant's result for a complete group.
void complete(Warp& w, const Group& g) {
  const uint32_t mask = g.mask;
  uint64_t acc = 0;
  switch (g.op) {
    case WarpOp::kBallot: case WarpOp::kAny: case WarpOp::kAll:
      for (unsigned l = 0; l < 32; ++l)
        if ((mask >> l) & 1u && w.lanes[l]->cval) acc |= 1ull << l;
      if (g.op == WarpOp::kAny) acc = acc != 0;
      if (g.op == WarpOp::kAll) acc = acc == mask;
      break;
    case WarpOp::kRedAdd: case WarpOp::kRedAnd: case WarpOp::kRedOr: case WarpOp::kRedXor:
    case WarpOp::kRedMinU: case WarpOp::kRedMaxU: case WarpOp::kRedMinS: case WarpOp::kRedMaxS: {
      bool first = true;
      uint32_t r = 0;
      for (unsigned l = 0; l < 32; ++l) {
        if (!((mask >> l) & 1u)) continue;
        uint32_t v = static_cast<uint32_t>(w.lanes[l]->cval);
        if (first) { r = v; first = false; continue; }
        switch (g.op) {
          case WarpOp::kRedAdd: r += v; break;
          case WarpOp::kRedAnd: r &= v; break;
          case WarpOp::kRedOr: r |= v; break;
          case WarpOp::kRedXor: r ^= v; break;
          case WarpOp::kRedMinU: r = v < r ? v : r; break;
          case WarpOp::kRedMaxU: r = v > r ? v : r; break;
          case WarpOp::kRedMinS: r = static_cast<int32_t>(v) < static_cast<int32_t>(r) ? v : r; break;
          default: r = static_cast<int32_t>(v) > static_cast<int32_t>(r) ? v : r; break;
        }
      }
      acc = r;
      break;
    }
    default: break;
  }
  bool all_equal = true;
  if (g.op == WarpOp::kMatchAll) {
    uint64_t v0 = w.lanes[__builtin_ctz(mask)]->cval;
    for (unsigned l = 0; l < 32; ++l)
      if ((mask >> l) & 1u && w.lanes[l]->cval != v0) all_equal = false;
  }
  for (unsigned l = 0; l < 32; ++l) {
    if (!((mask >> l) & 1u)) continue;
    Thread* t = w.lanes[l];
    switch (g.op) {
      case WarpOp::kShflIdx: case WarpOp::kShflUp: case WarpOp::kShflDown: case WarpOp::kShflXor: {
        int j = shfl_source(g.op, l, t->carg, t->cwidth);
        if (j < 0) {
          t->cres = t->cval;
        } else if (!((mask >> j) & 1u)) {
          fail("shuffle reads a lane outside the mask",
               who(t) + ": " + warp_op_name(g.op) + "(mask " + hex(mask) + ", arg " + std::to_string(t->carg) +
                   ", width " + std::to_string(t->cwidth) + ") reads lane " + std::to_string(j) +
                   ", which is not in the mask, at " + site_str(g.site));
        } else {
          t->cres = w.lanes[j]->cval;
        }
        break;
      }
      case WarpOp::kMatchAny: {
        uint32_t m = 0;
        for (unsigned k = 0; k < 32; ++k)
          if ((mask >> k) & 1u && w.lanes[k]->cval == t->cval) m |= 1u << k;
        t->cres = m;
        break;
      }
      case WarpOp::kMatchAll:
        t->cres = all_equal ? mask : 0;
        t->cpred = all_equal ? 1 : 0;
        break;
      default:
        t->cres = acc;
        break;
    }
  }
}

void remove_group(Warp& w, int gi) {
  w.groups[gi] = w.groups[w.ngroups - 1];
  --w.ngroups;
}

}  // namespace

uint64_t warp_collective(WarpOp op, unsigned mask, uint64_t value, int arg, int width, Site s, int* pred) {
  Thread* t = cur_thread();
  Warp& w = t->block->warps[t->warp];
  const uint32_t me = 1u << t->lane;
  if (!(mask & me))
    fail("warp collective mask excludes the caller",
         who(t) + " called " + warp_op_name(op) + " with mask " + hex(mask) + " at " + site_str(s));
  if (mask & ~w.exists)
    fail("warp collective mask names lanes that do not exist",
         who(t) + " called " + warp_op_name(op) + " with mask " + hex(mask) + " but the warp has lanes " +
             hex(w.exists) + " at " + site_str(s));
  if (mask & ~w.live)
    fail("warp collective mask names exited lanes",
         who(t) + " called " + warp_op_name(op) + " with mask " + hex(mask) + "; exited lanes " +
             hex(mask & ~w.live) + " at " + site_str(s));
  if (is_shuffle(op) && g_strict && (width <= 0 || width > 32 || (width & (width - 1))))
    fail("shuffle width is not a power of two <= 32",
         who(t) + " " + warp_op_name(op) + " width " + std::to_string(width) + " at " + site_str(s));
  t->cval = value;
  t->carg = arg;
  t->cwidth = width;
  t->ckind = static_cast<int>(op);
  t->cmask = mask;
  int gi = -1;
  for (int i = 0; i < w.ngroups; ++i)
    if (w.groups[i].mask == mask) { gi = i; break; }
  if (gi < 0) {
    gi = w.ngroups++;
    w.groups[gi] = Group{mask, 0, op, s};
  } else if (w.groups[gi].op != op) {
    fail("warp collective mismatch",
         who(t) + " called " + warp_op_name(op) + " at " + site_str(s) + " while lanes of the same mask " +
             hex(mask) + " wait in " + warp_op_name(w.groups[gi].op) + " at " + site_str(w.groups[gi].site));
  }
  Group& g = w.groups[gi];
  g.arrived |= me;
  if (g.arrived == mask) {
    Group done = g;
    remove_group(w, gi);
    complete(w, done);
    // Only __syncwarp (bar.warp.sync) orders memory among its lanes; a shuffle, vote, match or
    // reduction exchanges registers and orders nothing (PTX ISA; racecheck agrees).
    if (g_race_on && op == WarpOp::kSyncwarp) race_collective(w, mask);
    for (unsigned l = 0; l < 32; ++l)
      if ((mask >> l) & 1u && w.lanes[l] != t) wake(w.lanes[l]);
    maybe_yield();
  } else {
    block_current(Wait::kWarp, s);
  }
  if (pred) *pred = t->cpred;
  return t->cres;
}

unsigned activemask() {
  Thread* t = cur_thread();
  const Warp& w = t->block->warps[t->warp];
  uint32_t m = w.live;
  if (g_adv_activemask) m = (static_cast<uint32_t>(rng_next()) & m) | (1u << t->lane);
  return m;
}

void warp_on_exit(Thread* t) {
  Warp& w = t->block->warps[t->warp];
  w.live &= ~(1u << t->lane);
  for (int i = 0; i < w.ngroups; ++i)
    if (w.groups[i].mask & (1u << t->lane))
      fail("warp collective mask names exited lanes",
           who(t) + " exited while lanes " + hex(w.groups[i].arrived) + " wait in " +
               warp_op_name(w.groups[i].op) + "(mask " + hex(w.groups[i].mask) + ") at " +
               site_str(w.groups[i].site) + "; it will never arrive");
}

}  // namespace simt::detail
