// bench_common.cu -- see bench_common.hpp.
#include "bench_common.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <map>

namespace dsv4_bench {

// ---- plugin ------------------------------------------------------------------------------------
template <class Fn>
static Fn sym(void* h, const char* name) {
  return reinterpret_cast<Fn>(dlsym(h, name));
}

bool Plugin::load(const std::string& p, std::string& err) {
  path = p;
  handle = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* e = dlerror();
    err = "dlopen(" + p + ") failed: " + (e ? e : "?");
    return false;
  }
  auto version = sym<dsv4_abi_version_fn>(handle, "dsv4_abi_version");
  auto query = sym<dsv4_query_capabilities_fn>(handle, "dsv4_query_capabilities");
  if (version == nullptr || query == nullptr) {
    err = p + ": missing a required symbol (dsv4_abi_version / dsv4_query_capabilities)";
    return false;
  }
  if (version() != DSV4_ABI_VERSION) {
    err = p + ": ABI version " + std::to_string(version()) + ", expected " + std::to_string(DSV4_ABI_VERSION);
    return false;
  }
  dsv4_message msg{};
  if (query(&caps, &msg) != DSV4_OK) {
    err = p + ": dsv4_query_capabilities failed: " + msg.text;
    return false;
  }
  caps.name[sizeof(caps.name) - 1] = '\0';
  caps.version[sizeof(caps.version) - 1] = '\0';
  plan = sym<dsv4_topk_v2_plan_fn>(handle, "dsv4_topk_v2_plan");
  plan_is_written = sym<dsv4_topk_v2_plan_is_written_fn>(handle, "dsv4_topk_v2_plan_is_written");
  transform_paged = sym<dsv4_topk_v2_transform_paged_fn>(handle, "dsv4_topk_v2_transform_paged");
  bf16_small = sym<dsv4_topk_bf16_small_transform_fn>(handle, "dsv4_topk_bf16_small_transform");
  read_row_paths = sym<dsv4_read_row_paths_fn>(handle, "dsv4_read_row_paths");
  check_status = sym<dsv4_check_status_fn>(handle, "dsv4_check_status");
  return true;
}

Plugin::~Plugin() {
  // Deliberately not dlclose'd: a CUDA plugin's static state must outlive pending work.
}

const char* path_name(int32_t p) {
  static const char* names[] = {"auto", "trivial", "register2", "register4", "streaming",
                                "cluster8", "cluster16", "pool", "row_error", "cluster4", "cluster2"};
  static_assert(sizeof names / sizeof names[0] == DSV4_PATH_COUNT, "a name per path");
  return (p >= 0 && p < DSV4_PATH_COUNT) ? names[p] : "unknown";
}

std::string summarize_paths(const Plugin& p, cudaStream_t st, int64_t rows) {
  if (p.read_row_paths == nullptr || !p.caps.has_row_path_report || rows <= 0) return "";
  std::vector<int32_t> paths(static_cast<size_t>(rows), -1);
  dsv4_message msg{};
  if (p.read_row_paths(st, paths.data(), rows, &msg) != DSV4_OK) return std::string("?(") + msg.text + ")";
  std::map<int32_t, int64_t> count;
  for (int32_t x : paths) ++count[x];
  if (count.size() == 1) return path_name(count.begin()->first);
  std::string s;
  for (auto& [path, c] : count) {
    if (!s.empty()) s += "+";
    s += std::string(path_name(path)) + "(" + std::to_string(c) + ")";
  }
  return s;
}

// ---- options -----------------------------------------------------------------------------------
bool parse_options(int argc, char** argv, const char* prog, const char* default_plugin, Options& o) {
  o.plugin = default_plugin ? default_plugin : "";
  auto usage = [&] {
    std::fprintf(stderr,
                 "usage: %s [--plugin LIB.so] [--csv OUT.csv] [--warmup N] [--iters N] [--spin-us X] [--quick]\n"
                 "  default plugin: %s\n",
                 prog, o.plugin.empty() ? "(none compiled in; --plugin is required)" : o.plugin.c_str());
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) { std::fprintf(stderr, "%s: %s needs a value\n", prog, name); return nullptr; }
      return argv[++i];
    };
    const char* v = nullptr;
    if (a == "--plugin") { if (!(v = value("--plugin"))) return false; o.plugin = v; }
    else if (a == "--csv") { if (!(v = value("--csv"))) return false; o.csv = v; }
    else if (a == "--warmup") { if (!(v = value("--warmup"))) return false; o.warmup = std::atoi(v); }
    else if (a == "--iters") { if (!(v = value("--iters"))) return false; o.iters = std::atoi(v); }
    else if (a == "--spin-us") { if (!(v = value("--spin-us"))) return false; o.spin_us = std::atof(v); }
    else if (a == "--quick") { o.quick = true; }
    else { usage(); return false; }
  }
  if (o.plugin.empty() || o.iters < 1 || o.warmup < 0) { usage(); return false; }
  return true;
}

// ---- timing ------------------------------------------------------------------------------------
__global__ void spin_kernel(uint64_t ns) {
  uint64_t start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

__global__ void empty_kernel() {}

__global__ void read_reduce_kernel(const float4* __restrict__ p, int64_t n4, float* sink) {
  float acc = 0.f;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n4; i += int64_t{gridDim.x} * blockDim.x) {
    const float4 v = __ldg(p + i);
    acc += (v.x + v.y) + (v.z + v.w);
  }
  if (acc == 1234.5678f) *sink = acc;  // keeps the loads alive; practically never taken
}

namespace {
double g_last_host_us = -1.0;
double median_of(std::vector<double>& t) {
  if (t.empty()) return -1.0;
  std::sort(t.begin(), t.end());
  return t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
}
}  // namespace

double last_host_median_us() { return g_last_host_us; }

void report_host_us(const char* what) {
  const char* e = std::getenv("DSV4_BENCH_HOST");
  if (e != nullptr && std::strcmp(e, "1") == 0 && g_last_host_us >= 0)
    std::fprintf(stderr, "host: %s: %.2f us a call\n", what, g_last_host_us);
}

double time_median_us(cudaStream_t st, const Options& o, const std::function<bool(std::string&)>& launch,
                      std::string& err) {
  cudaEvent_t a, b;
  BENCH_CUDA(cudaEventCreate(&a));
  BENCH_CUDA(cudaEventCreate(&b));
  std::vector<double> t, host;
  g_last_host_us = -1.0;
  const uint64_t spin_ns = static_cast<uint64_t>(o.spin_us * 1000.0);
  double result = -1.0;
  for (int i = 0; i < o.warmup + o.iters; ++i) {
    spin_kernel<<<1, 1, 0, st>>>(spin_ns);
    cudaEventRecord(a, st);
    const auto h0 = std::chrono::steady_clock::now();
    if (!launch(err)) goto done;
    {
      const double h_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - h0).count();
      cudaEventRecord(b, st);
      if (cudaError_t e = cudaEventSynchronize(b); e != cudaSuccess) {
        err = std::string("CUDA error during timing: ") + cudaGetErrorString(e);
        goto done;
      }
      float ms = 0.f;
      cudaEventElapsedTime(&ms, a, b);
      if (i >= o.warmup) {
        t.push_back(ms * 1000.0);
        host.push_back(h_us);
      }
    }
  }
  result = median_of(t);
  g_last_host_us = median_of(host);
done:
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return result;
}

double empty_kernel_us(cudaStream_t st, const Options& o) {
  std::string err;
  return time_median_us(st, o, [&](std::string& e) {
    empty_kernel<<<1, 32, 0, st>>>();
    return true;
  }, err);
}

double read_kernel_us(cudaStream_t st, const Options& o, const void* data, int64_t bytes) {
  static float* sink = nullptr;
  if (sink == nullptr) BENCH_CUDA(cudaMalloc(&sink, sizeof(float)));
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int64_t n4 = bytes / 16;
  const int blocks = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(int64_t{sms} * 4, (n4 + 511) / 512)));
  std::string err;
  return time_median_us(st, o, [&](std::string& e) {
    read_reduce_kernel<<<blocks, 512, 0, st>>>(static_cast<const float4*>(data), n4, sink);
    return true;
  }, err);
}

double copy_bandwidth_bytes_per_s(cudaStream_t st) {
  const size_t bytes = size_t{1} << 30;
  void *src = nullptr, *dst = nullptr;
  if (cudaMalloc(&src, bytes) != cudaSuccess || cudaMalloc(&dst, bytes) != cudaSuccess) {
    cudaFree(src);
    cudaGetLastError();
    return -1.0;
  }
  cudaMemsetAsync(src, 0, bytes, st);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<double> bw;
  for (int i = 0; i < 12; ++i) {
    cudaEventRecord(a, st);
    cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st);
    cudaEventRecord(b, st);
    cudaEventSynchronize(b);
    float ms = 0.f;
    cudaEventElapsedTime(&ms, a, b);
    if (i >= 2 && ms > 0.f) bw.push_back(2.0 * bytes / (ms * 1e-3));
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaFree(src);
  cudaFree(dst);
  if (bw.empty()) return -1.0;
  std::sort(bw.begin(), bw.end());
  return bw[bw.size() / 2];
}

// ---- data --------------------------------------------------------------------------------------
static uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

Rng::Rng(uint64_t seed) {
  for (auto& s : s_) s = splitmix64(seed);
}
uint64_t Rng::next() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}
double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
float Rng::normal() {
  if (have_spare_) { have_spare_ = false; return static_cast<float>(spare_); }
  double u1 = uniform();
  while (u1 <= 0.0) u1 = uniform();
  const double u2 = uniform();
  const double r = std::sqrt(-2.0 * std::log(u1));
  spare_ = r * std::sin(2.0 * M_PI * u2);
  have_spare_ = true;
  return static_cast<float>(r * std::cos(2.0 * M_PI * u2));
}
std::vector<int32_t> Rng::permutation(int64_t n) {
  std::vector<int32_t> p(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<int32_t>(i);
  for (int64_t i = n - 1; i > 0; --i) std::swap(p[i], p[next() % static_cast<uint64_t>(i + 1)]);
  return p;
}

// ---- output ------------------------------------------------------------------------------------
std::string fmt_us(double us) {
  if (us < 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", us);
  return buf;
}
std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string r = "\"";
  for (char c : s) { if (c == '"') r += '"'; r += c == '\n' ? ' ' : c; }
  return r + "\"";
}
std::string gpu_name() {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "?";
  return p.name;
}

}  // namespace dsv4_bench
