// tests/harness/fake_cuda_plugin.cu -- a tiny CUDA-memory plugin that misbehaves on purpose, for the
// GPU check of `dsv4-harness repro` isolation (scripts/gpu/harness_isolation.sh builds it with nvcc;
// it is not part of the CMake build). Only the paged Top-K v2 entry exists. For cases with
// batch >= 3 it faults (FAKE_CUDA_FAULT=1: a kernel writes to an invalid address, poisoning the
// context; FAKE_CUDA_FAULT=2: a kernel that never ends); smaller cases get a kernel that writes -1
// everywhere (a wrong answer, but a clean context).
#include <cuda_runtime.h>

#include <cstring>

#include "dsv4/indexer_abi.h"
#include "fake_caps.hpp"

#ifndef FAKE_CUDA_FAULT
#define FAKE_CUDA_FAULT 1
#endif

__global__ void fake_bad_write(int* p) { p[threadIdx.x] = 1; }
__global__ void fake_spin(volatile int* flag) {
  while (*flag == 0) {}
}
__global__ void fake_fill(int32_t* out, int64_t rows, int64_t k, int64_t stride) {
  for (int64_t i = threadIdx.x; i < rows * k; i += blockDim.x) out[(i / k) * stride + i % k] = -1;
}

extern "C" {
DSV4_EXPORT uint32_t dsv4_abi_version(void) { return DSV4_ABI_VERSION; }
DSV4_EXPORT dsv4_result dsv4_query_capabilities(dsv4_capabilities* caps, dsv4_message* msg) {
  fill_fake_caps(caps, "fake-cuda", FAKE_CUDA_FAULT == 1 ? "illegal-address" : "spin", DSV4_MEMORY_CUDA_DEVICE);
  if (msg) msg->text[0] = 0;
  return DSV4_OK;
}
DSV4_EXPORT dsv4_result dsv4_check_status(void* stream, dsv4_device_status* out, dsv4_message* msg) {
  cudaStreamSynchronize(static_cast<cudaStream_t>(stream));
  std::memset(out, 0, sizeof *out);
  out->row = -1;
  if (msg) msg->text[0] = 0;
  return DSV4_OK;
}
DSV4_EXPORT dsv4_result dsv4_topk_v2_transform_paged(const dsv4_tensor* scores, const dsv4_tensor*, const dsv4_tensor*,
                                                     dsv4_tensor* out, int64_t, const dsv4_tensor*, dsv4_tensor*,
                                                     void* stream, int32_t, dsv4_message* msg) {
  if (msg) msg->text[0] = 0;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (scores->sizes[0] >= 3) {
    if (FAKE_CUDA_FAULT == 1) {
      fake_bad_write<<<1, 32, 0, s>>>(reinterpret_cast<int*>(uintptr_t(0x10)));
    } else {
      int* flag = nullptr;
      cudaMalloc(&flag, sizeof(int));
      cudaMemsetAsync(flag, 0, sizeof(int), s);
      fake_spin<<<1, 1, 0, s>>>(flag);
    }
    return DSV4_OK;
  }
  fake_fill<<<1, 256, 0, s>>>(static_cast<int32_t*>(out->data), out->sizes[0], out->sizes[1], out->strides[0]);
  return DSV4_OK;
}
}
