// simt/src/barrier.cpp -- __syncthreads[_count/_and/_or] counting live threads, barrier
// divergence reports, PDL bookkeeping.
#include <cstring>

#include "simt/src/internal.hpp"

namespace simt::detail {

namespace {
bool same_site(Site a, Site b) {
  return a.line == b.line && (a.file == b.file || (a.file && b.file && std::strcmp(a.file, b.file) == 0));
}

int barrier_result(const Block& b, int kind) {
  switch (kind) {
    case 1: return b.bar_count;
    case 2: return b.bar_and ? 1 : 0;
    case 3: return b.bar_or ? 1 : 0;
    default: return 0;
  }
}

const Thread* first_exited(const Block& b) {
  for (unsigned i = 0; i < b.nthreads; ++i)
    if (b.threads[i].state == TState::kDone) return &b.threads[i];
  return nullptr;
}

// Completes the current generation: every waiter gets its variant's result and is woken.
void barrier_complete(Block& b) {
  if (b.live < b.nthreads) {
    const Thread* e = first_exited(b);
    fail("barrier divergence",
         "__syncthreads at " + site_str(b.bar_site) + " in block (" + std::to_string(b.idx.x) + "," +
             std::to_string(b.idx.y) + "," + std::to_string(b.idx.z) + ") completed only because " +
             std::to_string(b.nthreads - b.live) + " thread(s) exited without reaching it (first: " +
             who(e) + ")");
  }
  for (unsigned i = 0; i < b.nthreads; ++i) {
    Thread& w = b.threads[i];
    if (w.state == TState::kBlocked && w.wait == Wait::kBarrier) {
      w.cres = static_cast<uint64_t>(barrier_result(b, w.ckind));
      wake(&w);
    }
  }
  b.bar_arrived = 0;
  ++b.bar_gen;
  if (g_race_on) race_barrier_complete(b);
}
}  // namespace

int block_barrier(int kind, int pred, Site s) {
  Thread* t = cur_thread();
  Block& b = *t->block;
  if (b.bar_arrived == 0) {
    b.bar_site = s;
    b.bar_count = 0;
    b.bar_and = true;
    b.bar_or = false;
  } else if (g_strict && !same_site(s, b.bar_site)) {
    fail("barrier divergence (strict)", who(t) + " reached __syncthreads at " + site_str(s) +
                                            " while other threads of its block wait at " +
                                            site_str(b.bar_site));
  }
  ++b.bar_arrived;
  t->ckind = kind;
  if (pred) ++b.bar_count;
  b.bar_and = b.bar_and && pred != 0;
  b.bar_or = b.bar_or || pred != 0;
  if (b.bar_arrived == b.live) {
    int r = barrier_result(b, kind);
    barrier_complete(b);
    maybe_yield();
    return r;
  }
  block_current(Wait::kBarrier, s);
  return static_cast<int>(t->cres);
}

void barrier_on_exit(Thread* t) {
  Block& b = *t->block;
  if (b.bar_arrived > 0 && b.bar_arrived == b.live) barrier_complete(b);  // reports the divergence
}

void pdl_wait(Site s) {
  Thread* t = cur_thread();
  if (g_strict && t->pre_wait_global_pc && !t->pdl_waited)
    fail("PDL: device memory accessed before SIMT_PDL_WAIT()",
         who(t) + " accessed device memory at " + symbolize_pc(t->pre_wait_global_pc) +
             " before its SIMT_PDL_WAIT() at " + site_str(s) +
             " (the previous kernel's writes are not guaranteed visible yet)");
  t->pdl_waited = true;
}
void pdl_trigger(Site) { cur("SIMT_PDL_TRIGGER"); }

}  // namespace simt::detail
