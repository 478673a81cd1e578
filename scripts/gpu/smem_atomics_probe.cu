// scripts/gpu/smem_atomics_probe.cu -- what a warp's shared-memory `atomicAdd(&h[i], 1u)` (the
// histogram update of the bf16 small top-k and Top-K v2; SASS ATOMS.POPC.INC) costs on this GPU by
// the pattern of its 32 addresses: one address; n distinct addresses in n distinct banks; n distinct
// addresses in one bank; and the bf16 kernel's two passes over bf16 randn keys (pass 1: the D-order
// high byte; pass 2: the low byte of the lanes in the k = 512 pivot's high bin, the rest to one dump
// slot), with and without a bank skew of the high half of the bins. A measurement tool, not a test.
//
// Each pattern is a table idx[j][lane] (32 instructions x 32 lanes) loaded into registers; the kernel
// repeats the 32 atomics kReps times. "single": one warp per CTA, clock64 around the loop (latency
// of one warp's dependent stream, cycles per instruction); "full": 512 threads x 3 CTAs per SM over
// every SM (the bf16 kernel's shape), kernel time by events -> SM cycles per warp instruction at the
// measured SM clock. Build and run (on the GPU machine):
//   nvcc -O3 -arch=sm_90a -o /tmp/smem_atomics_probe scripts/gpu/smem_atomics_probe.cu && /tmp/smem_atomics_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA %s: %s\n", #x, cudaGetErrorString(e_)); std::exit(2); } } while (0)

constexpr int kReps = 64;
constexpr int kBins = 1024 + 64;  // the one-bank patterns reach 31 * 32 + 31

__global__ void atoms_kernel(const uint16_t* idx, unsigned* sink, long long* cycles) {
  __shared__ unsigned h[kBins];
  for (int i = threadIdx.x; i < kBins; i += blockDim.x) h[i] = 0u;
  const int lane = threadIdx.x & 31;
  unsigned a[32];
#pragma unroll
  for (int j = 0; j < 32; ++j) a[j] = idx[j * 32 + lane];
  __syncthreads();
  const long long t0 = clock64();
  for (int r = 0; r < kReps; ++r) {
#pragma unroll
    for (int j = 0; j < 32; ++j) atomicAdd(&h[a[j]], 1u);
  }
  __syncwarp();
  const long long t1 = clock64();
  __syncthreads();
  if (threadIdx.x == 0 && cycles) cycles[blockIdx.x] = t1 - t0;
  for (int i = threadIdx.x; i < kBins; i += blockDim.x)
    if (h[i] == 0xFFFFFFFFu) sink[i] = h[i];  // keep the atomics (never true)
}

static uint16_t to_bf16(float f) {
  uint32_t u; std::memcpy(&u, &f, 4); return uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
static unsigned dkey(uint16_t x) { return x ^ ((x & 0x8000u) ? 0xFFFFu : 0x8000u); }

int main() {
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  int sms = prop.multiProcessorCount, clk_khz = 0;
  CK(cudaDeviceGetAttribute(&clk_khz, cudaDevAttrClockRate, 0));
  std::printf("%s, %d SMs, max SM clock %.0f MHz; %d reps x 32 atomics a thread\n", prop.name, sms, clk_khz / 1e3, kReps);
  std::vector<std::pair<std::string, std::vector<uint16_t>>> pats;
  auto add = [&](std::string name, auto f) {
    std::vector<uint16_t> t(32 * 32);
    for (int j = 0; j < 32; ++j) for (int l = 0; l < 32; ++l) t[j * 32 + l] = uint16_t(f(j, l));
    pats.emplace_back(std::move(name), std::move(t));
  };
  add("same address", [](int j, int) { return j; });
  for (int n : {2, 4, 8, 16, 32}) {
    add(std::to_string(n) + " addresses, distinct banks", [n](int j, int l) { return (j + l % n) % 256; });
    add(std::to_string(n) + " addresses, one bank", [n](int j, int l) { return (l % n) * 32 + j % 32; });
  }
  add("2 addresses, 16 lanes each, one bank", [](int j, int l) { return (l < 16 ? 0 : 32) + j % 32; });
  // bf16 randn keys as the kernel sees them: 32 lanes of a warp x 32 instructions, random draws.
  std::mt19937 rng(7); std::normal_distribution<float> nd;
  std::vector<unsigned> d(32 * 32);
  for (auto& v : d) v = dkey(to_bf16(nd(rng)));
  // pivot high bin of k = 512 in 16384 randn (the bin of ~1.86 = 0x3FEE: D high byte 0xBF)
  const unsigned hb = dkey(to_bf16(1.86f)) >> 8;
  add("bf16 pass 1 (D high byte)", [&](int j, int l) { return d[j * 32 + l] >> 8; });
  add("bf16 pass 1, bins >= 128 skewed by 16", [&](int j, int l) { unsigned b = d[j * 32 + l] >> 8; return b ^ ((b >> 3) & 16u); });
  add("bf16 pass 1, 2 copies by lane parity (+257)", [&](int j, int l) { return (d[j * 32 + l] >> 8) + (l & 1) * 257; });
  add("bf16 pass 2 (pivot bin's low byte, dump 256)", [&](int j, int l) {
    unsigned x = d[j * 32 + l] ^ (hb << 8); return x < 256 ? x : 256; });
  add("bf16 pass 2, dump slot per lane (256+lane)", [&](int j, int l) {
    unsigned x = d[j * 32 + l] ^ (hb << 8); return x < 256 ? x : 256 + 1 + l; });
  int inbin = 0; for (unsigned v : d) inbin += (v >> 8) == hb;
  std::printf("pass-2 lanes in the pivot's high bin 0x%02X: %d of 1024\n", hb, inbin);

  uint16_t* didx; unsigned* sink; long long* cyc;
  CK(cudaMalloc(&didx, 32 * 32 * 2)); CK(cudaMalloc(&sink, kBins * 4)); CK(cudaMalloc(&cyc, 8 * 4096));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::printf("%-48s %10s %14s %12s\n", "pattern", "distinct/i", "single cyc/i", "full cyc/i");
  for (auto& [name, t] : pats) {
    double distinct = 0;
    for (int j = 0; j < 32; ++j) {
      std::vector<int> s(t.begin() + j * 32, t.begin() + j * 32 + 32);
      std::sort(s.begin(), s.end()); distinct += double(std::unique(s.begin(), s.end()) - s.begin());
    }
    CK(cudaMemcpy(didx, t.data(), t.size() * 2, cudaMemcpyHostToDevice));
    atoms_kernel<<<1, 32>>>(didx, sink, cyc); CK(cudaDeviceSynchronize());
    atoms_kernel<<<1, 32>>>(didx, sink, cyc); CK(cudaDeviceSynchronize());
    long long c1 = 0; CK(cudaMemcpy(&c1, cyc, 8, cudaMemcpyDeviceToHost));
    const int grid = 3 * sms;
    atoms_kernel<<<grid, 512>>>(didx, sink, nullptr); CK(cudaDeviceSynchronize());
    float best = 1e30f;
    for (int r = 0; r < 5; ++r) {
      CK(cudaEventRecord(e0)); atoms_kernel<<<grid, 512>>>(didx, sink, nullptr); CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); best = std::min(best, ms);
    }
    // per SM: 3 CTAs x 16 warps x kReps x 32 warp instructions in `best` ms at the max SM clock
    const double per_sm = 3.0 * 16 * kReps * 32;
    const double full = best * 1e-3 * clk_khz * 1e3 / per_sm;
    std::printf("%-48s %10.1f %14.2f %12.2f\n", name.c_str(), distinct / 32, double(c1) / (kReps * 32), full);
  }
  return 0;
}
