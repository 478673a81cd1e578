// tests/simt/race_kernels.cpp -- kernels for the race-flavour tests. This TU is compiled with
// TSan instrumentation (simt_race_instrument) and linked against simt_race.
#include "simt/portable.h"

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
  c.grid = dim3(4);
  c.cluster = dim3(2);
  if (n == "cluster_exchange")
    return simt::rt::launch(c, bug ? cluster_exchange<true> : cluster_exchange<false>, out);
  if (n == "cluster_overwrite")
    return simt::rt::launch(c, bug ? cluster_overwrite<true> : cluster_overwrite<false>, out);
  return -1;
}
