// tests/gpu/gpu_test_util.cu -- main(), the plugin loader and the host checks of the GPU tests.
#include "gpu_test_util.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <unordered_map>

namespace dsv4::gpu_test {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return (v && *v) ? std::string(v) : std::string(fallback);
}

namespace {

#ifdef DSV4_OURS_CUDA_PLUGIN
constexpr const char* kDefaultPlugin = DSV4_OURS_CUDA_PLUGIN;
#else
constexpr const char* kDefaultPlugin = "";
#endif

// DSV4_IMPL may also hold the harness's symbolic names ("ours", "ours-cuda"): those mean the
// default CUDA plugin here. Anything containing '/' or ending in .so is a path.
std::string plugin_path() {
  std::string v = env_or("DSV4_IMPL", "");
  const bool is_path = v.find('/') != std::string::npos ||
                       (v.size() > 3 && v.compare(v.size() - 3, 3, ".so") == 0);
  return is_path ? v : std::string(kDefaultPlugin);
}

Plugin load() {
  Plugin p;
  p.path = plugin_path();
  if (p.path.empty()) {
    p.load_error = "no plugin: this build has no dsv4_ours_cuda target and DSV4_IMPL is not a .so path";
    return p;
  }
  void* h = dlopen(p.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    p.load_error = "cannot load plugin " + p.path + ": " + (e ? e : "dlopen failed");
    return p;
  }
  auto sym = [&](const char* n) { return dlsym(h, n); };
  p.abi_version = reinterpret_cast<dsv4_abi_version_fn>(sym("dsv4_abi_version"));
  p.query_capabilities = reinterpret_cast<dsv4_query_capabilities_fn>(sym("dsv4_query_capabilities"));
  p.set_config = reinterpret_cast<dsv4_set_config_fn>(sym("dsv4_set_config"));
  p.check_status = reinterpret_cast<dsv4_check_status_fn>(sym("dsv4_check_status"));
  p.read_row_paths = reinterpret_cast<dsv4_read_row_paths_fn>(sym("dsv4_read_row_paths"));
  p.plan = reinterpret_cast<dsv4_topk_v2_plan_fn>(sym("dsv4_topk_v2_plan"));
  p.plan_is_written =
      reinterpret_cast<dsv4_topk_v2_plan_is_written_fn>(sym("dsv4_topk_v2_plan_is_written"));
  p.paged = reinterpret_cast<dsv4_topk_v2_transform_paged_fn>(sym("dsv4_topk_v2_transform_paged"));
  p.bf16 = reinterpret_cast<dsv4_topk_bf16_small_transform_fn>(
      sym("dsv4_topk_bf16_small_transform"));
  p.amax8 = reinterpret_cast<dsv4_amax8_varlen_fn>(sym("dsv4_amax8_varlen"));
  p.max_active_clusters =
      reinterpret_cast<dsv4_get_max_active_clusters_fn>(sym("dsv4_get_max_active_clusters"));
  if (!p.abi_version || !p.query_capabilities) {
    p.load_error = p.path + ": missing required symbol dsv4_abi_version / dsv4_query_capabilities";
    return p;
  }
  if (p.abi_version() != DSV4_ABI_VERSION) {
    p.load_error = p.path + ": ABI version " + std::to_string(p.abi_version()) + ", tests speak " +
                   std::to_string(DSV4_ABI_VERSION);
    return p;
  }
  dsv4_message msg{};
  p.caps.struct_size = sizeof p.caps;
  if (p.query_capabilities(&p.caps, &msg) != DSV4_OK) {
    p.load_error = p.path + ": dsv4_query_capabilities failed: " + msg.text;
    return p;
  }
  if (p.caps.memory_space != DSV4_MEMORY_CUDA_DEVICE)
    p.load_error = p.path + " is not a CUDA-memory plugin (memory_space " +
                   std::to_string(p.caps.memory_space) + "); the gpu tests need one";
  return p;
}

}  // namespace

const Plugin& plugin() {
  static const Plugin p = load();
  return p;
}

const cudaDeviceProp& device_props() {
  static const cudaDeviceProp prop = [] {
    cudaDeviceProp d{};
    cudaGetDeviceProperties(&d, 0);
    return d;
  }();
  return prop;
}

bool device_is_h200() { return std::strstr(device_props().name, "H200") != nullptr; }

dsv4_config default_config() {
  dsv4_config c;
  std::memset(&c, 0xff, sizeof c);  // every field -1 = default
  c.struct_size = sizeof c;
  c.force_path = DSV4_PATH_AUTO;
  c.early_read = 0;
  for (auto& r : c.reserved) r = -1;
  return c;
}

::testing::AssertionResult apply_config(const dsv4_config& cfg) {
  const auto& p = plugin();
  if (!p.set_config) return ::testing::AssertionFailure() << p.path << " has no dsv4_set_config";
  dsv4_message msg{};
  const dsv4_result r = p.set_config(&cfg, &msg);
  if (r != DSV4_OK) return ::testing::AssertionFailure() << "dsv4_set_config: " << msg.text;
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult reset_config() {
  if (!plugin().set_config) return ::testing::AssertionSuccess();
  return apply_config(default_config());
}

::testing::AssertionResult read_status(cudaStream_t stream, dsv4_device_status* st) {
  const auto& p = plugin();
  if (!p.check_status) return ::testing::AssertionFailure() << p.path << " has no dsv4_check_status";
  dsv4_message msg{};
  std::memset(st, 0, sizeof *st);
  const dsv4_result r = p.check_status(stream, st, &msg);
  if (r != DSV4_OK) return ::testing::AssertionFailure() << "dsv4_check_status: " << msg.text;
  return ::testing::AssertionSuccess();
}

std::string describe_status(const dsv4_device_status& st) {
  std::ostringstream o;
  o << "mask=0x" << std::hex << st.code_mask << std::dec << " count=" << st.count
    << " code=" << st.code << " kernel=" << st.kernel << " row=" << st.row << " value=" << st.value;
  return o.str();
}

dsv4_tensor t1d(void* data, dsv4_dtype dt, int64_t n) {
  dsv4_tensor t{};
  t.data = data;
  t.dtype = dt;
  t.ndim = 1;
  t.sizes[0] = n;
  t.strides[0] = 1;
  return t;
}

dsv4_tensor t2d(void* data, dsv4_dtype dt, int64_t rows, int64_t cols, int64_t row_stride) {
  dsv4_tensor t{};
  t.data = data;
  t.dtype = dt;
  t.ndim = 2;
  t.sizes[0] = rows;
  t.sizes[1] = cols;
  t.strides[0] = row_stride;
  t.strides[1] = 1;
  return t;
}

uint16_t float_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint32_t rounding = 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>((u + rounding) >> 16);
}

float bf16_to_float(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

std::string check_topk_row(const float* vals, int64_t n, int k, const int32_t* slots,
                           const std::function<int64_t(int64_t)>& emit,
                           const std::function<int64_t(int64_t)>& invert) {
  std::ostringstream o;
  if (n <= k) {  // trivial row: exact slots
    for (int t = 0; t < k; ++t) {
      const int64_t want = t < n ? emit(t) : -1;
      if (slots[t] != want) {
        o << "trivial row (n=" << n << "): slot " << t << " = " << slots[t] << ", want " << want;
        return o.str();
      }
    }
    return "";
  }
  std::vector<float> valid;
  valid.reserve(n);
  for (int64_t i = 0; i < n; ++i)
    if (!std::isnan(vals[i])) valid.push_back(vals[i]);
  const int v = static_cast<int>(std::min<int64_t>(k, valid.size()));
  std::vector<char> seen(n, 0);
  std::vector<float> got;
  for (int t = 0; t < k; ++t) {
    if (t >= v) {
      if (slots[t] != -1) {
        o << "slot " << t << " = " << slots[t] << " but only " << v << " valid slots expected";
        return o.str();
      }
      continue;
    }
    if (slots[t] == -1 || slots[t] == kPrefill) {
      o << "slot " << t << " = " << slots[t] << " (expected a selection; n=" << n << ", v=" << v << ")";
      return o.str();
    }
    const int64_t i = invert(slots[t]);
    if (i < 0 || i >= n) {
      o << "slot " << t << " = " << slots[t] << " does not map back to a position < n=" << n;
      return o.str();
    }
    if (seen[i]++) {
      o << "position " << i << " selected twice";
      return o.str();
    }
    if (std::isnan(vals[i])) {
      o << "NaN position " << i << " selected";
      return o.str();
    }
    got.push_back(vals[i]);
  }
  std::sort(got.begin(), got.end(), std::greater<float>());
  std::partial_sort(valid.begin(), valid.begin() + v, valid.end(), std::greater<float>());
  for (int t = 0; t < v; ++t)
    if (!(got[t] == valid[t])) {  // +0 == -0 by design
      o << "value multiset differs at rank " << t << ": got " << got[t] << ", want " << valid[t]
        << " (n=" << n << ", k=" << k << ")";
      return o.str();
    }
  return "";
}

std::vector<float> random_scores(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

}  // namespace dsv4::gpu_test

// One main for every GPU test binary: no usable device -> print the reason and exit 77 (CTest
// SKIP_RETURN_CODE). Never a silent GTEST_SKIP.
int main(int argc, char** argv) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    std::printf("no CUDA device: cudaGetDeviceCount failed: %s (%s)\n", cudaGetErrorName(e),
                cudaGetErrorString(e));
    return 77;
  }
  if (count == 0) {
    std::printf("no CUDA device: cudaGetDeviceCount returned 0\n");
    return 77;
  }
  const auto& d = dsv4::gpu_test::device_props();
  std::printf("device 0: %s (sm_%d%d, %d SMs), %d device(s)\n", d.name, d.major, d.minor,
              d.multiProcessorCount, count);
  const auto& p = dsv4::gpu_test::plugin();
  if (p.load_error.empty())
    std::printf("plugin: %s (%s %s)\n", p.path.c_str(), p.caps.name, p.caps.version);
  else
    std::printf("plugin: NOT LOADED: %s\n", p.load_error.c_str());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
