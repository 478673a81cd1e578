// harness/backend_cuda.cpp -- CUDA device-memory backend (compiled only when DSV4_HAVE_CUDA).
// GPU presence is a runtime question: no driver / no device = no GPU, not an error.
#include <cuda_runtime_api.h>

#include "backend.hpp"

namespace dsv4::harness {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw BackendError(std::string("cuda: ") + what + " failed: " + cudaGetErrorName(e) + ": " +
                       cudaGetErrorString(e));
}

class CudaBackend final : public Backend {
 public:
  CudaBackend() {
    if (!gpu_present()) throw BackendError("cuda: no CUDA device present");
  }
  const char* name() const override { return "cuda"; }
  std::string device_name() const override { return gpu_name(); }
  bool host_memory() const override { return false; }
  void* alloc(size_t bytes) override {
    void* p = nullptr;
    check(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc");
    return p;
  }
  void release(void* p) override { cudaFree(p); }
  void upload(void* dst, const void* src, size_t n) override {
    if (n) check(cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  }
  void download(void* dst, const void* src, size_t n) override {
    if (n) check(cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
  }
  void synchronize() override { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

bool gpu_present() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

std::string gpu_name() {
  if (!gpu_present()) return "";
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) return "GPU";
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ")";
}

}  // namespace dsv4::harness
