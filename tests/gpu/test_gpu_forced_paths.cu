// tests/gpu/test_gpu_forced_paths.cu -- small Top-K v2 paged batches with every dispatch path
// forced (dsv4_config.force_path), plus the bf16 small top-k and amax8, each with TIGHT score
// allocations (the last row ends at the allocation's last element) and +inf poison past every
// shorter row. Exact host checks. Small on purpose: this is the binary scripts/gpu/sanitize.sh
// runs under compute-sanitizer (memcheck catches reads past the window, racecheck / synccheck
// the shared-memory and cluster barriers, initcheck reads of never-written memory).
#include <cstdio>

#include "paged_case.hpp"

namespace dsv4::gpu_test {
namespace {

struct ForcedCase {
  int path;
  int L;
  const char* name;
};

class ForcedPaths : public ::testing::TestWithParam<ForcedCase> {
 protected:
  cudaStream_t stream = nullptr;
  void SetUp() override {
    REQUIRE_ENTRY(paged, DSV4_ENTRY_TOPK_V2_PAGED);
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  }
  void TearDown() override {
    if (stream) cudaStreamDestroy(stream);
    EXPECT_TRUE(reset_config());
  }
};

TEST_P(ForcedPaths, ExactWithTightAllocations) {
  const ForcedCase fc = GetParam();
  const auto& p = plugin();
  if (!(p.caps.paths & DSV4_PATH_BIT(fc.path)) || !p.caps.can_force_path) {
    std::printf("[ SKIP-NOTE ] %s: path %s not offered / not forcible\n", p.path.c_str(), fc.name);
    GTEST_SKIP() << "path not offered";
  }
  if (fc.path >= DSV4_PATH_CLUSTER8 && fc.path != DSV4_PATH_ROW_ERROR && device_props().major < 9) {
    std::printf("[ SKIP-NOTE ] %s needs a cluster-capable device\n", fc.name);
    GTEST_SKIP() << "no clusters";
  }
  dsv4_config cfg = default_config();
  cfg.force_path = fc.path;
  ASSERT_TRUE(apply_config(cfg));
  for (int K : {512, 2048}) {
    SCOPED_TRACE(std::string(fc.name) + " K=" + std::to_string(K));
    PagedCase c;
    const int B = 5;
    ASSERT_TRUE(c.init(B, fc.L, K, 31u * fc.path + K, stream));
    // A trivial row, K exactly, K+1, a mid row, and the full row last (ends the allocation).
    c.lens = {0, K, K + 1, fc.L / 2 + 3, fc.L};
    ASSERT_TRUE(c.upload_inputs(stream));
    ASSERT_EQ(c.run(-1, stream), "");
    GPU_OK(cudaStreamSynchronize(stream));
    GPU_OK(cudaGetLastError());
    EXPECT_EQ(c.verify(stream), "");
    dsv4_device_status st;
    ASSERT_TRUE(read_status(stream, &st));
    EXPECT_EQ(st.code_mask, 0u) << describe_status(st);
    if (p.read_row_paths && p.caps.has_row_path_report) {
      std::vector<int32_t> paths(B, -1);
      dsv4_message msg{};
      ABI_EXPECT(DSV4_OK, p.read_row_paths(stream, paths.data(), B, &msg), msg);
      for (int b = 0; b < B; ++b)
        if (c.lens[b] > K) EXPECT_EQ(paths[b], fc.path) << "row " << b << " (n=" << c.lens[b] << ")";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryPath, ForcedPaths,
    ::testing::Values(ForcedCase{DSV4_PATH_REGISTER2, 8192, "register2"},
                      ForcedCase{DSV4_PATH_REGISTER4, 16384, "register4"},
                      ForcedCase{DSV4_PATH_STREAMING, 20000, "streaming"},
                      ForcedCase{DSV4_PATH_CLUSTER8, 20000, "cluster8"},
                      ForcedCase{DSV4_PATH_CLUSTER16, 20000, "cluster16"},
                      ForcedCase{DSV4_PATH_POOL, 20000, "pool"},
                      ForcedCase{DSV4_PATH_CLUSTER4, 70000, "cluster4"},   // rank shares in shared memory
                      ForcedCase{DSV4_PATH_CLUSTER2, 20000, "cluster2"}),  // rank shares in registers
    [](const ::testing::TestParamInfo<ForcedCase>& i) { return std::string(i.param.name); });

TEST(TightAllocations, Bf16SmallAndAmax8) {
  const auto& p = plugin();
  REQUIRE_PLUGIN();
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  const int B = 3, L = 4096, k = 512, page = 8, W = L / page;
  const std::vector<int> lens = {100, 3001, L};
  std::vector<float> f = random_scores(static_cast<size_t>(B) * L, 5u);
  if (p.bf16) {
    std::vector<uint16_t> h(f.size());
    for (size_t i = 0; i < f.size(); ++i) {
      h[i] = float_to_bf16(f[i]);
      f[i] = bf16_to_float(h[i]);
    }
    for (int b = 0; b < B; ++b)
      for (int i = lens[b]; i < L; ++i) h[static_cast<size_t>(b) * L + i] = 0x7F80;  // +inf poison
    std::vector<int> table(static_cast<size_t>(B) * W);
    for (int b = 0; b < B; ++b)
      for (int j = 0; j < W; ++j) table[static_cast<size_t>(b) * W + j] = b * W + (W - 1 - j);
    DevBuf<uint16_t> d_s(h.size());
    DevBuf<int> d_l(B), d_t(table.size()), d_o(static_cast<size_t>(B) * k);
    GPU_OK(d_s.upload(h, s));
    GPU_OK(d_l.upload(lens, s));
    GPU_OK(d_t.upload(table, s));
    GPU_OK(d_o.upload(std::vector<int>(static_cast<size_t>(B) * k, kPrefill), s));
    dsv4_tensor ts = t2d(d_s.ptr, DSV4_BFLOAT16, B, L, L), tl = t1d(d_l.ptr, DSV4_INT32, B),
                tt = t2d(d_t.ptr, DSV4_INT32, B, W, W), to = t2d(d_o.ptr, DSV4_INT32, B, k, k);
    dsv4_message msg{};
    ABI_EXPECT(DSV4_OK, p.bf16(&ts, &tl, &tt, &to, page, s, 0, &msg), msg);
    std::vector<int> out;
    GPU_OK(d_o.download(out, s));
    for (int b = 0; b < B; ++b) {
      const int* trow = table.data() + static_cast<size_t>(b) * W;
      auto emit = [&](int64_t i) -> int64_t { return int64_t(trow[i / page]) * page + i % page; };
      auto invert = [&](int64_t y) -> int64_t {
        const int64_t t = y / page - int64_t(b) * W;
        return (y < 0 || t < 0 || t >= W) ? -1 : (W - 1 - t) * page + y % page;
      };
      EXPECT_EQ(check_topk_row(f.data() + static_cast<size_t>(b) * L, lens[b], k,
                               out.data() + static_cast<size_t>(b) * k, emit, invert),
                "")
          << "bf16 row " << b;
    }
  }
  if (p.amax8) {
    const int Kk = L / 8;
    DevBuf<float> d_s(f.size()), d_o(static_cast<size_t>(B) * Kk);
    DevBuf<int> d_l(B);
    GPU_OK(d_s.upload(f, s));
    GPU_OK(d_l.upload(lens, s));
    GPU_OK(d_o.upload(std::vector<float>(static_cast<size_t>(B) * Kk, -7777.f), s));
    dsv4_tensor ts = t2d(d_s.ptr, DSV4_FLOAT32, B, L, L), tl = t1d(d_l.ptr, DSV4_INT32, B),
                to = t2d(d_o.ptr, DSV4_FLOAT32, B, Kk, Kk);
    dsv4_message msg{};
    ABI_EXPECT(DSV4_OK, p.amax8(&ts, &tl, &to, 0, s, 0, &msg), msg);
    std::vector<float> out;
    GPU_OK(d_o.download(out, s));
    for (int b = 0; b < B; ++b) {
      const int nk = (lens[b] + 7) / 8;
      for (int i = 0; i < Kk; ++i) {
        float want = -7777.f;
        if (i < nk - 1) {
          want = f[static_cast<size_t>(b) * L + 8 * i];
          for (int j = 1; j < 8; ++j) want = std::max(want, f[static_cast<size_t>(b) * L + 8 * i + j]);
        } else if (i == nk - 1) {
          want = INFINITY;
        }
        ASSERT_EQ(out[static_cast<size_t>(b) * Kk + i], want) << "amax8 row " << b << " key " << i;
      }
    }
  }
  dsv4_device_status st;
  ASSERT_TRUE(read_status(s, &st));
  EXPECT_EQ(st.code_mask, 0u) << describe_status(st);
  cudaStreamDestroy(s);
}

}  // namespace
}  // namespace dsv4::gpu_test
