// tests/gpu/gpu_test_util.hpp -- shared pieces of the GPU-only tests (label gpu):
//   - main(): exits 77 after printing "no CUDA device: <reason>" when there is no usable GPU;
//   - a tiny dlopen/dlsym loader of the plugin under test (env DSV4_IMPL = path of a .so, else the
//     build-time default DSV4_OURS_CUDA_PLUGIN = our CUDA plugin);
//   - RAII device buffers, dsv4_tensor builders, config/status helpers;
//   - host checks (zero tolerance, value multisets; spec topk_v2.md §3.3).
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "dsv4/indexer_abi.h"

namespace dsv4::gpu_test {

#define GPU_OK(expr)                                                                      \
  do {                                                                                    \
    const cudaError_t e_ = (expr);                                                        \
    ASSERT_EQ(e_, cudaSuccess) << #expr << ": " << cudaGetErrorName(e_) << ": "           \
                               << cudaGetErrorString(e_);                                 \
  } while (0)

// Asserts an ABI call returned `want`; prints the plugin's message on mismatch.
#define ABI_EXPECT(want, call_with_msg, msg)                                              \
  do {                                                                                    \
    std::memset(&(msg), 0, sizeof(msg));                                                  \
    const dsv4_result r_ = (call_with_msg);                                               \
    ASSERT_EQ(int(r_), int(want)) << #call_with_msg << " -> \"" << (msg).text << "\"";    \
  } while (0)

// The plugin's entry points (NULL = not exported).
struct Plugin {
  std::string path;
  std::string load_error;  // non-empty: loading failed
  dsv4_capabilities caps{};
  dsv4_abi_version_fn abi_version = nullptr;
  dsv4_query_capabilities_fn query_capabilities = nullptr;
  dsv4_set_config_fn set_config = nullptr;
  dsv4_check_status_fn check_status = nullptr;
  dsv4_read_row_paths_fn read_row_paths = nullptr;
  dsv4_topk_v2_plan_fn plan = nullptr;
  dsv4_topk_v2_plan_is_written_fn plan_is_written = nullptr;
  dsv4_topk_v2_transform_paged_fn paged = nullptr;
  dsv4_topk_bf16_small_transform_fn bf16 = nullptr;
  dsv4_amax8_varlen_fn amax8 = nullptr;
  dsv4_get_max_active_clusters_fn max_active_clusters = nullptr;
};

// Loaded once per process. Fails the calling test (fatal) when the plugin cannot be used.
const Plugin& plugin();
#define REQUIRE_PLUGIN()                                                                  \
  do {                                                                                    \
    ASSERT_TRUE(::dsv4::gpu_test::plugin().load_error.empty())                            \
        << ::dsv4::gpu_test::plugin().load_error;                                         \
  } while (0)
// A NULL entry: failure if the plugin declares it in caps.entries, else a visible skip.
#define REQUIRE_ENTRY(field, bit)                                                         \
  do {                                                                                    \
    REQUIRE_PLUGIN();                                                                     \
    const auto& p_ = ::dsv4::gpu_test::plugin();                                          \
    if (p_.field == nullptr) {                                                            \
      ASSERT_EQ(p_.caps.entries & (bit), 0u)                                              \
          << p_.path << " declares " #bit " but does not export it";                      \
      std::printf("[ SKIP-NOTE ] %s does not implement " #bit "\n", p_.path.c_str());     \
      GTEST_SKIP() << p_.path << " does not implement " #bit;                             \
    }                                                                                     \
  } while (0)

// Device properties of device 0 (cached).
const cudaDeviceProp& device_props();
bool device_is_h200();
std::string env_or(const char* name, const char* fallback);

// Configuration: every field "default", then the caller edits fields. apply() fails the test on
// an error. reset_config() restores the defaults (call in TearDown).
dsv4_config default_config();
::testing::AssertionResult apply_config(const dsv4_config& cfg);
::testing::AssertionResult reset_config();
// dsv4_check_status on `stream` (synchronizes, clears).
::testing::AssertionResult read_status(cudaStream_t stream, dsv4_device_status* st);
std::string describe_status(const dsv4_device_status& st);

// Tensors (sizes and strides in elements).
dsv4_tensor t1d(void* data, dsv4_dtype dt, int64_t n);
dsv4_tensor t2d(void* data, dsv4_dtype dt, int64_t rows, int64_t cols, int64_t row_stride);

// RAII device buffer of T.
template <class T>
struct DevBuf {
  T* ptr = nullptr;
  size_t count = 0;
  DevBuf() = default;
  explicit DevBuf(size_t n) { reset(n); }
  // Frees, then allocates n elements (ok() tells whether it worked).
  void reset(size_t n) {
    if (ptr) cudaFree(ptr);
    ptr = nullptr;
    count = n;
    if (n && cudaMalloc(&ptr, n * sizeof(T)) != cudaSuccess) ptr = nullptr;
  }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  ~DevBuf() { if (ptr) cudaFree(ptr); }
  bool ok() const { return ptr != nullptr || count == 0; }
  cudaError_t upload(const std::vector<T>& h, cudaStream_t s = nullptr) {
    return cudaMemcpyAsync(ptr, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice, s);
  }
  cudaError_t download(std::vector<T>& h, cudaStream_t s = nullptr) const {
    h.resize(count);
    cudaError_t e = cudaMemcpyAsync(h.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost, s);
    return e == cudaSuccess ? cudaStreamSynchronize(s) : e;
  }
};

// bf16 <-> float (round to nearest even; no NaN inputs are produced by these tests).
uint16_t float_to_bf16(float f);
float bf16_to_float(uint16_t b);

// Host check of one top-k row (spec topk_v2.md §3.3 / topk_bf16_small.md §3), zero tolerance.
//   vals: the row's scores (as float; positions < n), n = its length, k = slots;
//   slots: the k output values; emit(i) = the value a correct kernel emits for position i;
//   invert(y) = the position whose emitted value is y, or -1 if none (injective transforms).
// Returns "" when the row passes, otherwise a one-line description.
std::string check_topk_row(const float* vals, int64_t n, int k, const int32_t* slots,
                           const std::function<int64_t(int64_t)>& emit,
                           const std::function<int64_t(int64_t)>& invert);

// Deterministic scores: N(0,1)-like values from a seeded generator.
std::vector<float> random_scores(size_t n, uint32_t seed);

constexpr int32_t kPrefill = -12345;  // not producible by any entry (GUARD pre-fill)

}  // namespace dsv4::gpu_test
