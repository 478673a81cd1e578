// tests/harness/test_backend_gpu.cpp -- label gpu: the CUDA backend's guarded buffers catch a
// device-side write into a band, a guard column and an input, and "ours" runs clean cases on the
// GPU. Exits 77 (SKIP) with a printed reason when no GPU / no CUDA build is present.
#include <gtest/gtest.h>

#include <cstdio>

#include "harness/backend.hpp"
#include "harness/codec.hpp"
#include "harness/guarded_buffer.hpp"
#include "harness/runner.hpp"

using namespace dsv4::harness;

TEST(CudaBackend, GuardedBuffersCatchDeviceWrites) {
  auto be = make_cuda_backend();
  GuardReport clean, rep;
  HostBuf img = make_output_image(DSV4_INT32, 2, 4, 6, uint32_t(kOutputSentinelI32));
  GuardedBuffer out(*be, 3, "out", BufRole::Output, img);
  out.fetch_and_check(clean);
  EXPECT_TRUE(clean.ok()) << clean.text();
  const int32_t v = 99;
  be->upload(static_cast<int32_t*>(out.device_data()) + 6 + 4, &v, 4);   // row 1, column 4 (guard)
  be->upload(static_cast<int32_t*>(out.device_data()) + 12, &v, 4);      // one past the end
  out.fetch_and_check(rep);
  ASSERT_EQ(rep.count, 2) << rep.text();
  // Breaches are listed bands first, then guard columns: find the guard-column one by its row.
  bool guard_column_named = false;
  for (const auto& br : rep.first)
    if (br.row == 1 && br.offset == 4) guard_column_named = true;
  EXPECT_TRUE(guard_column_named) << "the write into row 1, column 4 must be named: " << rep.text();
  EXPECT_NE(rep.text().find("suffix band"), std::string::npos) << rep.text();
}

TEST(CudaBackend, OursRunsCleanCasesOnTheGpu) {
  auto impl = select_impl("ours", "cuda");
  auto be = make_backend_for(*impl);
  for (Case c : {make_topk_paged(8, 4096, 512, Dist::Randn, 1), make_bf16(4, 16384, 512, Dist::Ties, 2),
                 make_amax8(3, 1000, Dist::Randn, 3), make_candidates(2, 40000, 256, 64, Dist::CandUniform, 4)}) {
    const Outcome o = run_case(c, *impl, *be);
    EXPECT_EQ(o.verdict, Verdict::Pass) << summarize_case(c) << ": " << o.reason;
  }
}

int main(int argc, char** argv) {
  if (!gpu_present()) {
    std::printf("SKIP: no CUDA device (or a harness built without CUDA)\n");
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
