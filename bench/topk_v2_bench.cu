// topk_v2_bench.cu -- times dsv4_topk_v2_transform_paged of an ABI plugin (default: our CUDA
// plugin) with the method of design/performance_anchors.md, next to the launch + one-read floor.
//
// Grid: B in {1, 15, 16, 64, 512} x L in {4096, 16384, 24576, 30720, 32768, 65536, 131072} x
// k in {512, 2048}; fp32 randn scores (host generator, fixed seed), seq_lens = L, PAGE_TABLE mode
// with page_size 64 and a random permutation page table, and INDICES mode. Every timed config is
// first checked once (checked mode) against a CPU reference of the top-k value multiset.
// Output: a markdown table on stdout, one CSV row per (config, mode) in --csv.
#include "bench_common.hpp"
#include "check_rows.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

using namespace dsv4_bench;

#ifndef DSV4_DEFAULT_PLUGIN
#define DSV4_DEFAULT_PLUGIN nullptr
#endif

namespace {

constexpr int64_t kPageSize = 64;


struct Result {
  std::string path, check = "-", error;
  double us = -1.0, plan_us = -1.0;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_options(argc, argv, "topk_v2_bench", DSV4_DEFAULT_PLUGIN, o)) return 2;
  Plugin pl;
  std::string err;
  if (!pl.load(o.plugin, err)) { std::fprintf(stderr, "topk_v2_bench: %s\n", err.c_str()); return 2; }
  if (pl.transform_paged == nullptr) {
    std::fprintf(stderr, "topk_v2_bench: %s does not export dsv4_topk_v2_transform_paged\n", o.plugin.c_str());
    return 2;
  }
  std::vector<int64_t> Bs = {1, 15, 16, 64, 512};
  std::vector<int64_t> Ls = {4096, 16384, 24576, 30720, 32768, 65536, 131072};
  std::vector<int32_t> ks = {512, 2048};
  if (o.quick) { Bs = {1, 64}; Ls = {4096, 65536}; }
  const int64_t maxB = *std::max_element(Bs.begin(), Bs.end());
  const int64_t maxL = *std::max_element(Ls.begin(), Ls.end());

  cudaStream_t st;
  BENCH_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  const double launch_us = empty_kernel_us(st, o);
  const double bw = copy_bandwidth_bytes_per_s(st);

  // One pool of randn scores; config (B, L) uses the first B*L of them with row stride L.
  std::vector<float> h_scores(static_cast<size_t>(maxB * maxL));
  Rng rng(0x5eed0001);
  for (auto& x : h_scores) x = rng.normal();
  float* d_scores = nullptr; int32_t *d_lens = nullptr, *d_table = nullptr, *d_out = nullptr, *d_meta = nullptr;
  BENCH_CUDA(cudaMalloc(&d_scores, h_scores.size() * sizeof(float)));
  BENCH_CUDA(cudaMemcpy(d_scores, h_scores.data(), h_scores.size() * sizeof(float), cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMalloc(&d_lens, maxB * sizeof(int32_t)));
  BENCH_CUDA(cudaMalloc(&d_table, maxB * ((maxL + kPageSize - 1) / kPageSize) * sizeof(int32_t)));
  BENCH_CUDA(cudaMalloc(&d_out, maxB * 2048 * sizeof(int32_t)));
  BENCH_CUDA(cudaMalloc(&d_meta, (maxB + 1) * 2 * sizeof(int32_t)));

  FILE* csv = open_csv(o.csv);

  std::printf("# topk_v2_bench: plugin %s (%s %s) on %s\n", o.plugin.c_str(), pl.caps.name, pl.caps.version, gpu_name().c_str());
  std::printf("launch term (empty kernel) %.2f us; copy bandwidth %.3f TB/s (read+write bytes of a D2D memcpy); "
              "%d warm-up + %d timed launches, median; spin %.0f us before each start event\n\n",
              launch_us, bw / 1e12, o.warmup, o.iters, o.spin_us);
  std::printf("| B | L | k | path | ours µs (paged) | ours µs (indices) | floor µs | ours/floor | check |\n");
  std::printf("|---:|---:|---:|---|---:|---:|---:|---:|---|\n");

  bool context_lost = false;
  for (int64_t B : Bs) {
    for (int64_t L : Ls) {
      const int64_t W = (L + kPageSize - 1) / kPageSize;
      std::vector<int32_t> lens(B, static_cast<int32_t>(L));
      std::vector<int32_t> table = Rng(0x7ab1e000 + B * 1000003 + L).permutation(B * W);
      BENCH_CUDA(cudaMemcpy(d_lens, lens.data(), B * sizeof(int32_t), cudaMemcpyHostToDevice));
      BENCH_CUDA(cudaMemcpy(d_table, table.data(), table.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
      const double read_us = read_kernel_us(st, o, d_scores, B * L * 4);
      const double floor_us = bw > 0 ? launch_us + B * L * 4.0 / bw * 1e6 : -1.0;
      dsv4_tensor scores = tensor2(d_scores, DSV4_FLOAT32, B, L, L);
      dsv4_tensor seq = tensor1(d_lens, DSV4_INT32, B);
      dsv4_tensor pt = tensor2(d_table, DSV4_INT32, B, W, W);
      dsv4_tensor meta = tensor2(d_meta, DSV4_INT32, B + 1, 2, 2);

      for (int32_t k : ks) {
        Result res[2];  // 0 = PAGE_TABLE, 1 = INDICES
        for (int mode = 0; mode < 2; ++mode) {
          Result& r = res[mode];
          const uint32_t bit = mode == 0 ? DSV4_MODE_PAGE_TABLE : DSV4_MODE_INDICES;
          if (context_lost) { r.error = "skipped: CUDA context lost earlier"; continue; }
          if (!(pl.caps.topk_v2_modes & bit)) { r.error = "mode not supported by the plugin"; continue; }
          dsv4_tensor out = tensor2(d_out, DSV4_INT32, B, k, k);
          const dsv4_tensor* ptp = mode == 0 ? &pt : nullptr;
          // The plan (when this batch size uses one) is built once from the same seq_lens, outside
          // the transform's timing, as production builds it a forward pass earlier.
          int32_t written = 0;
          dsv4_message msg{};
          if (pl.plan_is_written && pl.plan && pl.plan_is_written(B, &written, &msg) == DSV4_OK && written) {
            if (pl.plan(&seq, &meta, -1, st, 1, &msg) != DSV4_OK) { r.error = std::string("plan: ") + msg.text; continue; }
            r.plan_us = time_median_us(st, o, [&](std::string& e) {
              dsv4_message m{};
              if (pl.plan(&seq, &meta, -1, st, 0, &m) == DSV4_OK) return true;
              e = std::string("plan: ") + m.text;
              return false;
            }, err);
          }
          const dsv4_tensor* metap = written ? &meta : nullptr;
          BENCH_CUDA(cudaMemset(d_out, 0xC7, B * k * sizeof(int32_t)));  // -943208505: not producible
          if (pl.transform_paged(&scores, &seq, ptp, &out, kPageSize, metap, nullptr, st, 1, &msg) != DSV4_OK) {
            r.error = msg.text;
            continue;
          }
          std::vector<int32_t> h_out(B * k);
          if (cudaError_t e = cudaMemcpyAsync(h_out.data(), d_out, h_out.size() * sizeof(int32_t),
                                              cudaMemcpyDeviceToHost, st);
              e != cudaSuccess || (e = cudaStreamSynchronize(st)) != cudaSuccess) {
            r.error = std::string("CUDA error after the checked launch: ") + cudaGetErrorString(e);
            context_lost = true;
            continue;
          }
          r.path = summarize_paths(pl, st, B);
          RowCheck ck = check_topk_rows_f32(h_scores.data(), L, lens, h_out.data(), B, k,
                                            mode == 0 ? &table : nullptr, W, kPageSize);
          r.check = ck.ok ? "OK" : "FAIL: " + ck.message;
          r.us = time_median_us(st, o, [&](std::string& e) {
            dsv4_message m{};
            if (pl.transform_paged(&scores, &seq, ptp, &out, kPageSize, metap, nullptr, st, 0, &m) == DSV4_OK) return true;
            e = m.text;
            return false;
          }, err);
          {
            const std::string what = std::string("topk_v2 ") + (mode == 0 ? "paged" : "indices") + " B=" +
                                     std::to_string(B) + " L=" + std::to_string(L) + " k=" + std::to_string(k);
            report_host_us(what.c_str());
          }
          if (r.us < 0) {
            r.error = err;
            if (cudaDeviceSynchronize() != cudaSuccess) context_lost = true;
          }
        }
        const Result& shown = res[0].us >= 0 ? res[0] : res[1];
        const double ratio = shown.us >= 0 && floor_us > 0 ? shown.us / floor_us : -1.0;
        std::string check = res[0].check;
        if (res[1].check != "-" && res[1].check != "OK") check = "indices " + res[1].check;
        else if (check == "-") check = res[1].check;
        std::string errs;
        for (int m = 0; m < 2; ++m)
          if (!res[m].error.empty()) errs += std::string(errs.empty() ? "" : "; ") + (m ? "indices: " : "paged: ") + res[m].error;
        char ratio_s[32];
        std::snprintf(ratio_s, sizeof ratio_s, ratio >= 0 ? "%.2f" : "-", ratio);
        std::printf("| %lld | %lld | %d | %s | %s | %s | %s | %s | %s%s%s |\n", (long long)B, (long long)L, k,
                    shown.path.empty() ? "-" : shown.path.c_str(), fmt_us(res[0].us).c_str(), fmt_us(res[1].us).c_str(),
                    fmt_us(floor_us).c_str(), ratio_s, check.c_str(), errs.empty() ? "" : " — ", errs.c_str());
        std::fflush(stdout);
        if (csv) {
          for (int m = 0; m < 2; ++m) {
            const Result& r = res[m];
            const double rr = r.us >= 0 && floor_us > 0 ? r.us / floor_us : -1.0;
            std::fprintf(csv, "topk_v2,fp32,%lld,%lld,%d,%s,%s,%s,%s,%.2f,%s,%s,%s,%s,%s\n", (long long)B,
                         (long long)L, k, m ? "indices" : "paged", csv_escape(r.path).c_str(),
                         r.us >= 0 ? fmt_us(r.us).c_str() : "", r.plan_us >= 0 ? fmt_us(r.plan_us).c_str() : "",
                         launch_us, fmt_us(read_us).c_str(), fmt_us(floor_us).c_str(),
                         rr >= 0 ? (std::to_string(rr).substr(0, 5)).c_str() : "", csv_escape(r.check).c_str(),
                         csv_escape(r.error).c_str());
          }
          std::fflush(csv);
        }
      }
    }
  }
  if (csv) std::fclose(csv);
  return context_lost ? 1 : 0;
}
