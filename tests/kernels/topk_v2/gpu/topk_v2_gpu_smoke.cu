// tests/kernels/topk_v2/gpu/topk_v2_gpu_smoke.cu -- GPU smoke + timing of OUR Top-K v2 (built by
// scripts/gpu/topk_v2_gpu.sh with the kernels linked in). Every forced path and the automatic
// dispatch at production shapes, single-bin families (threshold-bin overflow at both widths),
// signed zeros, -inf, NaN; a self-contained exact check (sorted value multiset, prefix of v
// valid slots, distinct in-range positions, guard columns). Then CUDA-event timings of the
// automatic dispatch. Prints one line per case; exit status 1 if any case fails.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "dsv4/indexer_abi.h"

#ifndef DSV4_TOPK_ABLATE
#define DSV4_TOPK_ABLATE 0
#endif
#ifndef DSV4_TOPK_TIMELINE
#define DSV4_TOPK_TIMELINE 0
#endif
#if DSV4_TOPK_TIMELINE
extern "C" int dsv4_topk_v2_timeline(unsigned long long* dst, int ctas);  // topk_v2_launch.cu
#endif

namespace {

constexpr int kGuard = 4;
constexpr int32_t kFill = -12345;

uint32_t okey(float x) {  // order key with +-0 equal
  uint32_t u;
  std::memcpy(&u, &x, 4);
  if ((u & 0x7FFFFFFFu) == 0) return 0x80000000u;
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

void fill(std::vector<float>& row, int n, int family, std::mt19937& g) {
  std::normal_distribution<float> nd;
  std::uniform_real_distribution<float> u(0, 1);
  for (int i = 0; i < n; ++i) {
    float v = nd(g);
    switch (family) {
      case 1: v = i < n / 3 ? -1.0f : 1.0f + u(g) * 0.001f; break;    // distinct, 12-bit bin 3008, largest last
      case 2: v = i < n / 3 ? -1.0f : 1.0f + u(g) * 0.05f; break;     // 10-bit bin 752
      case 3: v = (0.5f + u(g)) * 1e-30f; break;                       // tiny: zero bins
      case 4: v = g() % 4 ? 65520.0f + u(g) * 1e6f : INFINITY; break;  // huge
      case 5: v = i % 97 == 0 ? nd(g) : -INFINITY; break;             // neg-inf, few finite
      case 6: v = g() % 8 ? -0.0f : (g() % 2 ? 0.0f : std::fabs(v)); break;  // signed zeros
      case 7: v = g() % 16 == 0 ? NAN : v; break;                      // NaN sprinkles
      case 8: v = (i & 1) ? 1.0f : std::nextafter(1.0f, 2.0f); break;  // ties
      default: break;
    }
    row[i] = v;
  }
}

struct Stat { int pass = 0, fail = 0; };

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA %s: %s\n", #x, cudaGetErrorString(e_)); std::exit(2); } } while (0)

// --timeline: launches per configuration whose phase stamps are gathered (0 = no timeline).
int g_timeline_reps = 0;

int ranks_of(int path) {
  return path == DSV4_PATH_CLUSTER16 ? 16 : path == DSV4_PATH_CLUSTER8 ? 8 : path == DSV4_PATH_CLUSTER4 ? 4
         : path == DSV4_PATH_CLUSTER2 ? 2 : 1;
}

[[maybe_unused]] double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The phase timeline of `reps` launches (DSV4_TOPK_TIMELINE builds): per phase boundary, the
// median over CTAs and launches of the ns since the CTA's entry stamp, for cluster rank 0 and
// the other ranks apart; the launch's span from the first entry to the last stamp; the entry
// spread (waves). `launch` runs one transform.
template <class Launch>
void print_timeline(int B, int nr, int reps, Launch&& launch) {
#if DSV4_TOPK_TIMELINE
  static const char* names[] = {"entry", "len", "loaded", "sampled", "guessed", "restaged", "hist", "fold",
                                "threshold", "masked", "selpushed", "classified", "refined", "published",
                                "ranked", "written"};  // TlPoint order (topk_v2_keys.cuh)
  const int ctas = B * nr, np = static_cast<int>(sizeof names / sizeof names[0]);
  int khz = 0;
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  std::vector<unsigned long long> st(static_cast<size_t>(ctas) * 2 * np);
  std::vector<std::vector<double>> d[2], c[2];  // ns by %globaltimer / SM cycles, rank 0 and the others
  for (int g = 0; g < 2; ++g) { d[g].resize(np); c[g].resize(np); }
  std::vector<double> span, spread;
  for (int r = 0; r < reps; ++r) {
    const int armed = dsv4_topk_v2_timeline(nullptr, 0);  // the kernels' point count, -1 = failed
    if (armed != np) {
      std::printf("timeline: arm failed or names[] is not TlPoint (%d points, %d names)\n", armed, np);
      return;
    }
    launch();
    CK(cudaDeviceSynchronize());
    if (dsv4_topk_v2_timeline(st.data(), ctas) != np) { std::printf("timeline: read failed\n"); return; }
    unsigned long long t0 = ~0ull, t0max = 0, t1 = 0;
    for (int cta = 0; cta < ctas; ++cta) {
      const unsigned long long* x = &st[static_cast<size_t>(cta) * 2 * np];
      const unsigned long long* k = x + np;
      if (x[0] == 0) continue;
      t0 = std::min(t0, x[0]);
      t0max = std::max(t0max, x[0]);
      const int g = cta % nr == 0 ? 0 : 1;
      for (int i = 1; i < np; ++i)
        if (x[i] != 0) {
          d[g][i].push_back(static_cast<double>(x[i] - x[0]));
          c[g][i].push_back(static_cast<double>(k[i] - k[0]));
          t1 = std::max(t1, x[i]);
        }
    }
    if (t0 != ~0ull) { span.push_back(static_cast<double>(t1 - t0)); spread.push_back(static_cast<double>(t0max - t0)); }
  }
  std::printf("timeline B=%d ranks=%d launches=%d: span %.0f ns (first entry to last stamp), entry spread %.0f ns; "
              "cycles as ns at %d MHz\n", B, nr, reps, median(span), median(spread), khz / 1000);
  std::printf("| point | rank0 n | rank0 ns | rank0 cyc-ns | others n | others ns | others cyc-ns |\n"
              "|---|---:|---:|---:|---:|---:|---:|\n");
  const double ns_per_cycle = khz > 0 ? 1e6 / khz : 0;
  for (int i = 1; i < np; ++i)
    if (!d[0][i].empty() || !d[1][i].empty())
      std::printf("| %s | %zu | %.0f | %.0f | %zu | %.0f | %.0f |\n", names[i], d[0][i].size(), median(d[0][i]),
                  median(c[0][i]) * ns_per_cycle, d[1][i].size(), median(d[1][i]), median(c[1][i]) * ns_per_cycle);
  std::printf("tlsum span=%.0f", median(span));  // one line for scripts/gpu/topk_v2_timeline.sh
  for (int i = 1; i < np; ++i) std::printf(" %s=%.0f", names[i], median(d[0][i]));
  std::printf("\n");
#else
  (void)B; (void)nr; (void)reps; (void)launch;
#endif
}


bool check_row(const float* x, int n, int K, const int32_t* got, std::string* why) {
  if (n <= K) {
    for (int s = 0; s < K; ++s)
      if (got[s] != (s < n ? s : -1)) { *why = "trivial slot " + std::to_string(s); return false; }
    return true;
  }
  std::vector<uint32_t> keys;
  for (int i = 0; i < n; ++i) if (!std::isnan(x[i])) keys.push_back(okey(x[i]));
  const int v = std::min<int>(K, static_cast<int>(keys.size()));
  std::sort(keys.rbegin(), keys.rend());
  keys.resize(v);
  std::vector<uint32_t> sel;
  std::vector<char> seen(n, 0);
  for (int s = 0; s < K; ++s) {
    const int p = got[s];
    if (s >= v) { if (p != -1) { *why = "slot not -1 after prefix"; return false; } continue; }
    if (p < 0 || p >= n) { *why = "position out of range " + std::to_string(p); return false; }
    if (seen[p]++) { *why = "duplicate position"; return false; }
    if (std::isnan(x[p])) { *why = "NaN selected"; return false; }
    sel.push_back(okey(x[p]));
  }
  std::sort(sel.rbegin(), sel.rend());
  if (sel != keys) { *why = "value multiset differs"; return false; }
  return true;
}

void set_force(int path) {
  dsv4_config c;
  std::memset(&c, 0xff, sizeof c);
  c.struct_size = sizeof c;
  c.force_path = path;
  c.early_read = 0;
  dsv4_set_config(&c, nullptr);
}

// DSV4_SMOKE_PAGE_BITS=b (b > 0): every case in the paged transform, page_size 2^b, each row's
// table a random permutation of its own pages (as topk_v2_bench); outputs mapped back to window
// positions before the check. Unset or 0: page_size 1, no table.
int page_bits_env() {
  const char* e = std::getenv("DSV4_SMOKE_PAGE_BITS");
  const int b = e != nullptr ? std::atoi(e) : 0;
  return b > 0 && b < 20 ? b : 0;
}

// Runs one case; returns true when exact. time_us >= 0 requests a timing of `reps` transforms.
bool run_case(int B, int L, int K, int family, int path, unsigned seed, double* time_us, int reps) {
  set_force(path);
  std::mt19937 g(seed);
  const int pbits = page_bits_env(), W = pbits > 0 ? (L + (1 << pbits) - 1) >> pbits : 1;
  std::vector<int32_t> table, inv;  // (none without pages: no draws, the cases stay as they were)
  if (pbits > 0) {
    table.resize(static_cast<size_t>(B) * W);
    inv.resize(table.size());
    for (int b = 0; b < B; ++b) {
      int32_t* t = table.data() + static_cast<size_t>(b) * W;
      for (int c = 0; c < W; ++c) t[c] = b * W + c;
      std::shuffle(t, t + W, g);
      for (int c = 0; c < W; ++c) inv[t[c]] = c;
    }
  }
  const int S = (L + 3) / 4 * 4, OS = K + kGuard;
  std::vector<float> h(static_cast<size_t>(B) * S, 0.0f);
  std::vector<int32_t> lens(B);
  for (int b = 0; b < B; ++b) {
    lens[b] = (b % 5 == 4) ? std::max(0, L - 1 - static_cast<int>(g() % 1000)) : L;
    std::vector<float> row(L);
    fill(row, L, family, g);
    std::copy(row.begin(), row.end(), h.begin() + static_cast<size_t>(b) * S);
  }
  float* ds; int32_t *dl, *dout, *dmeta;
  CK(cudaMalloc(&ds, h.size() * 4));
  CK(cudaMalloc(&dl, B * 4));
  CK(cudaMalloc(&dout, static_cast<size_t>(B) * OS * 4));
  CK(cudaMalloc(&dmeta, static_cast<size_t>(B + 1) * 8));
  CK(cudaMemcpy(ds, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dl, lens.data(), B * 4, cudaMemcpyHostToDevice));
  int32_t* dpt = nullptr;
  if (pbits > 0) {
    CK(cudaMalloc(&dpt, table.size() * 4));
    CK(cudaMemcpy(dpt, table.data(), table.size() * 4, cudaMemcpyHostToDevice));
  }
  dsv4_tensor tpt{dpt, DSV4_INT32, 2, {B, W}, {W, 1}};
  const dsv4_tensor* ptp = pbits > 0 ? &tpt : nullptr;
  const int64_t psz = int64_t{1} << pbits;
  std::vector<int32_t> out(static_cast<size_t>(B) * OS, kFill);
  CK(cudaMemcpy(dout, out.data(), out.size() * 4, cudaMemcpyHostToDevice));
  dsv4_tensor ts{ds, DSV4_FLOAT32, 2, {B, L}, {S, 1}}, tl{dl, DSV4_INT32, 1, {B, 0}, {1, 0}};
  dsv4_tensor to{dout, DSV4_INT32, 2, {B, K}, {OS, 1}}, tm{dmeta, DSV4_INT32, 2, {B + 1, 2}, {2, 1}};
  dsv4_message m{};
  int32_t written = 0;
  dsv4_topk_v2_plan_is_written(B, &written, &m);
  bool ok = true;
  if (written && dsv4_topk_v2_plan(&tl, &tm, -1, nullptr, 0, &m) != DSV4_OK) { std::printf("plan: %s\n", m.text); ok = false; }
  if (dsv4_topk_v2_transform_paged(&ts, &tl, ptp, &to, psz, &tm, nullptr, nullptr, 0, &m) != DSV4_OK) {
    std::printf("transform: %s\n", m.text);
    ok = false;
  }
  dsv4_device_status st{};
  dsv4_check_status(nullptr, &st, &m);
  std::vector<int32_t> paths(B, -1);
  dsv4_read_row_paths(nullptr, paths.data(), B, &m);
  CK(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
  if (pbits > 0)  // page-table entries back to window positions (the check's view); a page of
    for (int b = 0; b < B; ++b)  // another row, or of none, becomes an out-of-range position
      for (int s = 0; s < K; ++s) {
        int32_t& o = out[static_cast<size_t>(b) * OS + s];
        if (o < 0) continue;
        const int32_t t = o >> pbits;
        o = t / W == b ? (inv[t] << pbits) | (o & ((1 << pbits) - 1)) : INT32_MAX;
      }
  std::string why;
  int bad_row = -1;
  for (int b = 0; b < B && ok; ++b) {
    for (int gcol = 0; gcol < kGuard; ++gcol)
      if (out[static_cast<size_t>(b) * OS + K + gcol] != kFill) { why = "guard column written"; ok = false; }
    if (ok && !check_row(h.data() + static_cast<size_t>(b) * S, lens[b], K, out.data() + static_cast<size_t>(b) * OS, &why)) ok = false;
    if (!ok) bad_row = b;
  }
  if (st.code_mask != 0) { ok = false; why += " status mask " + std::to_string(st.code_mask); }
  // A timing-only phase cut (DSV4_TOPK_ABLATE, scripts/gpu/topk_v2_ab.sh) leaves rows unwritten:
  // its launches are timed although the check fails.
  if (time_us && (ok || DSV4_TOPK_ABLATE != 0)) {
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int i = 0; i < 10; ++i) dsv4_topk_v2_transform_paged(&ts, &tl, ptp, &to, psz, &tm, nullptr, nullptr, 0, &m);
    cudaEventRecord(e0);
    for (int i = 0; i < reps; ++i) dsv4_topk_v2_transform_paged(&ts, &tl, ptp, &to, psz, &tm, nullptr, nullptr, 0, &m);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    *time_us = 1000.0 * ms / reps;
    if (g_timeline_reps > 0)
      print_timeline(B, ranks_of(paths[0]), g_timeline_reps, [&] {
        dsv4_topk_v2_transform_paged(&ts, &tl, ptp, &to, psz, &tm, nullptr, nullptr, 0, &m);
      });
  }
  std::printf("%s B=%d L=%d K=%d family=%d force=%d path[0]=%d path[B-1]=%d%s%s\n", ok ? "PASS" : "FAIL", B, L, K,
              family, path, paths[0], paths[B - 1], ok ? "" : (" row " + std::to_string(bad_row) + ": ").c_str(),
              ok ? "" : why.c_str());
  cudaFree(ds); cudaFree(dl); cudaFree(dout); cudaFree(dmeta); cudaFree(dpt);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  const bool timing_only = argc > 1 && std::string(argv[1]) == "--timing";
  int fails = 0;
  // --one B L K reps [path]: one timed config (profilers; path = a forced dsv4_path, default auto)
  if ((argc == 6 || argc == 7) && std::string(argv[1]) == "--one") {
    double us = -1;
    const int path = argc == 7 ? std::atoi(argv[6]) : 0;
    const bool ok = run_case(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), 0, path, 7, &us, std::atoi(argv[5]));
    std::printf("| %s | %s | %s | %d | %.1f |\n", argv[2], argv[3], argv[4], path, us);
    return ok ? 0 : 1;
  }
  // --timeline reps "B:L:K:path ...": the phase timeline of each configuration (DSV4_TOPK_TIMELINE
  // builds; path = a forced dsv4_path, 0 = auto), after its exact check and a timing.
  if (argc == 4 && std::string(argv[1]) == "--timeline") {
    g_timeline_reps = std::atoi(argv[2]);
    std::string cfgs = argv[3];
    for (size_t at = 0; at < cfgs.size();) {
      size_t e = cfgs.find(' ', at);
      if (e == std::string::npos) e = cfgs.size();
      int b = 0, l = 0, k = 0, path = 0;
      if (std::sscanf(cfgs.substr(at, e - at).c_str(), "%d:%d:%d:%d", &b, &l, &k, &path) == 4) {
        double us = -1;
        if (!run_case(b, l, k, 0, path, 7, &us, 50)) ++fails;
        std::printf("| %d | %d | %d | %d | %.1f |\n\n", b, l, k, path, us);
      }
      at = e + 1;
    }
    return fails ? 1 : 0;
  }
  struct Shape { int B, L; };
  const Shape shapes[] = {{8, 4096}, {8, 8193}, {4, 16385}, {4, 40000}, {1, 131072}, {8, 131072}, {40, 131072}};
  const int paths[] = {0, 2, 3, 4, 5, 6, 7, 9, 10};
  const int npaths = static_cast<int>(sizeof paths / sizeof paths[0]);
  for (const Shape& s : shapes)
    for (int pi = 0; pi < (timing_only ? 0 : npaths); ++pi)
      for (int K : {512, 2048})
        for (int family = 0; family <= 8; ++family) {
          if (quick && family % 3) continue;
          if (!run_case(s.B, s.L, K, family, paths[pi], 1000u * s.B + s.L + K + family, nullptr, 0)) ++fails;
        }
  set_force(0);
  if (quick) { std::printf("\n%d failing cases\n", fails); return fails ? 1 : 0; }
  std::printf("\n| B | L | K | us (auto path, transform only, plan excluded) |\n|---:|---:|---:|---:|\n");
  const Shape perf[] = {{1, 4096}, {1, 16384}, {1, 24576}, {1, 32768}, {1, 65536}, {1, 131072}, {15, 65536},
                        {16, 65536}, {16, 131072}, {64, 4096}, {64, 16384}, {64, 32768}, {64, 65536},
                        {64, 131072}, {512, 4096}, {512, 16384}, {512, 32768}, {512, 65536}, {512, 131072}};
  for (const Shape& s : perf)
    for (int K : {512, 2048}) {
      double us = -1;
      if (!run_case(s.B, s.L, K, 0, 0, 7, &us, 50)) ++fails;
      std::printf("| %d | %d | %d | %.1f |\n", s.B, s.L, K, us);
    }
  std::printf("\n%d failing cases\n", fails);
  return fails ? 1 : 0;
}
