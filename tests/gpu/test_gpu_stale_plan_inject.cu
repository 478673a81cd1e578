// tests/gpu/test_gpu_stale_plan_inject.cu -- on the real GPU:
//   bug class 20 (stale plan): plan from lengths A, transform with lengths B; every row exact,
//     warning STALE_PLAN (16) and nothing else, no unwritten / doubly-written row (-12345 pre-fill,
//     guard columns); a fresh plan gives no warning (control);
//   bug class 13 (probe 0 / error / 1 / above capacity injected through dsv4_config): documented
//     sizing (plan_is_written, no pool or no Cluster-16 rows), exact results, no zero-size launch
//     (every entry returns OK and the runtime's last error stays cudaSuccess).
#include <cstdio>

#include "paged_case.hpp"

namespace dsv4::gpu_test {
namespace {

class GpuPlanAndProbe : public ::testing::Test {
 protected:
  cudaStream_t stream = nullptr;
  void SetUp() override {
    REQUIRE_ENTRY(paged, DSV4_ENTRY_TOPK_V2_PAGED);
    REQUIRE_ENTRY(plan, DSV4_ENTRY_TOPK_V2_PLAN);
    ASSERT_TRUE(reset_config());
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    (void)cudaGetLastError();
  }
  void TearDown() override {
    if (stream) cudaStreamDestroy(stream);
    EXPECT_TRUE(reset_config());
  }
  int plan_is_written(int B) {
    int32_t w = -1;
    dsv4_message msg{};
    if (plugin().plan_is_written) plugin().plan_is_written(B, &w, &msg);
    return w;
  }
  // Paths of the last transform's rows (empty when the plugin has no report).
  std::vector<int32_t> row_paths(int B) {
    std::vector<int32_t> paths;
    if (!plugin().read_row_paths || !plugin().caps.has_row_path_report) return paths;
    paths.assign(B, -1);
    dsv4_message msg{};
    if (plugin().read_row_paths(stream, paths.data(), B, &msg) != DSV4_OK) paths.clear();
    return paths;
  }
};

// Spec bug class 20 trigger: B = 64, L = 131072, static_threshold = 0 (T = 32768).
TEST_F(GpuPlanAndProbe, StalePlanKeepsRowsExactAndWarns) {
  const int B = 64, L = 131072, K = 512;
  dsv4_config cfg = default_config();
  cfg.mid_cluster_enable = 0;  // the pool takes these rows, not Cluster-2 (the plan is read)
  ASSERT_TRUE(apply_config(cfg));
  if (plan_is_written(B) != 1) {
    std::printf("[ SKIP-NOTE ] plan_is_written(%d) = %d on %s: no pool, no stale plan possible\n",
                B, plan_is_written(B), device_props().name);
    GTEST_SKIP() << "the plan is not written for B = 64 on this device";
  }
  PagedCase c;
  ASSERT_TRUE(c.init(B, L, K, 2020u, stream));
  std::vector<int32_t> planned(B, 100000), seen(B, 100000);
  planned[1] = 20000;  // the plan lists 63 rows, not row 1
  seen[0] = 20000;     // row 0 listed but now short; row 1 long but unlisted

  for (int stale = 0; stale <= 1; ++stale) {
    SCOPED_TRACE(stale ? "stale plan" : "fresh plan (control)");
    c.lens = planned;
    ASSERT_TRUE(c.upload_inputs(stream));
    dsv4_message msg{};
    dsv4_tensor tl = c.t_lens(), tm = c.t_meta();
    ABI_EXPECT(DSV4_OK, plugin().plan(&tl, &tm, 0, stream, 0, &msg), msg);
    const std::vector<int32_t> m = c.metadata(stream);
    EXPECT_EQ(m[0], 32768) << "T = max(0, T_min)";
    EXPECT_EQ(m[1], 63) << "N";
    std::vector<char> listed(B, 0);
    for (int i = 1; i <= m[1] && i <= B; ++i) {
      const int b = m[2 * i];
      ASSERT_TRUE(b >= 0 && b < B) << "item " << i << " batch id " << b;
      EXPECT_FALSE(listed[b]) << "row " << b << " listed twice";
      listed[b] = 1;
      EXPECT_EQ(m[2 * i + 1], planned[b]) << "item " << i << " length";
    }
    EXPECT_FALSE(listed[1]);
    for (int i = m[1] + 1; i <= B; ++i)
      EXPECT_TRUE(m[2 * i] == PagedCase::kMetaPrefill && m[2 * i + 1] == PagedCase::kMetaPrefill)
          << "plan row " << i << " past N was written";

    // Only seq_lens change (plus the +inf poison past the new lengths); the plan stays.
    c.lens = stale ? seen : planned;
    ASSERT_TRUE(c.upload_inputs(stream));  // also re-fills the outputs and the metadata ...
    GPU_OK(c.d_meta.upload(m, stream));     // ... so put the plan back exactly as it was written
    dsv4_tensor ts = c.t_scores(), tp = c.t_table(), to = c.t_out();
    ABI_EXPECT(DSV4_OK,
               plugin().paged(&ts, &tl, &tp, &to, PagedCase::kPageSize, &tm, nullptr, stream, 0, &msg),
               msg);
    GPU_OK(cudaStreamSynchronize(stream));
    GPU_OK(cudaGetLastError());
    EXPECT_EQ(c.verify(stream), "");
    dsv4_device_status st;
    ASSERT_TRUE(read_status(stream, &st));
    if (stale) {
      EXPECT_EQ(st.code_mask, 1u << DSV4_CODE_STALE_PLAN) << describe_status(st);
      EXPECT_EQ(st.count, 2u) << "one per stale row (rows 0 and 1): " << describe_status(st);
    } else {
      EXPECT_EQ(st.code_mask, 0u) << describe_status(st);
    }
  }
}

struct InjectCase {
  int c8, c16, B, L, n;
  const char* what;
};

class GpuProbeInjection : public GpuPlanAndProbe,
                          public ::testing::WithParamInterface<InjectCase> {};

TEST_P(GpuProbeInjection, DocumentedSizingExactResultsNoZeroLaunch) {
  const InjectCase ic = GetParam();
  const int K = 512;
  if (device_props().major != 9)
    std::printf("[ SOFT ] sm_%d%d: sizing expectations are the sm_90 ones and are not asserted\n",
                device_props().major, device_props().minor);
  dsv4_config cfg = default_config();
  cfg.inject_probe_c8 = ic.c8;
  cfg.inject_probe_c16 = ic.c16;
  cfg.mid_cluster_enable = 0;  // B = 64 rows to the pool (its sizing is what is injected)
  ASSERT_TRUE(apply_config(cfg));
  const int written = plan_is_written(ic.B);
  std::printf("%s: inject c8=%d c16=%d, B=%d: plan_is_written = %d\n", ic.what, ic.c8, ic.c16, ic.B,
              written);
  const bool sm90 = device_props().major == 9;
  // sm_90: P = injected value if >= 1; 0 -> pool off; error (-2) -> fallback 30.
  if (sm90 && ic.c8 != -1) {
    const int P = ic.c8 == -2 ? 30 : ic.c8;
    EXPECT_EQ(written, (P > 0 && P < ic.B && ic.B <= 512) ? 1 : 0) << "plan_is_written vs P = " << P;
  }
  PagedCase c;
  ASSERT_TRUE(c.init(ic.B, ic.L, K, 1300u + ic.B, stream));
  c.lens.assign(ic.B, ic.n);
  c.lens[0] = 0;  // plus a trivial and a short row
  if (ic.B > 2) c.lens[1] = K + 1;
  ASSERT_TRUE(c.upload_inputs(stream));
  EXPECT_EQ(c.run(0, stream), "");
  GPU_OK(cudaStreamSynchronize(stream));
  GPU_OK(cudaGetLastError());  // a zero-size grid would leave cudaErrorInvalidConfiguration
  EXPECT_EQ(c.verify(stream), "");
  if (written != 1) {
    const std::vector<int32_t> m = c.metadata(stream);
    for (size_t i = 0; i < m.size(); ++i)
      ASSERT_EQ(m[i], PagedCase::kMetaPrefill) << "plan written although plan_is_written = 0";
  }
  dsv4_device_status st;
  ASSERT_TRUE(read_status(stream, &st));
  EXPECT_EQ(st.code_mask, 0u) << describe_status(st);
  const std::vector<int32_t> paths = row_paths(ic.B);
  int counts[DSV4_PATH_COUNT] = {0};
  for (int32_t p : paths)
    if (p >= 0 && p < DSV4_PATH_COUNT) ++counts[p];
  if (!paths.empty())
    std::printf("  paths: trivial %d reg2 %d reg4 %d stream %d c8 %d c16 %d pool %d error %d c4 %d c2 %d\n",
                counts[1], counts[2], counts[3], counts[4], counts[5], counts[6], counts[7], counts[8],
                counts[9], counts[10]);
  if (!paths.empty() && ic.c8 == 0) EXPECT_EQ(counts[DSV4_PATH_POOL], 0) << "pool ran with P = 0";
  if (!paths.empty() && (ic.c16 == 0 || ic.c16 == -2))
    EXPECT_EQ(counts[DSV4_PATH_CLUSTER16], 0) << "Cluster-16 ran with C16 = 0";
}

INSTANTIATE_TEST_SUITE_P(
    Class13, GpuProbeInjection,
    ::testing::Values(InjectCase{0, -1, 64, 131072, 100000, "probe(8,2) = 0"},
                      InjectCase{-2, -1, 64, 131072, 100000, "probe(8,2) fails"},
                      InjectCase{1, -1, 64, 131072, 100000, "probe(8,2) = 1"},
                      InjectCase{200, -1, 64, 131072, 100000, "probe(8,2) = 200 (above capacity)"},
                      InjectCase{-1, -2, 4, 65536, 65536, "probe(16,1) fails"},
                      InjectCase{-1, 0, 4, 65536, 65536, "probe(16,1) = 0"},
                      InjectCase{0, 0, 4, 65536, 65536, "both 0: no cluster path"}),
    [](const ::testing::TestParamInfo<InjectCase>& i) { return "case" + std::to_string(i.index); });

}  // namespace
}  // namespace dsv4::gpu_test
