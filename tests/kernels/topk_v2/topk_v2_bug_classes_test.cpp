// tests/kernels/topk_v2/topk_v2_bug_classes_test.cpp -- the minimal triggers of
// shared/spec/bug_classes.md relevant to Top-K v2 (classes 1, 2, 5, 7, 8, 9, 10, 11, 16), run on
// every forced path that can hold them, with the oracle, guard columns and score snapshots.
#include "tests/kernels/topk_v2/topk_v2_test_util.hpp"

#include "kernels/topk_v2/topk_v2_keys.cuh"

namespace {

using tk::Case;
using tk::Cfg;

// The automatic choice and every forced path.
std::vector<int> all_paths() {
  std::vector<int> v{DSV4_PATH_AUTO};
  v.insert(v.end(), std::begin(tk::kForcedPaths), std::end(tk::kForcedPaths));
  return v;
}

// Runs `c` on every forced path (ragged: the single-CTA ones) and checks oracle + memory contract.
void run_all_paths(const Case& base, const char* what, int tie_capacity = -1) {
  for (int path : all_paths()) {
    if (base.ragged && !tk::ragged_can_force(path)) continue;
    Cfg cfg;
    cfg.c.force_path = path;
    cfg.c.tie_capacity = tie_capacity;
    cfg.apply();
    Case c = base;
    tk::Result r = tk::run(c);
    ASSERT_EQ(r.rc, DSV4_OK) << what << " path " << path << ": " << r.msg;
    auto cr = tk::check(c, r);
    EXPECT_TRUE(cr.ok) << what << " path " << path << ": " << tk::describe(cr);
    EXPECT_TRUE(r.guards_ok) << what << " path " << path << ": write past K";
    EXPECT_TRUE(r.scores_unchanged) << what << " path " << path << ": scores written";
    EXPECT_EQ(r.st.s.code_mask & ~(1u << DSV4_CODE_PAGE_ENTRY_OUT_OF_RANGE), 0u) << what << " path " << path;
  }
}

// Class 1: -FLT_MAX padding would outrank legal -inf.
TEST(TopkV2BugClasses, C01_PaddingNeverOutranksNegativeInfinity) {
  Case c(1, 51, 16, 52);
  for (int i = 0; i < 51; ++i) c.row(0)[i] = i < 3 ? float(i + 1) : -tk::inf();
  c.row(0)[51] = 1e30f;  // stride column: never read
  run_all_paths(c, "paged n=51");
  Case g(1, 12, 4);
  g.ragged = true;
  g.starts[0] = 1;
  g.lens[0] = 8;
  const float win[] = {5, 6, -tk::inf(), -tk::inf(), -tk::inf(), -tk::inf(), -tk::inf(), -tk::inf()};
  g.row(0)[0] = 1e30f;
  for (int i = 0; i < 8; ++i) g.row(0)[1 + i] = win[i];
  run_all_paths(g, "ragged start 1");
}

// Class 2: values exactly at the uncorrected negative-bin midpoints (bin b-1, the threshold bin),
// three larger values each sharing a vector with midpoints (so any arrival order lets midpoints
// take their slots under the defect). Expected: the three larger values and one midpoint.
Case midpoint_row(float mid, float larger, float lower) {
  Case c(1, 64, 4);
  for (int i = 0; i < 64; ++i) c.row(0)[i] = (i == 5 || i == 33 || i == 50) ? larger : (i >= 62 ? lower : mid);
  return c;
}

TEST(TopkV2BugClasses, C02_RneMidpointsAtBothWidths) {
  run_all_paths(midpoint_row(tk::bits(0xBFFFF000u), -1.0f, -3.0f), "midpoint 12-bit bin 1023");
  namespace k = dsv4::ours::topk;
  for (int w : {10, 12}) {  // a midpoint of every 32nd negative bin
    for (int b = k::neg_inf_bin(w) + 2; b < (1 << (w - 1)); b += (1 << (w - 5))) {
      const float lb = k::coarse_bin_lower_bound(b, w);
      const float mid = tk::bits(k::f32_bits(lb) + 1u);  // the uncorrected bound, in bin b-1
      if (k::coarse_bin(mid, w) != b - 1) continue;
      run_all_paths(midpoint_row(mid, lb, std::nextafter(mid, -tk::inf()) * 2), "midpoint sweep");
      if (HasFailure()) return;
    }
  }
}

// Class 5: ragged windows, output row stride with guard columns, scores byte-identical.
TEST(TopkV2BugClasses, C05_NoWritesOutsideTheOutputRowsOrIntoScores) {
  Case c(2, 64, 8);
  c.ragged = true;
  c.starts = {5, 0};
  c.lens = {20, 10};
  c.offsets = {5, 0};
  std::mt19937 g(5);
  std::normal_distribution<float> nd;
  for (auto& x : c.scores) x = nd(g);
  run_all_paths(c, "ragged (5,20),(0,10)");
}

// Class 7: > 2048 (and > tie capacity) elements in the threshold bin, largest last.
TEST(TopkV2BugClasses, C07_ThresholdBinOverflowIsExact) {
  const int n = 5200, K = 512;
  // 3000 distinct values in 12-bit bin 3008 after 2200 x -1.0; the largest 256 first and the next
  // 256 last, so a truncation to the first 2048 arrivals misses some in any monotone order.
  Case c(1, n, K);
  for (int i = 0; i < n; ++i) {
    const int j = i - 2200;  // rank among the in-bin values, 0 = smallest
    const int rank = j < 256 ? 2999 - j : (j >= 2744 ? 2999 - 256 - (j - 2744) : j - 256);
    c.row(0)[i] = i < 2200 ? -1.0f : 1.0f + rank * 0x1p-20f;
  }
  run_all_paths(c, "12-bit bin 3008");
  Case d(1, n, K);  // 10-bit bin 752: 1 + U * 0.05, the largest 600 split between both ends
  std::mt19937 g(7);
  std::uniform_real_distribution<float> u(0, 1);
  for (int i = 0; i < n; ++i) d.row(0)[i] = i < 300 || i >= n - 300 ? 1.04f + u(g) * 0.01f : (i < 1000 ? -1.0f : 1.0f + u(g) * 0.04f);
  run_all_paths(d, "10-bit bin 752");
  Case small(1, 1000, 64);  // a register-sized row with tie capacity 100
  for (int i = 0; i < 1000; ++i) small.row(0)[i] = i < 400 ? -1.0f : 1.0f + (i - 400) * 0x1p-20f;
  run_all_paths(small, "tie capacity 100", 100);
}

// Class 8: many -0.0 at the +0/-0 boundary.
TEST(TopkV2BugClasses, C08_NegativeZerosAreNotAbove) {
  Case c(1, 16, 4);
  const float v[] = {-0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, 1, 2, 3, -1, -1, -1};
  for (int i = 0; i < 16; ++i) c.row(0)[i] = v[i];
  run_all_paths(c, "ten -0.0");
  Case m(1, 64, 4);  // each positive shares a vector with three -0.0: any arrival order exposes it
  for (int i = 0; i < 64; ++i) m.row(0)[i] = (i == 5 || i == 33 || i == 50) ? float(i) : (i >= 62 ? -1.0f : -0.0f);
  run_all_paths(m, "-0.0 around positives");
  Case d(1, 3000, 100);  // zeros first, a few positives and +0 last
  for (int i = 0; i < 3000; ++i) d.row(0)[i] = i < 2900 ? -0.0f : (i < 2950 ? float(i) : 0.0f);
  run_all_paths(d, "2900 -0.0");
}

// Class 9: NaN is absent; short rows end in -1, never garbage.
TEST(TopkV2BugClasses, C09_NanIsAbsent) {
  Case c(2, 8, 4);
  const float v[] = {tk::qnan(), tk::qnan(), 1, 2, 3, 4, 5, 6};
  for (int i = 0; i < 8; ++i) { c.row(0)[i] = v[i]; c.row(1)[i] = tk::qnan(); }
  run_all_paths(c, "NaN n=8");
  for (int nans : {1, 3, 63, 64, 65, 300}) {
    Case d(1, 300, 64);
    for (int i = 0; i < 300; ++i) d.row(0)[i] = i < nans ? -tk::qnan() : float(i % 17);
    run_all_paths(d, "NaN sprinkle");
  }
}

// Class 10: poison past seq_len (paged) and before an unaligned ragged start; tight allocation.
TEST(TopkV2BugClasses, C10_NoReadsOutsideTheWindow) {
  Case c(1, 1037, 64, 1040);
  c.lens[0] = 1029;
  std::mt19937 g(10);
  std::normal_distribution<float> nd;
  for (int i = 0; i < 1040; ++i) c.row(0)[i] = i < 1029 ? nd(g) : tk::inf();
  run_all_paths(c, "+inf poison past n");
  for (int i = 1029; i < 1040; ++i) c.row(0)[i] = 1e30f;
  run_all_paths(c, "1e30 poison past n");
  Case r(1, 700, 64);
  r.ragged = true;
  r.starts[0] = 3;
  r.lens[0] = 697;
  for (int i = 0; i < 700; ++i) r.row(0)[i] = i < 3 ? tk::inf() : nd(g);
  run_all_paths(r, "ragged start 3 with +inf head");
}

// Class 10 (tight): a row ending exactly at the allocation end (ASan catches a read past it).
TEST(TopkV2BugClasses, C10_TightAllocationRowEnd) {
  for (int n : {1025, 1027, 4097}) {
    std::unique_ptr<float[]> buf(new float[n]);
    std::mt19937 g(n);
    std::normal_distribution<float> nd;
    for (int i = 0; i < n; ++i) buf[i] = nd(g);
    int32_t len = n;
    std::vector<int32_t> out(64 + tk::kGuard, tk::kFill);
    dsv4_tensor s = tk::t2(buf.get(), DSV4_FLOAT32, 1, n, (n + 3) / 4 * 4);
    dsv4_tensor l = tk::t1(&len, DSV4_INT32, 1);
    dsv4_tensor o = tk::t2(out.data(), DSV4_INT32, 1, 64, 64 + tk::kGuard);
    for (int path : {DSV4_PATH_STREAMING, DSV4_PATH_REGISTER4, DSV4_PATH_CLUSTER8}) {
      Cfg cfg;
      cfg.c.force_path = path;
      cfg.apply();
      dsv4_message m;
      ASSERT_EQ(dsv4_topk_v2_transform_paged(&s, &l, nullptr, &o, 1, nullptr, nullptr, nullptr, 0, &m), DSV4_OK) << m.text;
      dsv4::oracle::TopkCheckArgs a;
      a.k = 64;
      dsv4::oracle::TopkRow row;
      row.n = n;
      row.values_f32 = buf.get();
      row.got = out.data();
      a.rows.push_back(row);
      auto cr = dsv4::oracle::check_topk(a);
      EXPECT_TRUE(cr.ok) << tk::describe(cr);
      tk::take_status();
    }
  }
}

// Class 11: page entries overflowing int32 after the shift, and -1 entries: INT32_MIN + code 5.
TEST(TopkV2BugClasses, C11_PageEntryOverflowGivesIntMinAndCode5) {
  for (int32_t entry : {1 << 25, -1}) {
    Case c(1, 128, 64);
    for (int i = 0; i < 128; ++i) c.row(0)[i] = i < 64 ? 1.0f : 0.0f;
    c.table = true;
    c.page_size = 64;
    c.W = 2;
    c.pt = {entry, 0};
    c.dual = true;
    for (int path : all_paths()) {
      Cfg cfg;
      cfg.c.force_path = path;
      cfg.apply();
      Case cc = c;
      tk::Result r = tk::run(cc);
      ASSERT_EQ(r.rc, DSV4_OK) << r.msg;
      EXPECT_ORACLE(cc, r);
      EXPECT_TRUE(r.st.has(DSV4_CODE_PAGE_ENTRY_OUT_OF_RANGE)) << "path " << path;
      EXPECT_EQ(r.st.s.count, 64u) << "one count per INT32_MIN slot";
      for (int s = 0; s < 64; ++s) EXPECT_EQ(r.out[s], INT32_MIN);
    }
  }
}

// Class 16: many +inf / values >= 65520 (all in the +inf coarse bin): every slot written.
TEST(TopkV2BugClasses, C16_InfinitiesFillEverySlot) {
  std::mt19937 g(16);
  std::normal_distribution<float> nd;
  Case a(2, 2048, 128);
  for (int i = 0; i < 2048; ++i) {
    a.row(0)[i] = i % 3 == 0 && i < 450 ? tk::inf() : nd(g);
    a.row(1)[i] = i >= 500 ? 65520.0f + static_cast<float>(i) * 300.0f : nd(g);
  }
  run_all_paths(a, "+inf heavy");
  run_all_paths(a, "+inf heavy, refinement", 0);
}

}  // namespace
