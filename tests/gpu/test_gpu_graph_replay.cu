// tests/gpu/test_gpu_graph_replay.cu -- CUDA-graph capture and replay (topk_v2.md §6.4, §10;
// bug classes 14 and 20): the plan and the paged transform (unchecked mode, validate = 0) are
// captured into one graph; each replay runs on refreshed seq_lens and page-table CONTENTS
// (including a 0-length row and a 65535 row) and is verified on the host. A capture in global
// mode also proves that unchecked mode makes no capture-illegal call (sync, malloc, host copy).
#include <cstdio>
#include <random>

#include "paged_case.hpp"

namespace dsv4::gpu_test {
namespace {

class GraphReplay : public ::testing::Test {
 protected:
  cudaStream_t stream = nullptr;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  void SetUp() override {
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  }
  void TearDown() override {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    if (stream) cudaStreamDestroy(stream);
    EXPECT_TRUE(reset_config());
  }
};

// Lengths of replay `r` (B rows, L = 131072): fixed landmarks plus random rows.
std::vector<int32_t> replay_lengths(int r, int B, int L, int K) {
  std::mt19937 g(1000u + r);
  std::uniform_int_distribution<int> any(0, L);
  std::vector<int32_t> n(B);
  for (auto& x : n) x = any(g);
  const int landmarks[][8] = {
      {0, 65535, L, 100000, K, K + 1, 32768, 32769},
      {65535, 0, 20000, L, 32769, 0, 65536, 8193},
      {0, 0, 65535, 1, 16385, L - 1, 98304, 0},
  };
  for (int i = 0; i < 8 && i < B; ++i) n[(i * 5 + r) % B] = landmarks[r % 3][i];
  return n;
}

TEST_F(GraphReplay, PlanAndPagedTransformReplayWithRefreshedInputs) {
  REQUIRE_ENTRY(paged, DSV4_ENTRY_TOPK_V2_PAGED);
  REQUIRE_ENTRY(plan, DSV4_ENTRY_TOPK_V2_PLAN);
  const auto& p = plugin();
  // B = 40 > P (30 on H200) so the plan is written and the pool runs; L above every floor.
  const int B = 40, L = 131072, K = 512;
  PagedCase c;
  ASSERT_TRUE(c.init(B, L, K, 4242u, stream));
  if (p.plan_is_written) {
    int32_t w = -1;
    dsv4_message msg{};
    ABI_EXPECT(DSV4_OK, p.plan_is_written(B, &w, &msg), msg);
    std::printf("plan_is_written(%d) = %d on %s\n", B, w, device_props().name);
    if (device_is_h200()) EXPECT_EQ(w, 1) << "H200: P = 30 < B = 40 <= 512 must write the plan";
  }

  // Eager warm-up (first-use allocations happen outside the capture), verified too.
  c.lens = replay_lengths(0, B, L, K);
  ASSERT_TRUE(c.upload_inputs(stream));
  ASSERT_EQ(c.run(0, stream), "");
  ASSERT_EQ(c.verify(stream), "") << "eager run";
  dsv4_device_status st;
  ASSERT_TRUE(read_status(stream, &st));
  EXPECT_EQ(st.code_mask, 0u) << "eager run: " << describe_status(st);

  // Capture plan + transform (static_threshold = 0: every row > 32768 goes to the pool).
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  const std::string run_err = c.run(0, stream);
  const cudaError_t end = cudaStreamEndCapture(stream, &graph);
  ASSERT_EQ(run_err, "") << "an entry failed while capturing";
  ASSERT_EQ(end, cudaSuccess) << "capture broken (a capture-illegal call in unchecked mode?): "
                              << cudaGetErrorString(end);
  size_t nodes = 0;
  GPU_OK(cudaGraphGetNodes(graph, nullptr, &nodes));
  std::printf("captured graph: %zu nodes\n", nodes);
  EXPECT_GT(nodes, 0u);
  GPU_OK(cudaGraphInstantiate(&exec, graph, 0));

  for (int r = 0; r < 6; ++r) {
    SCOPED_TRACE("replay " + std::to_string(r));
    c.lens = replay_lengths(r, B, L, K);
    c.shuffle_table(77u + r);  // new table contents, same buffer
    ASSERT_TRUE(c.upload_inputs(stream));
    GPU_OK(cudaGraphLaunch(exec, stream));
    GPU_OK(cudaStreamSynchronize(stream));
    GPU_OK(cudaGetLastError());
    EXPECT_EQ(c.verify(stream), "");
    ASSERT_TRUE(read_status(stream, &st));
    EXPECT_EQ(st.code_mask, 0u) << describe_status(st);
    // The replayed plan must describe THIS replay's lengths (T = 32768 with static_threshold 0).
    int32_t written = 1;
    dsv4_message msg{};
    if (p.plan_is_written) p.plan_is_written(B, &written, &msg);
    if (written == 1) {
      const std::vector<int32_t> m = c.metadata(stream);
      int listed_want = 0;
      for (int b = 0; b < B; ++b) listed_want += c.lens[b] > m[0];
      EXPECT_GE(m[0], 32768) << "plan threshold";
      EXPECT_EQ(m[1], listed_want) << "plan item count vs the refreshed lengths";
    }
  }
}

}  // namespace
}  // namespace dsv4::gpu_test
