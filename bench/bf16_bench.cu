// bf16_bench.cu -- times dsv4_topk_bf16_small_transform of an ABI plugin (default: our CUDA plugin)
// with the method of design/performance_anchors.md, next to the launch + one-read floor.
// Grid: B in {1, 64, 512} x L = 16384 x k in {512, 2048}; bf16 randn scores (host generator, fixed
// seed), seq_lens = L, page_size 8, random permutation page table. Each config is checked once
// (checked mode) against a CPU reference before it is timed.
#include "bench_common.hpp"
#include "check_rows.hpp"

#include <algorithm>
#include <string>
#include <vector>

using namespace dsv4_bench;

#ifndef DSV4_DEFAULT_PLUGIN
#define DSV4_DEFAULT_PLUGIN nullptr
#endif

namespace {
constexpr int64_t kPageSize = 8;

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_options(argc, argv, "bf16_bench", DSV4_DEFAULT_PLUGIN, o)) return 2;
  Plugin pl;
  std::string err;
  if (!pl.load(o.plugin, err)) { std::fprintf(stderr, "bf16_bench: %s\n", err.c_str()); return 2; }
  if (pl.bf16_small == nullptr) {
    std::fprintf(stderr, "bf16_bench: %s does not export dsv4_topk_bf16_small_transform\n", o.plugin.c_str());
    return 2;
  }
  std::vector<int64_t> Bs = {1, 64, 512};
  const std::vector<int64_t> Ls = {16384};
  const std::vector<int32_t> ks = {512, 2048};
  if (o.quick) Bs = {1, 64};
  const int64_t maxB = *std::max_element(Bs.begin(), Bs.end());
  const int64_t maxL = *std::max_element(Ls.begin(), Ls.end());

  cudaStream_t st;
  BENCH_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  const double launch_us = empty_kernel_us(st, o);
  const double bw = copy_bandwidth_bytes_per_s(st);

  std::vector<uint16_t> h_scores(static_cast<size_t>(maxB * maxL));
  Rng rng(0x5eed0002);
  for (auto& x : h_scores) x = float_to_bf16(rng.normal());
  uint16_t* d_scores = nullptr;
  int32_t *d_lens = nullptr, *d_table = nullptr, *d_out = nullptr;
  BENCH_CUDA(cudaMalloc(&d_scores, h_scores.size() * sizeof(uint16_t)));
  BENCH_CUDA(cudaMemcpy(d_scores, h_scores.data(), h_scores.size() * sizeof(uint16_t), cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMalloc(&d_lens, maxB * sizeof(int32_t)));
  BENCH_CUDA(cudaMalloc(&d_table, maxB * (maxL / kPageSize) * sizeof(int32_t)));
  BENCH_CUDA(cudaMalloc(&d_out, maxB * 2048 * sizeof(int32_t)));

  FILE* csv = open_csv(o.csv);

  std::printf("# bf16_bench: plugin %s (%s %s) on %s\n", o.plugin.c_str(), pl.caps.name, pl.caps.version, gpu_name().c_str());
  std::printf("launch term %.2f us; copy bandwidth %.3f TB/s; %d warm-up + %d timed launches, median\n\n",
              launch_us, bw / 1e12, o.warmup, o.iters);
  std::printf("| B | L | k | ours µs | floor µs | ours/floor | check |\n|---:|---:|---:|---:|---:|---:|---|\n");

  bool context_lost = false;
  for (int64_t B : Bs) {
    for (int64_t L : Ls) {
      const int64_t W = (L + kPageSize - 1) / kPageSize;
      std::vector<int32_t> lens(B, static_cast<int32_t>(L));
      std::vector<int32_t> table = Rng(0x7ab1e800 + B * 1000003 + L).permutation(B * W);
      BENCH_CUDA(cudaMemcpy(d_lens, lens.data(), B * sizeof(int32_t), cudaMemcpyHostToDevice));
      BENCH_CUDA(cudaMemcpy(d_table, table.data(), table.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
      const double read_us = read_kernel_us(st, o, d_scores, B * L * 2);
      const double floor_us = bw > 0 ? launch_us + B * L * 2.0 / bw * 1e6 : -1.0;
      dsv4_tensor scores = tensor2(d_scores, DSV4_BFLOAT16, B, L, L);
      dsv4_tensor seq = tensor1(d_lens, DSV4_INT32, B);
      dsv4_tensor pt = tensor2(d_table, DSV4_INT32, B, W, W);
      for (int32_t k : ks) {
        std::string check = "-", error;
        double us = -1.0;
        dsv4_tensor out = tensor2(d_out, DSV4_INT32, B, k, k);
        dsv4_message msg{};
        if (!context_lost) BENCH_CUDA(cudaMemset(d_out, 0xC7, B * k * sizeof(int32_t)));  // not producible
        if (context_lost) {
          error = "skipped: CUDA context lost earlier";
        } else if (pl.bf16_small(&scores, &seq, &pt, &out, kPageSize, st, 1, &msg) != DSV4_OK) {
          error = msg.text;
        } else {
          std::vector<int32_t> h_out(B * k);
          cudaError_t e = cudaMemcpyAsync(h_out.data(), d_out, h_out.size() * sizeof(int32_t), cudaMemcpyDeviceToHost, st);
          if (e == cudaSuccess) e = cudaStreamSynchronize(st);
          if (e != cudaSuccess) {
            error = std::string("CUDA error after the checked launch: ") + cudaGetErrorString(e);
            context_lost = true;
          } else {
            RowCheck ck = check_topk_rows_bf16(h_scores.data(), L, lens, h_out.data(), B, k, &table, W, kPageSize);
            check = ck.ok ? "OK" : "FAIL: " + ck.message;
            us = time_median_us(st, o, [&](std::string& em) {
              dsv4_message m{};
              if (pl.bf16_small(&scores, &seq, &pt, &out, kPageSize, st, 0, &m) == DSV4_OK) return true;
              em = m.text;
              return false;
            }, err);
            const std::string what = "bf16_small B=" + std::to_string(B) + " L=" + std::to_string(L) + " k=" + std::to_string(k);
            report_host_us(what.c_str());
            if (us < 0) {
              error = err;
              if (cudaDeviceSynchronize() != cudaSuccess) context_lost = true;
            }
          }
        }
        const double ratio = us >= 0 && floor_us > 0 ? us / floor_us : -1.0;
        char ratio_s[32];
        std::snprintf(ratio_s, sizeof ratio_s, ratio >= 0 ? "%.2f" : "-", ratio);
        std::printf("| %lld | %lld | %d | %s | %s | %s | %s%s%s |\n", (long long)B, (long long)L, k, fmt_us(us).c_str(),
                    fmt_us(floor_us).c_str(), ratio_s, check.c_str(), error.empty() ? "" : " — ", error.c_str());
        std::fflush(stdout);
        if (csv) {
          std::fprintf(csv, "bf16_small,bf16,%lld,%lld,%d,page_table,,%s,,%.2f,%s,%s,%s,%s,%s\n", (long long)B, (long long)L, k,
                       us >= 0 ? fmt_us(us).c_str() : "", launch_us, fmt_us(read_us).c_str(), fmt_us(floor_us).c_str(),
                       ratio >= 0 ? std::to_string(ratio).substr(0, 5).c_str() : "", csv_escape(check).c_str(),
                       csv_escape(error).c_str());
          std::fflush(csv);
        }
      }
    }
  }
  if (csv) std::fclose(csv);
  return context_lost ? 1 : 0;
}
