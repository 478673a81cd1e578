// bench_common.hpp -- shared pieces of the GPU benchmarks (topk_v2_bench, bf16_bench):
// loading an ABI plugin with dlopen, the timing method of design/performance_anchors.md
// (spin kernel before the start event, CUDA events around one launch, warm-up + timed launches,
// median), the one-read floor, a deterministic host RNG, and CSV/markdown output helpers.
#pragma once

#include <dsv4/indexer_abi.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace dsv4_bench {

// ---- plugin ------------------------------------------------------------------------------------
struct Plugin {
  void* handle = nullptr;
  std::string path;
  dsv4_capabilities caps{};
  dsv4_topk_v2_plan_fn plan = nullptr;
  dsv4_topk_v2_plan_is_written_fn plan_is_written = nullptr;
  dsv4_topk_v2_transform_paged_fn transform_paged = nullptr;
  dsv4_topk_bf16_small_transform_fn bf16_small = nullptr;
  dsv4_read_row_paths_fn read_row_paths = nullptr;
  dsv4_check_status_fn check_status = nullptr;

  // Loads `path`, checks the ABI version and queries the capabilities. false + err on failure.
  bool load(const std::string& path, std::string& err);
  ~Plugin();
};

// "name", or "name(count)+name(count)" for mixed rows; "" when the plugin has no path report.
std::string summarize_paths(const Plugin& p, cudaStream_t st, int64_t rows);
const char* path_name(int32_t path);

// ---- options -----------------------------------------------------------------------------------
struct Options {
  std::string plugin;           // --plugin PATH
  std::string csv;              // --csv PATH
  int warmup = 10;              // --warmup N
  int iters = 60;               // --iters N
  double spin_us = 100.0;       // --spin-us X: GPU busy time before each start event
  bool quick = false;           // --quick: a small subset of the grid (smoke test)
};
// Parses argv; prints usage and returns false on --help or a bad argument.
bool parse_options(int argc, char** argv, const char* prog, const char* default_plugin, Options& o);

// ---- timing ------------------------------------------------------------------------------------
// Median of `iters` launches (after `warmup`), each timed by events around `launch` with the GPU
// kept busy by a spin kernel enqueued just before the start event. `launch` returns false (with a
// message) to abort. Returns < 0 on error (err set).
double time_median_us(cudaStream_t st, const Options& o, const std::function<bool(std::string&)>& launch,
                      std::string& err);
// The host side of the last time_median_us: median wall-clock microseconds of one `launch` call
// (the entry's validation, dispatch and enqueue; the GPU is busy with the spin kernel meanwhile, so
// the device time above does not include it). -1 before any timing.
double last_host_median_us();
// With DSV4_BENCH_HOST=1 in the environment, prints "host: WHAT: X us a call" to stderr.
void report_host_us(const char* what);
// The launch term: an empty kernel timed with the same method.
double empty_kernel_us(cudaStream_t st, const Options& o);
// A vectorized read-and-reduce over n floats (n % 4 == 0, 16-byte aligned) timed the same way.
double read_kernel_us(cudaStream_t st, const Options& o, const void* data, int64_t bytes);
// Device copy bandwidth in bytes/s, counted as (read + write) bytes of a device-to-device
// cudaMemcpy of 1 GiB, median of several copies. The floor of one read of N bytes is N / bw.
double copy_bandwidth_bytes_per_s(cudaStream_t st);

// ---- data --------------------------------------------------------------------------------------
// splitmix64-seeded xoshiro256** with Box-Muller normals: the same bits on every machine.
class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t next();
  double uniform();  // [0, 1)
  float normal();
  // Random permutation of 0..n-1 (Fisher-Yates).
  std::vector<int32_t> permutation(int64_t n);
 private:
  uint64_t s_[4];
  bool have_spare_ = false;
  double spare_ = 0.0;
};

// ---- output ------------------------------------------------------------------------------------
std::string fmt_us(double us);  // "12.3", or "-" when us < 0
std::string csv_escape(const std::string& s);
std::string gpu_name();

#define BENCH_CUDA(call)                                                                   \
  do {                                                                                     \
    cudaError_t e_ = (call);                                                               \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__, \
                   __LINE__, cudaGetErrorString(e_));                                      \
      std::exit(2);                                                                        \
    }                                                                                      \
  } while (0)

// ABI tensor views (column stride 1).
inline dsv4_tensor tensor2(void* data, dsv4_dtype dt, int64_t rows, int64_t cols, int64_t stride) {
  dsv4_tensor t{};
  t.data = data; t.dtype = dt; t.ndim = 2;
  t.sizes[0] = rows; t.sizes[1] = cols; t.strides[0] = stride; t.strides[1] = 1;
  return t;
}
inline dsv4_tensor tensor1(void* data, dsv4_dtype dt, int64_t n) {
  dsv4_tensor t{};
  t.data = data; t.dtype = dt; t.ndim = 1; t.sizes[0] = n; t.strides[0] = 1;
  return t;
}

// The CSV both benches write (one header for all; bench/merge.py reads it). nullptr when
// o.csv is empty; exits with a message when the file cannot be opened.
inline FILE* open_csv(const std::string& path) {
  if (path.empty()) return nullptr;
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) { std::fprintf(stderr, "cannot write %s\n", path.c_str()); std::exit(2); }
  std::fprintf(f, "bench,dtype,B,L,k,mode,path,ours_us,plan_us,launch_us,read_us,floor_us,ours_over_floor,check,error\n");
  return f;
}

}  // namespace dsv4_bench
