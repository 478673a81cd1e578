// simt/host/mailbox.hpp -- the cluster mailbox on the emulator (host branch of simt/portable.h,
// whose header comment is the contract): mbarriers with transaction counts, st.async /
// red.async completing bytes on a rank's mbarrier, relaxed cluster arrives. Implemented in
// simt/src/mailbox.cpp; semantics and the checks it makes: docs/simt.md, "Cluster mailbox".
#pragma once

#include "simt/host/core.hpp"

namespace simt {
namespace detail {
void mbar_init(unsigned long long* bar, unsigned count, Site s);
void mbar_init_fence(Site s);
void mbar_arrive_tx(unsigned long long* bar, unsigned rank, unsigned tx, Site s);
void mbar_wait(unsigned long long* bar, unsigned parity, Site s);
// stores n 32-bit words (n = 1, 2, 4) to rank's p, then completes 4 n bytes on rank's bar
void st_async_words(void* p, unsigned rank, const unsigned* v, int n, unsigned long long* bar, Site s);
void red_async_add(void* p, unsigned rank, unsigned v, unsigned long long* bar, Site s);
int dsmem_atomic_add(int* p, unsigned rank, int v, Site s);
// kind: 0 = relaxed (orders nothing), 1 = orders the thread's own-CTA shared-memory accesses
void cluster_arrive_kind(int kind, Site s);
}  // namespace detail

inline void mbar_init(unsigned long long* bar, unsigned count, Site s = Site::here()) {
  detail::mbar_init(bar, count, s);
}
inline void mbar_init_fence(Site s = Site::here()) { detail::mbar_init_fence(s); }
inline void mbar_arrive_tx(unsigned long long* bar, unsigned rank, unsigned tx, Site s = Site::here()) {
  detail::mbar_arrive_tx(bar, rank, tx, s);
}
inline void mbar_wait(unsigned long long* bar, unsigned parity, Site s = Site::here()) {
  detail::mbar_wait(bar, parity, s);
}
inline void st_async(void* p, unsigned rank, unsigned v, unsigned long long* bar, Site s = Site::here()) {
  detail::st_async_words(p, rank, &v, 1, bar, s);
}
inline void st_async2(void* p, unsigned rank, unsigned v0, unsigned v1, unsigned long long* bar,
                      Site s = Site::here()) {
  const unsigned v[2] = {v0, v1};
  detail::st_async_words(p, rank, v, 2, bar, s);
}
inline void st_async4(void* p, unsigned rank, unsigned v0, unsigned v1, unsigned v2, unsigned v3,
                      unsigned long long* bar, Site s = Site::here()) {
  const unsigned v[4] = {v0, v1, v2, v3};
  detail::st_async_words(p, rank, v, 4, bar, s);
}
inline void red_async_add(void* p, unsigned rank, unsigned v, unsigned long long* bar, Site s = Site::here()) {
  detail::red_async_add(p, rank, v, bar, s);
}
inline int dsmem_atomic_add(int* p, unsigned rank, int v, Site s = Site::here()) {
  return detail::dsmem_atomic_add(p, rank, v, s);
}
inline void cluster_arrive_relaxed(Site s = Site::here()) { detail::cluster_arrive_kind(0, s); }
inline void cluster_arrive_smem(Site s = Site::here()) { detail::cluster_arrive_kind(1, s); }
inline void cluster_wait(Site s = Site::here()) { detail::cluster_wait(s); }
}  // namespace simt
