// kernels/topk_v2/topk_v2_launch.cu -- Top-K v2 host side: sizing from the occupancy probe and
// the config snapshot (§5.4, §7) and the launches (never a zero-size grid); the dispatch decision
// they follow is topk_v2_dispatch.cu.
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "kernels/common/config.hpp"
#include "kernels/common/validate.hpp"
#include "kernels/occupancy_probe/occupancy_probe.hpp"
#include "kernels/topk_v2/topk_v2_host.hpp"
#include "kernels/topk_v2/topk_v2_kernels.cuh"

namespace dsv4::ours::topk {
namespace {

simt::rt::LaunchConfig base_config(int grid, int cluster, void* stream) {
  simt::rt::LaunchConfig c;
  c.grid = dim3(static_cast<unsigned>(grid), 1, 1);
  c.block = dim3(kThreads, 1, 1);
  c.cluster = dim3(static_cast<unsigned>(cluster), 1, 1);
  c.nonportable_cluster = cluster > 8;
  c.stream = static_cast<simt::rt::stream_t>(stream);
  c.pdl = true;
  return c;
}

// The 8-wide cluster kernel: its 1-CTA/SM (64-register, register rows) instantiation when all B
// clusters of the launch are co-resident at one CTA per SM (Decision::wide, B <= Sizing::P1). The
// CPU build has no launch bounds but keeps both (they differ in where whole-cluster rows live).
auto cluster8_kernel(bool wide) {
  if (wide) return &topk_cluster_kernel<8, 1>;
  return &topk_cluster_kernel<8>;
}

// How many clusters of `nr` CTAs of `kernel` (a 1-CTA/SM instantiation) are co-resident: the
// occupancy query's answer, 0 on failure (clearing only that failure: the kernel goes unused).
template <class K>
int resident_clusters(K kernel, int nr) {
  int v = 0;
  if (simt::rt::max_active_clusters(base_config(nr, nr, nullptr), kernel, &v) == simt::rt::kSuccess)
    return v > 0 ? v : 0;
  simt::rt::last_error();
  return 0;
}

// The launch's own result decides (a runtime error left pending by an earlier, unrelated call is
// not ours); a failure is returned here and not left pending for the caller's next check.
dsv4_result launched(simt::rt::error_t e, const char* what, dsv4_message* msg) {
  if (e == simt::rt::kSuccess) return DSV4_OK;
  simt::rt::last_error();  // clear
  return fail(msg, DSV4_ERR_CUDA, "topk_v2: launching %s failed: %s", what, simt::rt::error_string(e));
}

// Pool size P (§7): the real pool kernel's occupancy query unless a probe result is injected,
// else probe(8, 2) (the pool kernel's launch bounds give 2 CTAs/SM); driver answer 0 disables
// the pool; any other failure falls back to the arch default with a logged warning.
void size_pool(Sizing* s, const dsv4_config& cfg) {
  const int arch_default = s->cc_major >= 10 ? 33 : 30;
  if (cfg.inject_probe_c8 == -1) {
    int v = -1;
    const auto e = simt::rt::max_active_clusters(base_config(8, 8, nullptr), topk_pool_kernel, &v);
    if (e == simt::rt::kSuccess && v >= 0) {
      s->P = v;
      s->p_from_kernel = true;
      return;
    }
    simt::rt::last_error();  // clear
  }
  int v = 0;
  dsv4_message m{};
  const dsv4_result r = probe_max_active_clusters(8, 2, &v, &m);
  if (r == DSV4_OK) {
    s->P = v;
    s->probe_c8 = v;
  } else if (r == DSV4_ERR_NO_SCHEDULABLE_CLUSTERS) {
    s->P = 0;
    s->probe_c8 = 0;
  } else {
    s->P = arch_default;
    std::fprintf(stderr, "dsv4 topk_v2: cluster-8 probe failed (%s); pool size falls back to %d\n",
                 m.text, arch_default);
  }
}

std::mutex g_mu;
int g_dev = -1;
unsigned g_gen = 0;
Sizing g_sizing;

}  // namespace

dsv4_result resolve_sizing(Sizing* out, dsv4_message* msg) {
  std::lock_guard<std::mutex> lock(g_mu);
  simt::rt::DeviceProps p;
  const auto e = simt::rt::device_props(&p);
  if (e != simt::rt::kSuccess)
    return fail(msg, DSV4_ERR_CUDA, "topk_v2: device query failed: %s", simt::rt::error_string(e));
  if (g_dev == p.device && g_gen == config_generation()) {
    *out = g_sizing;
    return DSV4_OK;
  }
  const dsv4_config& cfg = user_config();
  Sizing s;
  s.cc_major = p.cc_major;
  s.cc_minor = p.cc_minor;
  s.cluster_capable = p.cc_major >= 9 && p.cluster_launch != 0;
  const bool arch_on = p.cc_major == 9 || p.cc_major == 10;
  s.cluster_ok = s.cluster_capable && (cfg.cluster_enable < 0 ? arch_on : cfg.cluster_enable != 0);
  if (s.cluster_ok) {
    size_pool(&s, cfg);
    int v = 0;
    dsv4_message m{};
    s.C16 = probe_max_active_clusters(16, 1, &v, &m) == DSV4_OK ? v : 0;
    // the wide 8-wide kernel's own occupancy answer (H200: 15 = half of P; a 16th cluster would
    // wait for a second wave: B=16 L=131072 +15 % in the A/B of 20:44)
    if (DSV4_TOPK_C8_WIDE) s.P1 = resident_clusters(cluster8_kernel(true), 8);
    // the mid-batch cluster kernels' own answers (H200: 30 clusters of 4, 66 of 2); 0 = off
    if (DSV4_TOPK_MID_CLUSTER && cfg.mid_cluster_enable != 0) {
      s.P1_4 = resident_clusters(&topk_cluster_kernel<4, 1>, 4);
      s.P1_2 = resident_clusters(&topk_cluster_kernel<2, 1>, 2);
    }
  }
  const bool b100 = p.cc_major == 10;
  // F(B) for B <= 15 on sm_90: 16384 (the spec's upstream default is 32768). Measured on the H200
  // (docs/performance.md, fifth pass): rows in (16K, 32K] take 10.1 / 9.8 us on Cluster-16 vs
  // 11.3 / 13.0 us single-CTA (B=1, L=24576 / 32768, k=512). sm_100 keeps the upstream value.
  const int fs = p.cc_major == 9 ? 16384 : (b100 ? 24576 : INT_MAX);
  const int fl = p.cc_major == 9 ? 65536 : (b100 ? 30720 : INT_MAX);
  s.floor_small = or_default(cfg.cluster_floor_small, fs);
  s.floor_large = or_default(cfg.cluster_floor_large, fl);
  s.small_batch_cut = or_default(cfg.small_batch_cut, 15);
  s.max_batch = or_default(cfg.cluster_max_batch, 512);
  s.t_min = or_default(cfg.plan_t_min, 32768);
  s.r2 = or_default(cfg.register2_max, kRegister2Max);
  if (s.r2 > kRegister2Max) s.r2 = kRegister2Max;
  s.r4 = or_default(cfg.register4_max, kRegister4Max);
  if (s.r4 > kRegister4Max) s.r4 = kRegister4Max;
  s.tie_cap = or_default(cfg.tie_capacity, kTieStage);
  if (s.tie_cap > kTieStage) s.tie_cap = kTieStage;
  s.force = cfg.force_path;
  s.early_read = cfg.early_read > 0 ? 1 : 0;
  s.rest_ring = cfg.rest_ring_off != 1;
  s.sm_count = p.sm_count;
  s.smem_per_sm = p.smem_per_sm;
  if (const char* e = std::getenv("DSV4_PRINT_SIZING"); e != nullptr && e[0] == '1')  // diagnostics
    std::fprintf(stderr, "dsv4 topk_v2 sizing: cc %d.%d SMs %d clusters %s P %d C16 %d P1 %d P1_4 %d P1_2 %d F %d/%d (B <= %d)\n",
                 s.cc_major, s.cc_minor, s.sm_count, s.cluster_ok ? "on" : "off", s.P, s.C16, s.P1,
                 s.P1_4, s.P1_2, s.floor_small, s.floor_large, s.small_batch_cut);
  g_sizing = s;
  g_dev = p.device;
  g_gen = config_generation();
  *out = s;
  return DSV4_OK;
}

dsv4_result launch_plan(const Sizing& s, const int* seq_lens, int B, int* meta, int static_threshold,
                        void* stream, dsv4_message* msg) {
  PlanParams pp;
  pp.static_threshold = static_threshold;
  pp.t_min = s.t_min;
  pp.forced = s.force == DSV4_PATH_POOL;
  static const int t90[][2] = {{65536, 30}, {98304, 45}, {131072, 60}, {196608, 80}, {262144, 112}, {393216, 128}};
  static const int t100[][2] = {{32768, 48}, {131072, 66}, {163840, 99}, {196608, 132},
                                {262144, 198}, {393216, 231}, {524288, 264}};
  const bool b100 = s.cc_major >= 10;
  pp.nt = b100 ? 7 : 6;
  for (int j = 0; j < pp.nt; ++j) {
    pp.thr[j] = b100 ? t100[j][0] : t90[j][0];
    pp.cap[j] = b100 ? t100[j][1] : t90[j][1];
  }
  StatusBlock* st = status_block(msg);
  if (!st) return DSV4_ERR_CUDA;
  const auto e = simt::rt::launch(base_config(1, 1, stream), topk_plan_kernel, seq_lens, B, meta, pp, st);
  return launched(e, "the plan kernel", msg);
}

// The main kernel without the pool: its 1-CTA/SM instantiation for wide launches. The CPU build
// has no launch bounds (the instantiations would be the same code): one kernel there.
template <bool kR4, bool kStage, bool kLean = false>
auto main_kernel(bool wide) {
#if defined(__CUDACC__)
  if (wide) return &topk_main_kernel<kR4, kStage, 1, kLean>;
#else
  (void)wide;
#endif
  return &topk_main_kernel<kR4, kStage, DSV4_TOPK_MAIN_MIN_BLOCKS, kLean>;
}

// A staged launch's dynamic shared memory (run_single's layout): the stage, `stage` values and
// positions of 4 bytes each, then the rest's ring, `ring` 16-byte slots a thread.
size_t staged_dynamic_smem(int stage, int ring) {
  return static_cast<size_t>(stage) * 8 + static_cast<size_t>(ring) * kThreads * 16;
}

// The rest's cp.async ring with a stage of `stage` elements (StagedSrc::ring_pass): kRestAsync
// slots a thread when the CTA's shared memory (static, the stage, the ring) stays within
// `cta_bytes` (Decision::ring_cta_bytes; 0 = no ring), else none.
int rest_ring_depth(int stage, int cta_bytes) {
  const size_t bytes = sizeof(Smem) + staged_dynamic_smem(stage, kRestAsync);
  return kRestAsync > 0 && cta_bytes > 0 && bytes <= static_cast<size_t>(cta_bytes) ? kRestAsync : 0;
}

// The Register4-capable main kernel (grid B): with the Streaming stage in dynamic shared memory
// when d.stage (a separate instantiation), with Register4 rows there when d.lean (another), in
// its 1-CTA/SM instantiation when d.wide.
simt::rt::error_t launch_main_r4(Args a, const Decision& d, void* stream) {
  simt::rt::LaunchConfig c = base_config(a.B, 1, stream);
  a.stage = d.stage ? stage_slots(a.K, a.L) * kThreads : 0;
  if (d.lean) {
    c.dynamic_smem = kLeanBytes;
    return simt::rt::launch(c, main_kernel<true, false, true>(d.wide), a);
  }
  if (!d.stage) return simt::rt::launch(c, main_kernel<true, false>(d.wide), a);
  a.ring = rest_ring_depth(a.stage, d.ring_cta_bytes);
  c.dynamic_smem = staged_dynamic_smem(a.stage, a.ring);
  return simt::rt::launch(c, main_kernel<true, true>(d.wide), a);
}

#if DSV4_TOPK_TIMELINE
constexpr int kTlMaxCtas = 16384;
unsigned long long* g_tl = nullptr;  // [kTlMaxCtas][2][kTlPoints], armed by dsv4_topk_v2_timeline
#endif

dsv4_result launch_transform(const Args& a0, const Decision& d, void* stream, dsv4_message* msg) {
#if DSV4_TOPK_TIMELINE
  Args at = a0;
  at.tl = g_tl;
  const Args& a = at;
#else
  const Args& a = a0;
#endif
  if (a.B <= 0) return DSV4_OK;
  simt::rt::error_t e = simt::rt::kSuccess;
  switch (d.kernel) {
    case DSV4_PATH_CLUSTER8:
      e = simt::rt::launch(base_config(a.B * 8, 8, stream), cluster8_kernel(d.wide), a);
      return launched(e, "the cluster-8 kernel", msg);
    case DSV4_PATH_CLUSTER16:
      e = simt::rt::launch(base_config(a.B * 16, 16, stream), topk_cluster_kernel<16>, a);
      return launched(e, "the cluster-16 kernel", msg);
    case DSV4_PATH_CLUSTER4: case DSV4_PATH_CLUSTER2: {
      const int nr = cluster_ranks(d.kernel);
      simt::rt::LaunchConfig c = base_config(a.B * nr, nr, stream);
      Args m = a;
      m.stage = d.stage ? 1 : 0;  // rank shares in dynamic shared memory (SmemSrc<8, NR>)
      if (d.stage) c.dynamic_smem = kClusterRowBytes;
      e = nr == 4 ? simt::rt::launch(c, topk_cluster_kernel<4, 1>, m) : simt::rt::launch(c, topk_cluster_kernel<2, 1>, m);
      return launched(e, nr == 4 ? "the cluster-4 kernel" : "the cluster-2 kernel", msg);
    }
    case DSV4_PATH_POOL: {
      if (d.pool_clusters <= 0) return fail(msg, DSV4_ERR_INTERNAL, "topk_v2: zero-size pool");
      e = simt::rt::launch(base_config(d.pool_clusters * 8, 8, stream), topk_pool_kernel, a, d.pool_clusters);
      if (dsv4_result r = launched(e, "the pool kernel", msg); r != DSV4_OK) return r;
      return launched(launch_main_r4(a, d, stream), "the pool-aware main kernel", msg);
    }
    case DSV4_PATH_REGISTER2: {
      Args m = a;  // the Register2-only kernel never carries the stage (its rows stream twice)
      m.plan = nullptr;
      e = simt::rt::launch(base_config(a.B, 1, stream), main_kernel<false, false>(d.wide), m);
      return launched(e, "the main kernel", msg);
    }
    default: {
      Args m = a;
      m.plan = nullptr;
      return launched(launch_main_r4(m, d, stream), "the main kernel", msg);
    }
  }
}

}  // namespace dsv4::ours::topk

#if DSV4_TOPK_TIMELINE
// Timing instrument (DSV4_TOPK_TIMELINE builds only): dst == NULL arms the timeline (a zeroed
// device buffer the next launches stamp); else copies the stamps of the first `ctas` CTAs
// ([CTA][2][kTlPoints]: ns, then SM cycles; 0 = not reached) to dst. Returns the points per CTA
// (kTlPoints), -1 on failure.
extern "C" int dsv4_topk_v2_timeline(unsigned long long* dst, int ctas) {
  using namespace dsv4::ours::topk;
  const size_t bytes = sizeof(unsigned long long) * kTlMaxCtas * 2 * kTlPoints;
  if (g_tl == nullptr && simt::rt::device_malloc(reinterpret_cast<void**>(&g_tl), bytes) != simt::rt::kSuccess)
    return -1;
  if (dst == nullptr)
    return simt::rt::memset_async(g_tl, 0, bytes, nullptr) == simt::rt::kSuccess &&
                   simt::rt::stream_sync(nullptr) == simt::rt::kSuccess ? kTlPoints : -1;
  if (ctas > kTlMaxCtas) ctas = kTlMaxCtas;
  return simt::rt::memcpy_d2h(dst, g_tl, sizeof(unsigned long long) * ctas * 2 * kTlPoints, nullptr) ==
                 simt::rt::kSuccess ? kTlPoints : -1;
}
#endif
