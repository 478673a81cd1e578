// tests/kernels/topk_v2/topk_v2_paths_test.cpp -- every dispatch path forced at small sizes (the
// simt instantiation: 128 threads, Register2 <= 1024, Register4 <= 2048 lanes), all output modes,
// path invariance, the threshold-bin refinement (tie capacity lowered) and the automatic choice.
#include "kernels/topk_v2/topk_v2_keys.cuh"
#include "simt/host/virtual_device.hpp"
#include "tests/kernels/topk_v2/topk_v2_test_util.hpp"

#include <algorithm>
#include <functional>
#include <map>

namespace {

using tk::Case;
using tk::Cfg;

using tk::kForcedPaths;

int threads() {
  dsv4_capabilities caps{};
  dsv4_query_capabilities(&caps, nullptr);
  return caps.block_threads;
}

// B rows of mixed lengths (trivial, K+1, register sizes, beyond) filled with a value family.
Case mixed_case(int K, int L, unsigned seed, int family) {
  const int lens[] = {0, K, K + 1, L / 3, L / 2 + 1, L - 1, L};
  Case c(7, L, K);
  std::mt19937 g(seed);
  std::normal_distribution<float> nd;
  for (int b = 0; b < c.B; ++b) {
    c.lens[b] = std::min(lens[b], L);
    for (int i = 0; i < L; ++i) {
      float v = nd(g);
      if (family == 1) v = static_cast<float>(static_cast<int>(v * 2));          // heavy ties
      if (family == 2) v = (g() % 3 == 0) ? -tk::inf() : v;                     // -inf
      if (family == 3) v = (g() % 5 == 0) ? tk::qnan() : v;                     // NaN sprinkles
      if (family == 4) v = (g() % 2) ? -0.0f : ((g() % 4) ? 0.0f : v);          // signed zeros
      c.row(b)[i] = v;
    }
  }
  return c;
}

bool holds(int path, int n_lanes) {
  const int T = threads();
  if (path == DSV4_PATH_REGISTER2) return n_lanes <= T * 8;
  if (path == DSV4_PATH_REGISTER4) return n_lanes <= T * 16;
  return true;
}

TEST(TopkV2Paths, EveryForcedPathIsExactInEveryMode) {
  const int L = 3 * threads() * 4 + 5;  // beyond Register2 and up to Register4 and streaming rows
  for (int path : kForcedPaths) {
    Cfg cfg;
    cfg.c.force_path = path;
    cfg.apply();
    for (int mode = 0; mode < 3; ++mode)
      for (int family = 0; family < 5; ++family) {
        Case c = mixed_case(64, L, 100 * path + 10 * mode + family, family);
        if (mode >= 1) c.identity_table(64);
        c.dual = mode == 2;
        tk::Result r = tk::run(c);
        ASSERT_EQ(r.rc, DSV4_OK) << r.msg;
        EXPECT_ORACLE(c, r);
        EXPECT_TRUE(r.guards_ok);
        EXPECT_TRUE(r.scores_unchanged);
        EXPECT_EQ(r.st.s.code_mask, 0u);
        for (int b = 0; b < c.B; ++b) {
          if (c.lens[b] <= c.K) { EXPECT_EQ(r.paths[b], DSV4_PATH_TRIVIAL); continue; }
          if (holds(path, c.lens[b])) EXPECT_EQ(r.paths[b], path) << "row " << b << " n " << c.lens[b];
        }
      }
  }
}

TEST(TopkV2Paths, PathInvarianceSameValueMultiset) {
  const int L = 2 * threads() * 4;
  Case base = mixed_case(48, L, 7, 1);
  std::map<int, std::vector<std::vector<uint32_t>>> got;
  for (int path : kForcedPaths) {
    Cfg cfg;
    cfg.c.force_path = path;
    cfg.apply();
    Case c = base;
    tk::Result r = tk::run(c);
    ASSERT_EQ(r.rc, DSV4_OK) << r.msg;
    EXPECT_ORACLE(c, r);
    for (int b = 0; b < c.B; ++b) got[path].push_back(tk::selected_keys(c, r, b));
  }
  for (int path : kForcedPaths) EXPECT_EQ(got[path], got[DSV4_PATH_STREAMING]) << "path " << path;
}

// tie capacity 0..small: the radix refinement over the row runs on every path.
TEST(TopkV2Paths, RefinementOverTheRowWhenTieCapacityIsLow) {
  const int L = 2 * threads() * 4 - 3;
  for (int path : kForcedPaths)
    for (int cap : {0, 5}) {
      Cfg cfg;
      cfg.c.force_path = path;
      cfg.c.tie_capacity = cap;
      cfg.apply();
      for (int family : {0, 1, 4}) {
        Case c = mixed_case(32, L, 31 * path + cap + family, family);
        tk::Result r = tk::run(c);
        ASSERT_EQ(r.rc, DSV4_OK) << r.msg;
        EXPECT_ORACLE(c, r);
      }
    }
}

// The one-read Streaming stage when the guess is wrong: the row's head (the sample the guess bin
// comes from) holds K/2 of its K largest values, so the sample overstates the row and the guess
// lands above the threshold bin; the stage must be abandoned for a second read of the row
// (StagedSrc::decide). Exact on every row; the planted DSV4_FAULT_TOPK_STAGE_NO_FALLBACK (the
// incomplete stage used anyway) fails here. A too-full stage (every value in one bin) likewise.
// With the filtered rest (kStageFilter) the histogram is partial and must be counted again in
// both cases: the planted TOPK_STAGE_NO_RECOUNT (row 0) and TOPK_STAGE_OVERFLOW_NO_RECOUNT
// (row 1) fail here too.
TEST(TopkV2Paths, StreamingStageFallsBackWhenTheSampleMisleads) {
  const int n = 16 * threads() * 4;  // 16 / kSampleVpt x the sample (kSampleVpt x threads vectors)
  Cfg cfg;
  cfg.c.force_path = DSV4_PATH_STREAMING;
  cfg.apply();
  for (int K : {64, 512}) {
    Case c(2, n, K);
    std::mt19937 g(97 + K);
    std::normal_distribution<float> nd;
    for (int b = 0; b < c.B; ++b)
      for (int i = 0; i < n; ++i) c.row(b)[i] = b == 1 ? 1.0f + 1e-4f * float(i % 7) : nd(g);
    std::vector<float> sorted(c.row(0), c.row(0) + n);
    std::sort(sorted.begin(), sorted.end(), std::greater<float>());
    std::vector<float> rest;  // row 0: its K/2 largest values first, the rest after them in row order
    for (int i = 0; i < n; ++i)
      if (c.row(0)[i] < sorted[size_t(K / 2 - 1)]) rest.push_back(c.row(0)[i]);
    std::copy(sorted.begin(), sorted.begin() + K / 2, c.row(0));
    std::copy(rest.begin(), rest.end(), c.row(0) + K / 2);
    tk::Result r = tk::run(c);
    ASSERT_EQ(r.rc, DSV4_OK) << r.msg;
    EXPECT_ORACLE(c, r);
  }
}

// The filtered rest's partial histogram (kStageFilter) when the threshold bin is the one just
// below the guess bin: the sample (its first S elements) holds 20 values `a` of bin A and 44 `b`
// of bin A - 1, the rest 100 more `b` and small fillers, K = 64. The guess is A (the sample's
// suffix at A reaches the guess target), the row's threshold bin A - 1 (20 above, 144 in it).
// The histogram holds the rest's bins >= A only, so its search lands on A - 1 too -- with 44
// there, all "taken", 164 selected -- unless the whole row is counted again
// (StagedSrc::needs_recount). A recount skipped at t = g - 1 (a bound off by one) fails here.
TEST(TopkV2Paths, StreamingStageRecountsWhenTheThresholdIsJustBelowTheGuess) {
  namespace topk = dsv4::ours::topk;
  const int S = topk::kSampleVpt * threads() * 4, n = 16 * S, K = 64;
  const int A = topk::coarse_bin(4.0f, 12);
  const float a = 4.0f, b = std::nextafter(topk::coarse_bin_lower_bound(A, 12), 0.0f);
  ASSERT_EQ(topk::coarse_bin(b, 12), A - 1);
  ASSERT_LE(topk::stage_guess_target(K, S / 4, n / 4), 20) << "the sample's 20 values of bin A set the guess";
  Cfg cfg;
  cfg.c.force_path = DSV4_PATH_STREAMING;
  cfg.apply();
  Case c(1, n, K);
  std::mt19937 g(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int i = 0; i < n; ++i) c.row(0)[i] = u(g);
  for (int i = 0; i < 20; ++i) c.row(0)[7 * i] = a;
  for (int i = 0; i < 44; ++i) c.row(0)[7 * i + 3] = b;
  for (int i = 0; i < 100; ++i) c.row(0)[S + 37 * i] = b;
  tk::Result r = tk::run(c);
  ASSERT_EQ(r.rc, DSV4_OK) << r.msg;
  EXPECT_ORACLE(c, r);
}

// Automatic dispatch with small tunables: each path is reached without forcing. The virtual
// device answers 16 co-resident clusters of 4 and 40 of 2 (the mid-batch cluster kernels' queries).
TEST(TopkV2Paths, AutomaticChoiceReachesEveryPath) {
  const int T = threads();
  const int kPoolClusters = 6;  // injected probe(8, 2) answer: P
  struct Want { int B, L, n, path; };
  const Want wants[] = {
      {2, T * 8, T * 8, DSV4_PATH_REGISTER2},   {2, T * 16, T * 16, DSV4_PATH_REGISTER4},
      {2, T * 16 + 8, T * 16 + 8, DSV4_PATH_STREAMING}, {3, 5000, 5000, DSV4_PATH_CLUSTER16},
      {5, 5000, 5000, DSV4_PATH_CLUSTER8},      {9, 5000, 5000, DSV4_PATH_POOL},
      {16, 5000, 5000, DSV4_PATH_CLUSTER4},     {20, 5000, 5000, DSV4_PATH_CLUSTER2}};
  simt::vdev::set_query_hook([](const simt::vdev::QueryInfo& q) {
    simt::vdev::Injection inj;
    inj.active = q.query == simt::vdev::Query::kMaxActiveClusters && (q.cluster_size == 4 || q.cluster_size == 2);
    inj.value = q.cluster_size == 4 ? 16 : 40;
    return inj;
  });
  struct Unhook { ~Unhook() { simt::vdev::clear_query_hook(); } } unhook;
  for (const Want& w : wants) {
    Cfg cfg;
    cfg.c.cluster_floor_small = 4096;
    cfg.c.cluster_floor_large = 4096;
    cfg.c.plan_t_min = 4096;
    cfg.c.inject_probe_c8 = kPoolClusters;
    cfg.c.inject_probe_c16 = 3;
    cfg.apply();
    Case c(w.B, w.L, 100);
    std::mt19937 g(w.path);
    std::uniform_real_distribution<float> u(-10, 10);
    for (auto& x : c.scores) x = u(g);
    c.lens.assign(w.B, w.n);
    c.static_threshold = 0;
    tk::Result r = tk::run(c);
    ASSERT_EQ(r.rc, DSV4_OK) << r.msg;
    EXPECT_ORACLE(c, r);
    EXPECT_EQ(r.paths[0], w.path) << "B " << w.B << " L " << w.L;
    // §6.3: written exactly when P < B, whatever path the rows then take (the pool reads it; the
    // Cluster-4 / -2 rows of B = 16 and 20 do not)
    EXPECT_EQ(r.plan_written, w.B > kPoolClusters ? 1 : 0) << "B " << w.B;
  }
}

}  // namespace

namespace {

// early_read (seq_lens read before the PDL wait) changes nothing in the results; ragged windows
// at every start mod 4 and length mod 4 on every single-CTA path.
TEST(TopkV2Paths, EarlyReadAndRaggedWindows) {
  const int T = threads();
  for (int early : {0, 1})
    for (int path : {DSV4_PATH_AUTO, DSV4_PATH_REGISTER2, DSV4_PATH_REGISTER4, DSV4_PATH_STREAMING}) {
      Cfg cfg;
      cfg.c.force_path = path;
      cfg.c.early_read = early;
      cfg.apply();
      Case c(8, T * 8 + 40, 32);
      c.ragged = true;
      std::mt19937 g(path + 17 * early);
      std::normal_distribution<float> nd;
      for (auto& x : c.scores) x = g() % 4 ? nd(g) : -tk::inf();
      for (int b = 0; b < 8; ++b) {
        c.starts[b] = b % 4 + (b / 4) * 8;
        c.lens[b] = T * 8 - 4 + (b % 4) - (b == 7 ? T * 4 : 0);
        c.offsets[b] = b * 1000;
      }
      tk::Result r = tk::run(c);
      ASSERT_EQ(r.rc, DSV4_OK) << r.msg;
      EXPECT_ORACLE(c, r);
      EXPECT_TRUE(r.scores_unchanged);
      EXPECT_TRUE(r.guards_ok);
    }
}

// The one-read stage's rest through the cp.async ring (the default) and through registers
// (rest_ring_off = 1) on the same rows: both exact, nothing written or read outside the windows.
// Rows whose rest ends in a partial round and a partial vector (n mod 4 != 0; ragged starts at
// every offset mod 4) and heavy -inf ties. The planted TOPK_RING_STALE_SLOT fails the ring's half,
// TOPK_REST_WALK_SHORT the register half (no other CPU test reaches that walk: rows <= 65536).
TEST(TopkV2Paths, StagedRestThroughTheRingAndThroughRegisters) {
  const int T = threads();
  for (int off : {0, 1}) {
    for (bool ragged : {false, true}) {
      Cfg cfg;
      cfg.c.force_path = DSV4_PATH_STREAMING;
      cfg.c.rest_ring_off = off;
      cfg.apply();
      Case c(6, T * 4 * 9 + 7, 64);
      c.ragged = ragged;
      std::mt19937 g(31 + off + 2 * ragged);
      std::normal_distribution<float> nd;
      for (auto& x : c.scores) x = g() % 3 ? nd(g) : -tk::inf();
      for (int b = 0; b < 6; ++b) {
        c.lens[b] = T * 4 * (3 + b) + (b % 4) * 3 + 1;
        if (ragged) {
          c.starts[b] = b % 4;
          c.offsets[b] = b * 100000;
        }
      }
      tk::Result r = tk::run(c);
      ASSERT_EQ(r.rc, DSV4_OK) << r.msg;
      SCOPED_TRACE(testing::Message() << "rest_ring_off " << off << " ragged " << ragged);
      EXPECT_ORACLE(c, r);
      for (int b = 0; b < 6; ++b) EXPECT_EQ(r.paths[b], DSV4_PATH_STREAMING) << "row " << b;
      EXPECT_TRUE(r.scores_unchanged);
      EXPECT_TRUE(r.guards_ok);
    }
  }
}

}  // namespace
