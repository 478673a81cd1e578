// tests/simt/bench.cpp -- emulator speed (not a CTest): ns per scheduling point, us per
// 1024-thread barrier, launches/s of a small Top-K-like kernel (one 256-thread block, bitonic
// sort in shared memory + warp shuffles), in process CPU time.
// Usage: simt_bench [rr | random:SEED | pct:SEED:DEPTH].
#include <time.h>
#include <cstdio>
#include <vector>

#include "simt/portable.h"

SIMT_KERNEL void warp_ping(int iters, int* out) {
  int acc = 0;
  for (int i = 0; i < iters; ++i) {
    __syncwarp();
    ++acc;
  }
  out[threadIdx.x] = acc;
}

SIMT_KERNEL void barrier_loop(int iters, int* out) {
  int acc = 0;
  for (int i = 0; i < iters; ++i) {
    __syncthreads();
    ++acc;
  }
  out[threadIdx.x] = acc;
}

// Top-k of 256 floats (k = 16): bitonic sort (descending) in shared memory, 36 barriers.
SIMT_KERNEL void small_topk(const float* in, float* out, int k) {
  SIMT_SHARED(float, v, [256]);
  const unsigned t = threadIdx.x;
  v[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned size = 2; size <= 256; size <<= 1) {
    for (unsigned stride = size >> 1; stride > 0; stride >>= 1) {
      const unsigned p = t ^ stride;
      if (p > t) {
        const bool desc = (t & size) == 0;
        const float a = v[t], b = v[p];
        if ((a < b) == desc) {
          v[t] = b;
          v[p] = a;
        }
      }
      __syncthreads();
    }
  }
  float best = v[t];
  best = __shfl_sync(0xffffffffu, best, 0) >= best ? best : best;  // a warp collective per thread
  if (static_cast<int>(t) < k) out[blockIdx.x * k + t] = best;
}

// Process CPU time: the CI machines are shared, wall time would measure the neighbours.
static double now() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

int main(int argc, char** argv) {
  if (argc > 1 && !simt::set_schedule_from_string(argv[1])) return 2;
  std::vector<int> out(1024);
  simt::rt::LaunchConfig c;
  // 1. scheduling points: 32 threads x N __syncwarp
  c.block = dim3(32);
  const int n = 20000;
  simt::reset_stats();
  double t0 = now();
  simt::rt::launch(c, warp_ping, n, out.data());
  double dt = now() - t0;
  std::printf("syncwarp (32 lanes): %.1f ns per scheduling point (per thread per __syncwarp), %llu switches\n",
              dt * 1e9 / (32.0 * n), static_cast<unsigned long long>(simt::stats().switches));
  // 2. 1024-thread barrier
  c.block = dim3(1024);
  const int nb = 500;
  t0 = now();
  simt::rt::launch(c, barrier_loop, nb, out.data());
  dt = now() - t0;
  std::printf("__syncthreads (1024 threads): %.1f us per barrier (%.1f ns per thread arrival)\n", dt * 1e6 / nb,
              dt * 1e9 / (nb * 1024.0));
  // 3. launch overhead of a tiny kernel
  c.block = dim3(32);
  const int nl = 20000;
  t0 = now();
  for (int i = 0; i < nl; ++i) simt::rt::launch(c, warp_ping, 0, out.data());
  dt = now() - t0;
  std::printf("empty-ish launch (1 block x 32 threads): %.2f us per launch\n", dt * 1e6 / nl);
  // 4. small top-k: one 256-thread block, 36 barriers
  std::vector<float> in(256), res(16);
  for (int i = 0; i < 256; ++i) in[i] = static_cast<float>((i * 7919) % 1000) * 0.5f;
  c.block = dim3(256);
  const int nt = 2000;
  t0 = now();
  for (int i = 0; i < nt; ++i) simt::rt::launch(c, small_topk, static_cast<const float*>(in.data()), res.data(), 16);
  dt = now() - t0;
  std::printf("small top-k (256 threads, 36 barriers): %.1f us per launch = %.0f launches/s (top1 %.1f)\n",
              dt * 1e6 / nt, nt / dt, res[0]);
  return 0;
}
