// tests/simt/smoke_test.cpp -- end-to-end smoke test of the host branch of simt/portable.h:
// a block reduction through shared memory, warp shuffles, atomics, dynamic shared memory and a
// 2-block cluster DSMEM exchange, under every schedule policy.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "simt/portable.h"

SIMT_KERNEL void block_sum(const int* in, int* out, int n) {
  SIMT_SHARED(int, partial, [32]);
  SIMT_SHARED(int, total, );
  const int t = static_cast<int>(threadIdx.x);
  const int i = static_cast<int>(blockIdx.x * blockDim.x) + t;
  int v = i < n ? in[i] : 0;
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  if (t == 0) total = 0;
  if (t % 32 == 0) partial[t / 32] = v;
  __syncthreads();
  if (t < 32) {
    int w = t < static_cast<int>(blockDim.x / 32) ? partial[t] : 0;
    w = __reduce_add_sync(0xffffffffu, w);
    if (t == 0) atomicAdd(&total, w);
  }
  __syncthreads();
  if (t == 0) atomicAdd(out, total);
}

SIMT_KERNEL void dyn_reverse(int* data) {
  SIMT_DYN_SHARED(int, buf);
  const unsigned t = threadIdx.x;
  buf[t] = data[blockIdx.x * blockDim.x + t];
  __syncthreads();
  data[blockIdx.x * blockDim.x + t] = buf[blockDim.x - 1 - t];
}

SIMT_KERNEL void cluster_swap(int* out) {
  SIMT_SHARED(int, mine, [64]);
  auto cluster = simt_cg::this_cluster();
  const unsigned r = cluster.block_rank();
  mine[threadIdx.x] = static_cast<int>(r * 1000 + threadIdx.x);
  cluster.sync();
  int* peer = cluster.map_shared_rank(&mine[0], (r + 1) % cluster.num_blocks());
  out[blockIdx.x * blockDim.x + threadIdx.x] = peer[threadIdx.x];
  cluster.sync();
}

static int check(bool ok, const char* what) {
  if (!ok) std::fprintf(stderr, "FAIL: %s (%s)\n", what, simt::last_report().c_str());
  return ok ? 0 : 1;
}

int main() {
  int failures = 0;
  const char* scheds[] = {"rr", "random:1", "random:77", "pct:5:3", "pct:9:1"};
  for (const char* s : scheds) {
    if (!simt::set_schedule_from_string(s)) return 2;
    const int n = 1000;
    std::vector<int> in(n);
    long expect = 0;
    for (int i = 0; i < n; ++i) expect += (in[i] = i * 7 % 13 - 3);
    int out = 0;
    simt::rt::LaunchConfig c;
    c.grid = dim3(4);
    c.block = dim3(256);
    simt::register_device_memory(in.data(), in.size() * sizeof(int));
    simt::rt::error_t e = simt::rt::launch(c, block_sum, in.data(), &out, n);
    failures += check(e == simt::rt::kSuccess && out == expect, "block_sum");

    std::vector<int> d(3 * 128);
    for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<int>(i);
    c.grid = dim3(3);
    c.block = dim3(128);
    c.dynamic_smem = 128 * sizeof(int);
    e = simt::rt::launch(c, dyn_reverse, d.data());
    bool ok = e == simt::rt::kSuccess;
    for (int b = 0; b < 3; ++b)
      for (int t = 0; t < 128; ++t) ok = ok && d[b * 128 + t] == b * 128 + 127 - t;
    failures += check(ok, "dyn_reverse");

    std::vector<int> o(4 * 64, -1);
    c.grid = dim3(4);
    c.block = dim3(64);
    c.dynamic_smem = 0;
    c.cluster = dim3(2);
    e = simt::rt::launch(c, cluster_swap, o.data());
    ok = e == simt::rt::kSuccess;
    for (int b = 0; b < 4; ++b)
      for (int t = 0; t < 64; ++t) ok = ok && o[b * 64 + t] == ((b % 2 + 1) % 2) * 1000 + t;
    failures += check(ok, "cluster_swap");
    std::printf("%-10s %s\n", s, failures ? "FAIL" : "ok");
  }
  simt::rt::LaunchConfig bad;
  bad.grid = dim3(0);
  failures += check(simt::rt::launch(bad, dyn_reverse, static_cast<int*>(nullptr)) ==
                        cudaErrorInvalidConfiguration, "zero grid rejected");
  return failures ? 1 : 0;
}
