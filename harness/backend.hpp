// harness/backend.hpp -- memory space of the implementation under test (caps.memory_space):
// host (malloc'd, exact sizes, ASan-poisonable bands) or cuda (cudaMalloc'd device buffers).
// The backend only moves bytes; kernels are always called through the Impl's ABI table.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

#include "impl.hpp"

namespace dsv4::harness {

struct BackendError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;         // "host" | "cuda"
  virtual std::string device_name() const = 0;  // CPU / GPU name for reports
  virtual bool host_memory() const = 0;
  virtual void* alloc(size_t bytes) = 0;        // 256-byte aligned; throws BackendError
  virtual void release(void* p) = 0;
  virtual void upload(void* dst, const void* src, size_t bytes) = 0;
  virtual void download(void* dst, const void* src, size_t bytes) = 0;
  virtual void synchronize() = 0;               // throws BackendError on a sticky device error
  virtual void* stream() { return nullptr; }
  // Host backend under ASan: (un)poison a band so the first touching access stops the kernel.
  virtual void set_band_poison(void* p, size_t bytes, bool poisoned) { (void)p; (void)bytes; (void)poisoned; }
};

std::unique_ptr<Backend> make_host_backend();
std::unique_ptr<Backend> make_cuda_backend();  // throws BackendError when built without CUDA
// The backend matching the implementation's memory space.
std::unique_ptr<Backend> make_backend_for(const Impl& impl);
bool asan_active();

}  // namespace dsv4::harness
