// harness/backend_host.cpp -- host-memory backend (simt build and CPU plugins).
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "backend.hpp"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DSV4_HARNESS_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define DSV4_HARNESS_ASAN 1
#endif
#ifdef DSV4_HARNESS_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace dsv4::harness {

bool asan_active() {
#ifdef DSV4_HARNESS_ASAN
  return true;
#else
  return false;
#endif
}

namespace {

std::string cpu_name() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      const auto p = line.find(':');
      return p == std::string::npos ? line : line.substr(p + 2);
    }
  return "host CPU";
}

class HostBackend final : public Backend {
 public:
  const char* name() const override { return "host"; }
  std::string device_name() const override { return cpu_name(); }
  bool host_memory() const override { return true; }
  void* alloc(size_t bytes) override {
    void* p = nullptr;
    // Exact size (no rounding): ASan sees the true end of the allocation.
    if (posix_memalign(&p, 256, bytes ? bytes : 1) != 0 || !p)
      throw BackendError("host: cannot allocate " + std::to_string(bytes) + " bytes");
    return p;
  }
  void release(void* p) override { std::free(p); }
  void upload(void* dst, const void* src, size_t n) override { if (n) std::memcpy(dst, src, n); }
  void download(void* dst, const void* src, size_t n) override { if (n) std::memcpy(dst, src, n); }
  void synchronize() override {}
  void set_band_poison(void* p, size_t bytes, bool poisoned) override {
#ifdef DSV4_HARNESS_ASAN
    if (poisoned) ASAN_POISON_MEMORY_REGION(p, bytes);
    else ASAN_UNPOISON_MEMORY_REGION(p, bytes);
#else
    (void)p; (void)bytes; (void)poisoned;
#endif
  }
};

}  // namespace

std::unique_ptr<Backend> make_host_backend() { return std::make_unique<HostBackend>(); }

std::unique_ptr<Backend> make_backend_for(const Impl& impl) {
  return impl.host_memory() ? make_host_backend() : make_cuda_backend();
}

#ifndef DSV4_HARNESS_CUDA
std::unique_ptr<Backend> make_cuda_backend() {
  throw BackendError("cuda: this harness was built without CUDA (DSV4_HAVE_CUDA off)");
}
bool gpu_present() { return false; }
std::string gpu_name() { return ""; }
#endif

}  // namespace dsv4::harness
