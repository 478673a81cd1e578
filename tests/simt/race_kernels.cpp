// tests/simt/race_kernels.cpp -- kernels for the race-flavour tests. This TU is compiled with
// TSan instrumentation (simt_race_instrument) and linked against simt_race.
#include "simt/portable.h"
#include "tests/simt/mailbox_setup.hpp"

namespace race_kernels {

template <bool kBug>
SIMT_KERNEL void neighbour(int* out) {  // missing __syncthreads between write and neighbour read
  SIMT_SHARED(int, s, [64]);
  const unsigned t = threadIdx.x;
  s[t] = static_cast<int>(t);
  if (!kBug) __syncthreads();
  out[t] = s[(t + 1) % 64];
}

template <bool kBug>
SIMT_KERNEL void war_hazard(int* out) {  // write-after-read: missing second barrier in a loop
  SIMT_SHARED(int, s, [64]);
  const unsigned t = threadIdx.x;
  int acc = 0;
  for (int it = 0; it < 3; ++it) {
    s[t] = it * 100 + static_cast<int>(t);
    __syncthreads();
    acc += s[63 - t];
    if (!kBug) __syncthreads();
  }
  out[t] = acc;
}

template <bool kBug>
SIMT_KERNEL void warp_exchange(int* out) {  // warp-synchronous exchange, needs __syncwarp
  SIMT_SHARED(int, s, [32]);
  const unsigned lane = threadIdx.x;
  s[lane] = static_cast<int>(lane) * 3;
  if (!kBug) __syncwarp();
  int v = s[31 - lane];
  v += __shfl_xor_sync(0xffffffffu, v, 1);
  out[lane] = v;
}

// Lanes read a word that lane 0 then overwrites, with a reduction between them (it orders no
// memory); kReread: lane 0 reads the word again last, and the others' reads must still be seen.
template <bool kBug, bool kReread>
SIMT_KERNEL void warp_reduce_order(int* out) {
  SIMT_SHARED(int, s, );
  if (threadIdx.x == 0) s = 5;
  __syncthreads();
  const int sum = __reduce_add_sync(0xffffffffu, s + static_cast<int>(threadIdx.x));
  if (!kBug) __syncwarp();
  if (threadIdx.x == 0) s = kReread ? s + sum : sum;
  __syncthreads();
  out[threadIdx.x] = s;
}

SIMT_KERNEL void shared_atomics(int* out) {  // atomics never race with atomics
  SIMT_SHARED(int, counter, );
  if (threadIdx.x == 0) counter = 0;
  __syncthreads();
  atomicAdd(&counter, 1);
  __syncthreads();
  if (threadIdx.x == 0) out[0] = counter;
}

template <bool kBug>
SIMT_KERNEL void cluster_exchange(int* out) {  // DSMEM read without the final cluster.sync
  SIMT_SHARED(int, s, [32]);
  auto cl = simt_cg::this_cluster();
  const unsigned r = cl.block_rank();
  s[threadIdx.x] = static_cast<int>(r * 10 + threadIdx.x);
  cl.sync();
  const int* peer = cl.map_shared_rank(&s[0], (r + 1) % cl.num_blocks());
  out[blockIdx.x * 32 + threadIdx.x] = peer[threadIdx.x];
  if (!kBug) cl.sync();
}

template <bool kBug>
SIMT_KERNEL void cluster_overwrite(int* out) {  // peer overwrites its smem while others read it
  SIMT_SHARED(int, s, [32]);
  auto cl = simt_cg::this_cluster();
  const unsigned r = cl.block_rank();
  s[threadIdx.x] = static_cast<int>(r);
  cl.sync();
  const int* peer = cl.map_shared_rank(&s[0], (r + 1) % cl.num_blocks());
  const int v = peer[threadIdx.x];
  if (!kBug) cl.sync();
  s[threadIdx.x] = v + 100;  // overwrites what the previous rank may still be reading
  cl.sync();
  out[blockIdx.x * 32 + threadIdx.x] = s[threadIdx.x];
}

template <bool kBug>
SIMT_KERNEL void pdl_consumer(int* out) {  // reads the producer's output before griddepcontrol.wait
  int v = 0;
  if (kBug) v = out[threadIdx.x];
  SIMT_PDL_WAIT();
  if (!kBug) v = out[threadIdx.x];
  out[threadIdx.x] = v + 1;
  SIMT_PDL_TRIGGER();
}

// ---- cluster mailbox (simt/race/race_mailbox.cpp) ------------------------------------------
template <bool kBug>
SIMT_KERNEL void mbox_read(int* out) {  // rank 1 st.async's into rank 0; rank 0 reads before the wait
  SIMT_SHARED(unsigned long long, bar, );
  SIMT_SHARED(unsigned, slot, [32]);
  auto cl = simt_cg::this_cluster();
  const unsigned r = cl.block_rank(), t = threadIdx.x;
  slot[t] = 0;
  mbox_setup(&bar);
  if (r == 1) simt::st_async(&slot[t], 0, 100 + t, &bar);
  if (r == 0) {
    if (t == 0) simt::mbar_arrive_tx(&bar, 0, 32 * 4);
    unsigned v = kBug ? slot[t] : 0;
    simt::mbar_wait(&bar, 0);
    if (!kBug) v = slot[t];
    out[t] = static_cast<int>(v);
  }
}

template <bool kBug>
SIMT_KERNEL void mbox_read_in_flight(int* out) {  // the read is after the issue, before completion
  SIMT_SHARED(unsigned long long, bar, );
  SIMT_SHARED(unsigned, slot, [32]);
  auto cl = simt_cg::this_cluster();
  const unsigned r = cl.block_rank(), t = threadIdx.x;
  slot[t] = 0;
  mbox_setup(&bar);
  if (r == 1) simt::st_async(&slot[t], 0, 100 + t, &bar);
  cl.sync();
  if (r == 0) {
    unsigned v = kBug ? slot[t] : 0;
    __syncthreads();
    if (t == 0) simt::mbar_arrive_tx(&bar, 0, 32 * 4);
    simt::mbar_wait(&bar, 0);
    if (!kBug) v = slot[t];
    out[t] = static_cast<int>(v);
  }
}

template <bool kBug>
SIMT_KERNEL void mbox_waiter_then_barrier(int* out) {  // one thread waits, the block reads
  SIMT_SHARED(unsigned long long, bar, );
  SIMT_SHARED(unsigned, acc, [32]);
  auto cl = simt_cg::this_cluster();
  const unsigned r = cl.block_rank(), t = threadIdx.x;
  acc[t] = 0;
  mbox_setup(&bar);
  if (r == 1) simt::red_async_add(&acc[t], 0, t, &bar);
  if (r == 0) {
    atomicAdd(&acc[t], 1000u);  // a local atomic on words red.async adds to: no race
    if (t == 0) {
      simt::mbar_arrive_tx(&bar, 0, 32 * 4);
      simt::mbar_wait(&bar, 0);
    }
    if (!kBug) __syncthreads();  // orders the other threads after thread 0's wait
    out[t] = static_cast<int>(acc[t]);
  }
}

// Rank 1 writes rank 0's buffer (DSMEM) or its own, then arrives with `kind` (0 relaxed, 1 own-CTA
// smem fence, 2 full); rank 0 reads it after the wait.
template <int kKind, bool kRemoteWrite>
SIMT_KERNEL void mbox_arrive_kind(int* out) {
  SIMT_SHARED(int, buf, [32]);
  auto cl = simt_cg::this_cluster();
  const unsigned r = cl.block_rank(), t = threadIdx.x;
  buf[t] = 0;
  cl.sync();
  if (r == 1) {
    if (kRemoteWrite) cl.map_shared_rank(&buf[0], 0)[t] = 7;
    else buf[t] = 7;
  }
  if (kKind == 0) simt::cluster_arrive_relaxed();
  if (kKind == 1) simt::cluster_arrive_smem();
  if (kKind == 2) cl.barrier_arrive();
  simt::cluster_wait();
  if (r == 0) out[t] = kRemoteWrite ? buf[t] : cl.map_shared_rank(&buf[0], 1)[t];
  cl.sync();
}

// Rank 1 st.async's into rank 0; rank 0's thread 0 alone waits, then every thread arrives on a
// cluster barrier of `kind`; warp 1 of rank 0 (or rank 1 through DSMEM) reads after the wait.
template <int kKind, bool kRemoteReader>
SIMT_KERNEL void mbox_release(int* out) {
  SIMT_SHARED(unsigned long long, bar, );
  SIMT_SHARED(unsigned, slot, [32]);
  auto cl = simt_cg::this_cluster();
  const unsigned r = cl.block_rank(), t = threadIdx.x;
  if (t < 32) slot[t] = 0;
  mbox_setup(&bar);
  if (r == 1 && t < 32) simt::st_async(&slot[t], 0, 5 * t, &bar);
  if (r == 0 && t == 0) {
    simt::mbar_arrive_tx(&bar, 0, 32 * 4);
    simt::mbar_wait(&bar, 0);
  }
  if (kKind == 0) simt::cluster_arrive_relaxed();
  else simt::cluster_arrive_smem();
  simt::cluster_wait();
  if (kRemoteReader && r == 1 && t < 32) out[t] = static_cast<int>(cl.map_shared_rank(&slot[0], 0)[t]);
  if (!kRemoteReader && r == 0 && t >= 32) out[t] = static_cast<int>(slot[t - 32]);
  cl.sync();
}

// Every thread of both ranks reserves a slot in rank 0's list (dsmem_atomic_add) and st.async's.
// Buggy twin (Top-K v2's first mailbox, stop 49): after the wait rank 0 writes its counter, which
// nothing orders after rank 1's atomics (the mbarrier orders only the st.async bytes).
template <bool kBug>
SIMT_KERNEL void mbox_reserve(int* out) {
  SIMT_SHARED(unsigned long long, bar, );
  SIMT_SHARED(int, count, );
  SIMT_SHARED(unsigned, list, [128]);
  auto cl = simt_cg::this_cluster();
  const unsigned r = cl.block_rank(), t = threadIdx.x;
  if (t == 0) count = 0;
  mbox_setup(&bar);
  if (r == 0 && t == 0) simt::mbar_arrive_tx(&bar, 0, 2 * blockDim.x * 4);
  simt::st_async(&list[simt::dsmem_atomic_add(&count, 0, 1)], 0, r * 100 + t, &bar);
  if (r == 0) {
    simt::mbar_wait(&bar, 0);
    for (unsigned i = t; i < 2 * blockDim.x; i += blockDim.x) out[i] = static_cast<int>(list[i]);
    if (kBug && t == 0) count = static_cast<int>(2 * blockDim.x);
  }
}

// Rank 1 sends a round per phase into one slot array of rank 0; rank 0 frees the slots by a
// cluster barrier, arriving with cluster_arrive_smem (correct: it read its own shared memory)
// or cluster_arrive_relaxed (buggy: the next round's stores race with its reads).
template <bool kBug>
SIMT_KERNEL void mbox_rounds(int* out) {
  SIMT_SHARED(unsigned long long, bar, );
  SIMT_SHARED(unsigned, slot, [32]);
  auto cl = simt_cg::this_cluster();
  const unsigned r = cl.block_rank(), t = threadIdx.x;
  mbox_setup(&bar);
  unsigned sum = 0;
  for (unsigned it = 0; it < 4; ++it) {
    if (r == 1) simt::st_async(&slot[t], 0, it * 32 + t, &bar);
    if (r == 0) {
      if (t == 0) simt::mbar_arrive_tx(&bar, 0, 32 * 4);
      simt::mbar_wait(&bar, it & 1u);
      sum += slot[t];
    }
    if (kBug) simt::cluster_arrive_relaxed();
    else simt::cluster_arrive_smem();
    simt::cluster_wait();
  }
  if (r == 0) out[t] = static_cast<int>(sum);
}

}  // namespace race_kernels

// Launch wrappers (names free of templates for the uninstrumented driver).
int race_launch(const char* name, bool bug, int* out) {
  using namespace race_kernels;
  simt::rt::LaunchConfig c;
  c.block = dim3(64);
  const std::string n = name;
  if (n == "neighbour") return simt::rt::launch(c, bug ? neighbour<true> : neighbour<false>, out);
  if (n == "war_hazard") return simt::rt::launch(c, bug ? war_hazard<true> : war_hazard<false>, out);
  if (n == "shared_atomics") return simt::rt::launch(c, shared_atomics, out);
  c.block = dim3(32);
  if (n == "pdl_consumer") return simt::rt::launch(c, bug ? pdl_consumer<true> : pdl_consumer<false>, out);
  if (n == "warp_exchange") return simt::rt::launch(c, bug ? warp_exchange<true> : warp_exchange<false>, out);
  if (n == "warp_reduce_order")
    return simt::rt::launch(c, bug ? warp_reduce_order<true, false> : warp_reduce_order<false, false>, out);
  if (n == "warp_reread")
    return simt::rt::launch(c, bug ? warp_reduce_order<true, true> : warp_reduce_order<false, true>, out);
  c.grid = dim3(4);
  c.cluster = dim3(2);
  if (n == "cluster_exchange")
    return simt::rt::launch(c, bug ? cluster_exchange<true> : cluster_exchange<false>, out);
  if (n == "cluster_overwrite")
    return simt::rt::launch(c, bug ? cluster_overwrite<true> : cluster_overwrite<false>, out);
  if (n == "mbox_read") return simt::rt::launch(c, bug ? mbox_read<true> : mbox_read<false>, out);
  if (n == "mbox_read_in_flight")
    return simt::rt::launch(c, bug ? mbox_read_in_flight<true> : mbox_read_in_flight<false>, out);
  if (n == "mbox_waiter_then_barrier")
    return simt::rt::launch(c, bug ? mbox_waiter_then_barrier<true> : mbox_waiter_then_barrier<false>, out);
  // buggy twin: the arrive kind does not cover the write; correct twin: cg barrier_arrive
  if (n == "mbox_remote_kind0")
    return simt::rt::launch(c, bug ? mbox_arrive_kind<0, true> : mbox_arrive_kind<2, true>, out);
  if (n == "mbox_remote_kind1")
    return simt::rt::launch(c, bug ? mbox_arrive_kind<1, true> : mbox_arrive_kind<2, true>, out);
  // correct twin: own-CTA write before cluster_arrive_smem; buggy twin: cluster_arrive_relaxed
  if (n == "mbox_own_kind1")
    return simt::rt::launch(c, bug ? mbox_arrive_kind<0, false> : mbox_arrive_kind<1, false>, out);
  if (n == "mbox_reserve") return simt::rt::launch(c, bug ? mbox_reserve<true> : mbox_reserve<false>, out);
  if (n == "mbox_rounds") return simt::rt::launch(c, bug ? mbox_rounds<true> : mbox_rounds<false>, out);
  c.block = dim3(64);  // buggy twins: a relaxed arrive does not pass on what thread 0 observed
  if (n == "mbox_applied_local")
    return simt::rt::launch(c, bug ? mbox_release<0, false> : mbox_release<1, false>, out);
  if (n == "mbox_applied_remote")
    return simt::rt::launch(c, bug ? mbox_release<0, true> : mbox_release<1, true>, out);
  return -1;
}
