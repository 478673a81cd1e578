// scripts/gpu/cluster_barrier_probe.cu -- device time of one launch of a 512-thread kernel with
// a cluster of 1, 2, 4 or 8 CTAs a row (B rows), doing 0..3 cluster barriers (cluster.sync(),
// the split bf16 kernel's) or CTA barriers (__syncthreads), each after one shared atomic a thread
// and, with DSMEM on, one distributed-shared-memory read of rank 0 by warp 0 (the histogram sum's
// pattern). Timed as the benches time a kernel: a 50 us spin kernel ahead of the start event
// hides the host's enqueue; the median of N launches. Also the PTX spellings of the barrier
// (relaxed arrive, shared-memory-restricted fences) and a DSMEM message-passing litmus. Why the
// split bf16 kernel lost (docs/performance.md, twenty-seventh pass). bench/cluster_primitives.cu
// times the same steps in SM cycles inside one launch (ninth pass); this one at launch level.
//   nvcc -std=c++17 -O3 -arch=sm_90a -o /tmp/cluster_barrier_probe scripts/gpu/cluster_barrier_probe.cu
//   /tmp/cluster_barrier_probe [N]
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

__global__ void spin_kernel(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

// One cluster barrier, spelled as PTX: default semantics (arrive.release / wait.acquire, what
// cluster.sync() issues) or a relaxed arrive (no ordering of earlier memory accesses), with or
// without a cluster-scope fence ahead of it.
// 6: the shared-memory-restricted fences of PTX ISA 8.6 around a relaxed arrive (release of
// shared::cta, acquire of shared::cluster), 7: a CTA-scope fence (MEMBAR.CTA) + relaxed arrive.
__device__ __forceinline__ void cluster_barrier_ptx(int kind) {
  if (kind == 5) asm volatile("fence.acq_rel.cluster;" ::: "memory");
  if (kind == 6) asm volatile("fence.release.sync_restrict::shared::cta.cluster;" ::: "memory");
  if (kind == 7) __threadfence_block();
  if (kind == 3)
    asm volatile("barrier.cluster.arrive.aligned;" ::: "memory");
  else
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  if (kind == 6) asm volatile("fence.acquire.sync_restrict::shared::cluster.cluster;" ::: "memory");
}

// A message-passing litmus over DSMEM: every iteration each CTA stores a fresh value into all 256
// words of its shared array (plain stores and shared atomics), barrier `kind`, reads its neighbour
// rank's 256 words, counts the stale ones into bad[0], barrier again. Zero stale reads over many
// iterations is evidence, not proof, that a barrier orders the stores for the remote reader.
__global__ void __launch_bounds__(512) litmus_kernel(int iters, int kind, unsigned* bad) {
  __shared__ unsigned h[256];
  cg::cluster_group cl = cg::this_cluster();
  const unsigned r = cl.block_rank(), nr = cl.num_blocks();
  const unsigned* peer = cl.map_shared_rank(h, (r + 1) % nr);
  unsigned stale = 0u;
  if (threadIdx.x < 256) h[threadIdx.x] = 0u;
  cl.sync();
  for (int it = 1; it <= iters; ++it) {
    if (threadIdx.x < 256) h[threadIdx.x] = 2u * it;  // a store, then an atomic on the same word
    if (threadIdx.x < 256) atomicAdd(&h[threadIdx.x], 1u);
    if (kind >= 3) cluster_barrier_ptx(kind); else cl.sync();
    if (threadIdx.x >= 256 && peer[threadIdx.x - 256] != 2u * it + 1u) ++stale;
    if (kind >= 3) cluster_barrier_ptx(kind); else cl.sync();
  }
  if (stale) atomicAdd(bad, stale);
}

// kind 0: __syncthreads, 1: cluster.sync(), 2: cluster.sync() + a DSMEM read of rank 0 by warp 0,
// 3: PTX arrive (release) + wait, 4: PTX arrive.relaxed + wait, 5: fence.acq_rel.cluster + 4
__global__ void __launch_bounds__(512) barrier_kernel(int barriers, int kind, unsigned* sink) {
  __shared__ unsigned h[256];
  if (threadIdx.x < 256) h[threadIdx.x] = 0u;
  __syncthreads();
  cg::cluster_group cl = cg::this_cluster();
  unsigned acc = 0u;
  for (int i = 0; i < barriers; ++i) {
    atomicAdd(&h[(threadIdx.x * 7 + i) & 255], 1u);
    if (kind == 0) {
      __syncthreads();
    } else if (kind >= 3) {
      cluster_barrier_ptx(kind);
    } else {
      cl.sync();
      if (kind == 2 && threadIdx.x < 32) {
        const unsigned* r0 = cl.map_shared_rank(h, 0);
        acc += r0[threadIdx.x * 8];
      }
      __syncthreads();
    }
  }
  if (kind >= 3) cluster_barrier_ptx(kind);  // no CTA leaves while another may read its shared memory
  else if (kind != 0) cl.sync();
  if (acc == 0x9E3779B9u) sink[0] = acc;
}

static void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// rows clusters of `cluster` 512-thread CTAs (attr: the storage of the cluster-size attribute)
static cudaLaunchConfig_t cluster_launch(int rows, int cluster, cudaLaunchAttribute* attr) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(rows * cluster);
  cfg.blockDim = dim3(512);
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = cluster;
  attr->val.clusterDim.y = 1;
  attr->val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

static double time_us(int n, int rows, int cluster, int barriers, int kind, unsigned* sink) {
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "event");
  check(cudaEventCreate(&b), "event");
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = cluster_launch(rows, cluster, &attr);
  std::vector<float> t;
  for (int i = 0; i < n + 3; ++i) {
    spin_kernel<<<1, 32>>>(100000);  // ~50 us at 1.98 GHz
    check(cudaEventRecord(a), "record");
    check(cudaLaunchKernelEx(&cfg, barrier_kernel, barriers, kind, sink), "launch");
    check(cudaEventRecord(b), "record");
    check(cudaEventSynchronize(b), "sync");
    float ms = 0.f;
    check(cudaEventElapsedTime(&ms, a, b), "elapsed");
    if (i >= 3) t.push_back(ms * 1000.f);
  }
  std::sort(t.begin(), t.end());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return t[t.size() / 2];
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 200;
  unsigned* sink = nullptr;
  check(cudaMalloc(&sink, sizeof(unsigned)), "malloc");
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "props");
  std::printf("# %s, %d SMs; median of %d launches, us (spin kernel ahead of the start event)\n",
              prop.name, prop.multiProcessorCount, n);
  std::printf("| rows | cluster | barriers | __syncthreads | cluster.sync | cluster.sync + DSMEM read |"
              " PTX arrive+wait | PTX arrive.relaxed+wait | fence.acq_rel.cluster + relaxed |"
              " sync_restrict fences + relaxed | fence.cta + relaxed |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int rows : {1, 64}) {
    for (int cluster : {1, 2, 4, 8}) {
      for (int barriers : {0, 1, 3}) {
        std::printf("| %d | %d | %d |", rows, cluster, barriers);
        for (int kind = 0; kind < 8; ++kind) std::printf(" %.2f |", time_us(n, rows, cluster, barriers, kind, sink));
        std::printf("\n");
      }
    }
  }
  // the litmus: 132 clusters of 2 / 4 / 8, 20000 iterations, each barrier kind (0 = cluster.sync)
  std::printf("\n| litmus: cluster | kind | stale reads of 256 x iterations x CTAs |\n|---:|---:|---:|\n");
  for (int cluster : {2, 4, 8}) {
    for (int kind : {0, 3, 4, 6, 7}) {
      check(cudaMemset(sink, 0, sizeof(unsigned)), "memset");
      cudaLaunchAttribute attr;
      const cudaLaunchConfig_t cfg = cluster_launch(132 / cluster, cluster, &attr);
      check(cudaLaunchKernelEx(&cfg, litmus_kernel, 20000, kind, sink), "litmus");
      check(cudaDeviceSynchronize(), "litmus sync");
      unsigned bad = 0u;
      check(cudaMemcpy(&bad, sink, sizeof(unsigned), cudaMemcpyDeviceToHost), "copy");
      std::printf("| %d | %d | %u |\n", cluster, kind, bad);
    }
  }
  return 0;
}
