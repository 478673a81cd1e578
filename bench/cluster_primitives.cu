// bench/cluster_primitives.cu -- what the synchronization and distributed-shared-memory steps of
// a 1024-thread CTA / cluster cost on this GPU, in SM cycles (clock64 on thread 0 of rank 0,
// median over launches). The Top-K v2 phases are built from these steps (docs/performance.md,
// ninth pass): __syncthreads, cluster barriers (whole and split), remote reductions into rank 0,
// rank 0's stores into every rank, a remote atomic's round trip. Not a test.
//   build/<preset>/bench/cluster_primitives   (in the build when CUDA is on)
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "bench_common.hpp"

namespace cg = cooperative_groups;

constexpr int kThreads = 1024;
constexpr int kIters = 64;

enum Step : int {
  kSyncthreads,      // __syncthreads()
  kClusterSync,      // cluster.sync()
  kArriveWait,       // barrier_arrive(); barrier_wait() (the same, split)
  kFoldRed,          // every thread of ranks != 0 adds one value into rank 0 (no return); cluster.sync()
  kFoldRed256,       // the same for 256 threads per rank
  kBcast,            // rank 0's threads < nranks store 3 ints into each rank; cluster.sync()
  kRemoteAtomicRtt,  // thread 0 of rank 1: a chain of remote atomicAdds with return (round trips)
  kRemoteLoadRtt,    // thread 0 of rank 1: a chain of dependent remote loads
  kLocalAtomicRtt,   // thread 0: a chain of local shared atomicAdds with return
  kSharedAtomic1,    // every thread: atomicAdd(&one_counter, 1) with return, then __syncthreads()
  kSteps
};
const char* kNames[] = {"__syncthreads", "cluster.sync", "arrive+wait", "fold RED 1024/rank + sync",
                        "fold RED 256/rank + sync", "bcast 3 ints + sync", "remote atomic RTT",
                        "remote load RTT", "local atomic RTT", "1024 atomics on one address + sync"};

__global__ void __launch_bounds__(kThreads, 1) prim_kernel(int step, long long* out) {
  __shared__ int hist[kThreads];
  __shared__ int bc[4];
  __shared__ int ctr;
  cg::cluster_group cl = cg::this_cluster();
  const unsigned rank = cl.block_rank();
  const int nr = static_cast<int>(cl.num_blocks());
  const int tid = threadIdx.x;
  hist[tid] = 0;
  if (tid < 4) bc[tid] = 0;
  if (tid == 0) ctr = 0;
  cl.sync();
  int* r0 = cl.map_shared_rank(hist, 0);
  int* r0c = cl.map_shared_rank(&ctr, 0);
  int acc = 0;
  long long t0 = clock64();
  for (int it = 0; it < kIters; ++it) {
    switch (step) {
      case kSyncthreads: __syncthreads(); break;
      case kClusterSync: cl.sync(); break;
      case kArriveWait: cl.barrier_arrive(); cl.barrier_wait(); break;
      case kFoldRed:
        if (rank != 0) atomicAdd(&r0[tid], 1);
        cl.sync();
        break;
      case kFoldRed256:
        if (rank != 0 && tid < 256) atomicAdd(&r0[tid], 1);
        cl.sync();
        break;
      case kBcast:
        if (rank == 0 && tid < nr) {
          int* d = cl.map_shared_rank(bc, tid);
          d[0] = it; d[1] = it + 1; d[2] = it + 2;
        }
        cl.sync();
        acc += bc[0];
        break;
      case kRemoteAtomicRtt:
        if (rank == 1 && tid == 0) acc = atomicAdd(r0c + (acc & 0), 1);
        break;
      case kRemoteLoadRtt:
        if (rank == 1 && tid == 0) acc = r0[acc & 1023];
        break;
      case kLocalAtomicRtt:
        if (tid == 0) acc = atomicAdd(&hist[acc & 1023], 0);
        break;
      case kSharedAtomic1:
        acc += atomicAdd(&ctr, 1);
        __syncthreads();
        break;
    }
  }
  long long t1 = clock64();
  cl.sync();
  const bool reporter = (step == kRemoteAtomicRtt || step == kRemoteLoadRtt) ? (rank == 1 && tid == 0) : (rank == 0 && tid == 0);
  if (reporter) out[0] = (t1 - t0) / kIters;
  if (acc == 0x7FFFFFFF) out[1] = acc;  // keep acc alive
}

int main() {
  long long* d_out;
  BENCH_CUDA(cudaMalloc(&d_out, 16));
  int khz = 0;
  BENCH_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  BENCH_CUDA(cudaFuncSetAttribute(prim_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  std::printf("cycles per step (median of 21 launches, %d iterations each, 1024 threads per CTA, clock %d MHz)\n\n",
              kIters, khz / 1000);
  const int sizes[] = {1, 2, 4, 8, 16};
  std::printf("| step |");
  for (int nr : sizes) std::printf(" cluster %d |", nr);
  std::printf("\n|---|");
  for (int i = 0; i < 5; ++i) std::printf("---:|");
  std::printf("\n");
  for (int step = 0; step < kSteps; ++step) {
    std::printf("| %s |", kNames[step]);
    for (int nr : sizes) {
      if (nr == 1 && (step == kRemoteAtomicRtt || step == kRemoteLoadRtt)) { std::printf(" - |"); continue; }
      cudaLaunchConfig_t cfg = {};
      cfg.gridDim = dim3(nr, 1, 1);
      cfg.blockDim = dim3(kThreads, 1, 1);
      cudaLaunchAttribute at[1];
      at[0].id = cudaLaunchAttributeClusterDimension;
      at[0].val.clusterDim.x = nr;
      at[0].val.clusterDim.y = 1;
      at[0].val.clusterDim.z = 1;
      cfg.attrs = at;
      cfg.numAttrs = 1;
      std::vector<long long> v;
      for (int r = 0; r < 21; ++r) {
        BENCH_CUDA(cudaLaunchKernelEx(&cfg, prim_kernel, step, d_out));
        BENCH_CUDA(cudaDeviceSynchronize());
        long long c = 0;
        BENCH_CUDA(cudaMemcpy(&c, d_out, 8, cudaMemcpyDeviceToHost));
        v.push_back(c);
      }
      std::sort(v.begin(), v.end());
      std::printf(" %lld |", v[v.size() / 2]);
    }
    std::printf("\n");
  }
  return 0;
}
