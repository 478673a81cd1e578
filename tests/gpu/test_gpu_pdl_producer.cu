// tests/gpu/test_gpu_pdl_producer.cu -- bug class 14 (PDL read-before-wait race), on the GPU.
// A producer kernel triggers its dependents at entry (griddepcontrol.launch_dependents), spins
// about 100 us, then writes seq_lens[0] (initially 0). The entry under test is launched right
// after it in the same stream, unchecked mode; the plugin launches its kernels as programmatic
// dependents, so a kernel that reads seq_lens before its dependency wait sees 0 and returns an
// empty row. Expected: the real answer for the final length (host check).
// A self-check first proves that the two kernels really overlap on this device (otherwise the
// test would prove nothing); a control with early_read = 1 reports whether the race shows.
#include <cstdio>

#include "gpu_test_util.hpp"

namespace dsv4::gpu_test {
namespace {

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Triggers dependents FIRST, then delays, then publishes the length.
__global__ void delayed_producer(int* seq_lens, int value, unsigned long long delay_ns) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  if (threadIdx.x != 0) return;
  const unsigned long long t0 = global_ns();
  while (global_ns() - t0 < delay_ns) {
  }
  seq_lens[0] = value;
  __threadfence();
}

// A dependent of our own: what it reads before and after its dependency wait.
__global__ void observing_dependent(const int* seq_lens, int* seen) {
  const int before = *reinterpret_cast<const volatile int*>(seq_lens);
  asm volatile("griddepcontrol.wait;" ::: "memory");
  const int after = *reinterpret_cast<const volatile int*>(seq_lens);
  if (threadIdx.x == 0) {
    seen[0] = before;
    seen[1] = after;
  }
}

constexpr unsigned long long kDelayNs = 100000;  // ~100 us
constexpr int kTrials = 5;

class PdlDelayedProducer : public ::testing::Test {
 public:
  cudaStream_t stream = nullptr;
  void SetUp() override {
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  }
  void TearDown() override {
    EXPECT_TRUE(reset_config());
    if (stream) cudaStreamDestroy(stream);
  }
  // Resets seq_lens[0] to 0 (synchronously), then launches the producer writing `value`.
  void arm(DevBuf<int>& lens, int value) {
    GPU_OK(cudaMemsetAsync(lens.ptr, 0, sizeof(int), stream));
    GPU_OK(cudaStreamSynchronize(stream));
    delayed_producer<<<1, 32, 0, stream>>>(lens.ptr, value, kDelayNs);
    GPU_OK(cudaGetLastError());
  }
};

TEST_F(PdlDelayedProducer, SelfCheckDependentsOverlapTheProducer) {
  DevBuf<int> lens(1), seen(2);
  int overlapped = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    arm(lens, 10000);
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(32);
    cfg.stream = stream;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    GPU_OK(cudaLaunchKernelEx(&cfg, observing_dependent, static_cast<const int*>(lens.ptr), seen.ptr));
    std::vector<int> h;
    GPU_OK(seen.download(h, stream));
    EXPECT_EQ(h[1], 10000) << "griddepcontrol.wait did not order the dependent after the producer";
    overlapped += h[0] == 0;
  }
  std::printf("self-check: the dependent started before the producer's write in %d of %d trials\n",
              overlapped, kTrials);
  if (env_or("DSV4_GPU_PDL_REQUIRE_OVERLAP", "1") != "0")
    EXPECT_GT(overlapped, 0) << "no overlap observed: the PDL tests below would prove nothing "
                                "(set DSV4_GPU_PDL_REQUIRE_OVERLAP=0 to accept, e.g. under a sanitizer)";
}

// Top-K v2 paged, INDICES mode, B = 1, K = 512. L = 10000 (single-CTA path) and 65536 (above the
// small-batch cluster floor: Cluster-16 / Cluster-8 on sm_90).
void run_topk_v2(PdlDelayedProducer* f, int L, bool early_read, int* stale_trials) {
  const auto& p = plugin();
  const int K = 512;
  const int S = (L + 3) / 4 * 4;
  std::vector<float> h_scores = random_scores(static_cast<size_t>(S), 1234u + L);
  DevBuf<float> scores(S);
  DevBuf<int> lens(1), out(K);
  ASSERT_TRUE(scores.ok() && lens.ok() && out.ok());
  GPU_OK(scores.upload(h_scores, f->stream));
  dsv4_config cfg = default_config();
  cfg.early_read = early_read ? 1 : 0;
  ASSERT_TRUE(apply_config(cfg));
  for (int trial = 0; trial < kTrials; ++trial) {
    GPU_OK(out.upload(std::vector<int>(K, kPrefill), f->stream));
    f->arm(lens, L);
    dsv4_tensor ts = t2d(scores.ptr, DSV4_FLOAT32, 1, L, S), tl = t1d(lens.ptr, DSV4_INT32, 1),
                to = t2d(out.ptr, DSV4_INT32, 1, K, K);
    dsv4_message msg{};
    ABI_EXPECT(DSV4_OK, p.paged(&ts, &tl, nullptr, &to, 1, nullptr, nullptr, f->stream, 0, &msg), msg);
    std::vector<int> h_out;
    GPU_OK(out.download(h_out, f->stream));
    const std::string err = check_topk_row(
        h_scores.data(), L, K, h_out.data(), [](int64_t i) { return i; },
        [](int64_t y) { return y; });
    if (early_read) {
      *stale_trials += !err.empty();
    } else {
      EXPECT_EQ(err, "") << "L=" << L << " trial " << trial
                         << ": the transform did not see the producer's seq_lens";
    }
    dsv4_device_status st;
    ASSERT_TRUE(read_status(f->stream, &st));
    if (!early_read) EXPECT_EQ(st.code_mask, 0u) << describe_status(st);
  }
}

TEST_F(PdlDelayedProducer, TopKV2PagedSeesTheProducedLength) {
  REQUIRE_ENTRY(paged, DSV4_ENTRY_TOPK_V2_PAGED);
  for (int L : {10000, 65536}) {
    SCOPED_TRACE("L=" + std::to_string(L));
    run_topk_v2(this, L, false, nullptr);
  }
}

// Control (report only: timing dependent): with early_read = 1 the kernels are ALLOWED to read
// seq_lens before the wait, so the race is expected to show at least sometimes.
TEST_F(PdlDelayedProducer, ControlEarlyReadReportsTheRace) {
  REQUIRE_ENTRY(paged, DSV4_ENTRY_TOPK_V2_PAGED);
  ASSERT_NE(plugin().set_config, nullptr);
  for (int L : {10000, 65536}) {
    int stale = 0;
    run_topk_v2(this, L, true, &stale);
    std::printf("control early_read=1, L=%d: stale answer in %d of %d trials (report only)\n", L,
                stale, kTrials);
  }
}

TEST_F(PdlDelayedProducer, Bf16SmallSeesTheProducedLength) {
  REQUIRE_ENTRY(bf16, DSV4_ENTRY_TOPK_BF16_SMALL);
  const auto& p = plugin();
  const int L = 16384, n = 10000, k = 512, page = 64, W = L / page;
  std::vector<float> f = random_scores(L, 77u);
  std::vector<uint16_t> h_scores(L);
  for (int i = 0; i < L; ++i) {
    h_scores[i] = float_to_bf16(f[i]);
    f[i] = bf16_to_float(h_scores[i]);
  }
  std::vector<int> table(W);
  for (int j = 0; j < W; ++j) table[j] = j;  // identity: emitted value = position
  DevBuf<uint16_t> scores(L);
  DevBuf<int> lens(1), out(k), d_table(W);
  ASSERT_TRUE(scores.ok() && lens.ok() && out.ok() && d_table.ok());
  GPU_OK(scores.upload(h_scores, stream));
  GPU_OK(d_table.upload(table, stream));
  for (int trial = 0; trial < kTrials; ++trial) {
    GPU_OK(out.upload(std::vector<int>(k, kPrefill), stream));
    arm(lens, n);
    dsv4_tensor ts = t2d(scores.ptr, DSV4_BFLOAT16, 1, L, L), tl = t1d(lens.ptr, DSV4_INT32, 1),
                tp = t2d(d_table.ptr, DSV4_INT32, 1, W, W), to = t2d(out.ptr, DSV4_INT32, 1, k, k);
    dsv4_message msg{};
    ABI_EXPECT(DSV4_OK, p.bf16(&ts, &tl, &tp, &to, page, stream, 0, &msg), msg);
    std::vector<int> h_out;
    GPU_OK(out.download(h_out, stream));
    EXPECT_EQ(check_topk_row(f.data(), n, k, h_out.data(), [](int64_t i) { return i; },
                             [](int64_t y) { return y; }),
              "")
        << "trial " << trial;
    dsv4_device_status st;
    ASSERT_TRUE(read_status(stream, &st));
    EXPECT_EQ(st.code_mask, 0u) << describe_status(st);
  }
}

TEST_F(PdlDelayedProducer, Amax8SeesTheProducedLength) {
  REQUIRE_ENTRY(amax8, DSV4_ENTRY_AMAX8_VARLEN);
  const auto& p = plugin();
  const int L = 10000, n = 10000, nk = (n + 7) / 8, Kk = (nk + 3) / 4 * 4;
  const std::vector<float> h_scores = random_scores(L, 99u);
  const float kPoison = -7777.f;  // pre-fill of the keys; never a block max of N(0,1) data
  DevBuf<float> scores(L), out(Kk);
  DevBuf<int> lens(1);
  ASSERT_TRUE(scores.ok() && lens.ok() && out.ok());
  GPU_OK(scores.upload(h_scores, stream));
  for (int trial = 0; trial < kTrials; ++trial) {
    GPU_OK(out.upload(std::vector<float>(Kk, kPoison), stream));
    arm(lens, n);
    dsv4_tensor ts = t2d(scores.ptr, DSV4_FLOAT32, 1, L, L), tl = t1d(lens.ptr, DSV4_INT32, 1),
                to = t2d(out.ptr, DSV4_FLOAT32, 1, Kk, Kk);
    dsv4_message msg{};
    ABI_EXPECT(DSV4_OK, p.amax8(&ts, &tl, &to, 0, stream, 0, &msg), msg);
    std::vector<float> h_out;
    GPU_OK(out.download(h_out, stream));
    int bad = 0;
    for (int i = 0; i < Kk && bad < 5; ++i) {
      float want = kPoison;
      if (i < nk - 1) {
        want = h_scores[8 * i];
        for (int j = 1; j < 8; ++j) want = std::max(want, h_scores[8 * i + j]);
      } else if (i == nk - 1) {
        want = INFINITY;
      }
      if (!(h_out[i] == want)) {
        ++bad;
        ADD_FAILURE() << "trial " << trial << ": key " << i << " = " << h_out[i] << ", want " << want
                      << (h_out[i] == kPoison ? " (unwritten: length read before the wait?)" : "");
      }
    }
    dsv4_device_status st;
    ASSERT_TRUE(read_status(stream, &st));
    EXPECT_EQ(st.code_mask, 0u) << describe_status(st);
  }
}

}  // namespace
}  // namespace dsv4::gpu_test
