// simt/src/cluster.cpp -- thread-block clusters: split arrive/wait barrier over live threads,
// map_shared_rank (DSMEM) and the schedule-independent lifetime checks: a block must not exit
// while a peer may still access its shared memory, no DSMEM access to an exited block, and no
// DSMEM access before the first completed cluster barrier.
#include <algorithm>

#include "simt/src/internal.hpp"

namespace simt::detail {

namespace {
uint32_t g_min_exited_arrives = UINT32_MAX;  // over exited threads of the running cluster

std::string block_str(const Block& b) {
  return "block (" + std::to_string(b.idx.x) + "," + std::to_string(b.idx.y) + "," + std::to_string(b.idx.z) +
         ") [cluster rank " + std::to_string(b.rank) + "]";
}

void cluster_complete() {
  Launch& L = *g_launch;
  if (g_min_exited_arrives < L.cl_gen + 1) {
    fail("cluster barrier divergence",
         "a cluster barrier (phase " + std::to_string(L.cl_gen) +
             ") completed only because threads exited without arriving on it");
  }
  ++L.cl_gen;
  L.cl_arrived = 0;
  for (Block& b : L.blocks)
    for (unsigned i = 0; i < b.nthreads; ++i) {
      Thread& w = b.threads[i];
      if (w.state == TState::kBlocked && w.wait == Wait::kClusterWait && w.cl_arrive_gen < L.cl_gen) wake(&w);
    }
}
}  // namespace

void cluster_arrive(Site s) { cluster_arrive_as(2, s); }

void cluster_arrive_as(int kind, Site s) {
  Thread* t = cur_thread();
  Launch& L = *g_launch;
  if (t->cl_pending)
    fail("cluster barrier misuse", who(t) + " called barrier_arrive twice without barrier_wait at " + site_str(s));
  t->cl_pending = true;
  t->cl_arrive_gen = L.cl_gen;
  if (g_race_on) race_cluster_arrive(t, kind);
  ++t->cl_arrives;
  ++L.cl_arrived;
  if (L.cl_arrived == L.cl_live) cluster_complete();
}

void cluster_wait(Site s) {
  Thread* t = cur_thread();
  Launch& L = *g_launch;
  if (!t->cl_pending)
    fail("cluster barrier misuse", who(t) + " called barrier_wait without a preceding barrier_arrive at " + site_str(s));
  t->cl_pending = false;
  if (L.cl_gen > t->cl_arrive_gen) {
    maybe_yield();
  } else {
    block_current(Wait::kClusterWait, s);
  }
  ++t->cl_waits;
  if (g_race_on) race_cluster_waited(t);
}

void cluster_on_exit(Thread* t) {
  Launch& L = *g_launch;
  // an arrival without wait stays counted for its phase; the thread no longer counts as live
  if (t->cl_pending) --L.cl_arrived;
  g_min_exited_arrives = std::min(g_min_exited_arrives, t->cl_arrives);
  if (L.cl_arrived > 0 && L.cl_arrived == L.cl_live) cluster_complete();
}

void cluster_on_block_exit(Block& b) {
  if (b.remote_phase >= 0 && static_cast<uint64_t>(b.remote_phase) >= b.min_waits) {
    const Thread* m = b.remote_thread;
    fail("cluster shared-memory lifetime",
         block_str(b) + " exited while " + who(m) + " may still access its shared memory: it was mapped by "
             "map_shared_rank at " + site_str(b.remote_site) +
             " with no cluster barrier completed by both blocks in between (missing cluster.sync() before exit?)");
  }
}

void* cluster_map_shared(const void* p, unsigned rank, Site s) {
  Thread* t = cur_thread();
  Launch& L = *g_launch;
  Block& me = *t->block;
  if (rank >= L.bpc)
    fail("map_shared_rank rank out of range",
         who(t) + " asked for rank " + std::to_string(rank) + " of a " + std::to_string(L.bpc) +
             "-block cluster at " + site_str(s));
  const char* c = static_cast<const char*>(p);
  Block& peer = L.blocks[rank];
  ptrdiff_t off = 0;
  bool dyn = false;
  if (c >= me.arena && c < me.arena + kArenaBytes) {
    off = c - me.arena;
  } else if (me.dyn && c >= me.dyn && c <= me.dyn + me.dyn_size) {
    off = c - me.dyn;
    dyn = true;
  } else {
    fail("map_shared_rank on a non-shared address",
         who(t) + " passed a pointer that is not in its block's shared memory at " + site_str(s));
  }
  if (&peer != &me && peer.exited)
    fail("cluster shared-memory use after exit",
         who(t) + " maps the shared memory of " + block_str(peer) + ", which has already exited, at " + site_str(s));
  char* out = (dyn ? peer.dyn : peer.arena) + off;
  if (&peer == &me) return out;
  if (g_dsmem_sync_check && t->cl_waits == 0)
    fail("DSMEM access before cluster.sync",
         who(t) + " maps the shared memory of " + block_str(peer) + " at " + site_str(s) +
             " before completing any cluster barrier: the peer block may not have started (or initialised it)");
  if (static_cast<int64_t>(t->cl_arrives) >= peer.remote_phase) {
    peer.remote_phase = t->cl_arrives;
    peer.remote_site = s;
    peer.remote_thread = t;
  }
  return out;
}

unsigned cluster_block_rank() { return cur_thread()->block->rank; }
unsigned cluster_num_blocks() { cur("this_cluster()"); return g_launch->bpc; }
dim3 cluster_dims() { cur("this_cluster()"); return g_launch->cfg.cluster; }
uint3 cluster_block_index() { return cur_thread()->block->cl_idx; }

void cluster_launch_begin() { g_min_exited_arrives = UINT32_MAX; }

}  // namespace simt::detail
