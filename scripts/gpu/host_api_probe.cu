// scripts/gpu/host_api_probe.cu -- host cost of the CUDA runtime queries our host entries make on
// every call, on the GPU machine: median wall-clock microseconds of N calls each of
// cudaGetDeviceProperties, simt::rt::device_props, cudaDeviceGetAttribute(SM count), cudaGetDevice,
// cudaPointerGetAttributes and an empty kernel's launch (its enqueue only). 2026-12-05, H100,
// CUDA 13 / driver 580: every query 0.1-0.2 us, the launch 4.9 us (docs/performance.md, 25th pass).
//   nvcc -std=c++20 -O2 -arch=sm_90a -I. -o /tmp/host_api_probe scripts/gpu/host_api_probe.cu
//   /tmp/host_api_probe [N]
#include "simt/portable.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

__global__ void probe_empty_kernel() {}

namespace {
double median_us(int n, const std::function<void()>& f) {
  std::vector<double> t;
  for (int i = 0; i < n; ++i) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
  if (cudaFree(nullptr) != cudaSuccess) { std::fprintf(stderr, "no CUDA device\n"); return 2; }
  void* d = nullptr;
  if (cudaMalloc(&d, 4096) != cudaSuccess) return 2;
  cudaDeviceProp prop;
  simt::rt::DeviceProps dp;
  int v = 0;
  cudaPointerAttributes pa;
  std::printf("host_api_probe: median of %d calls each, wall-clock us\n", n);
  std::printf("cudaGetDeviceProperties              %8.2f\n", median_us(n, [&] { cudaGetDeviceProperties(&prop, 0); }));
  std::printf("simt::rt::device_props               %8.2f\n", median_us(n, [&] { simt::rt::device_props(&dp); }));
  std::printf("cudaDeviceGetAttribute(SM count)     %8.2f\n",
              median_us(n, [&] { cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0); }));
  std::printf("cudaGetDevice                        %8.2f\n", median_us(n, [&] { cudaGetDevice(&v); }));
  std::printf("cudaPointerGetAttributes             %8.2f\n", median_us(n, [&] { cudaPointerGetAttributes(&pa, d); }));
  std::printf("empty kernel launch (enqueue)        %8.2f\n", median_us(n, [&] { probe_empty_kernel<<<1, 32>>>(); }));
  cudaDeviceSynchronize();
  std::printf("device: %s, %d SMs\n", dp.name, dp.sm_count);
  cudaFree(d);
  return 0;
}
