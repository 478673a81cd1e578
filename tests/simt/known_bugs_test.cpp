// tests/simt/known_bugs_test.cpp -- the known-bug corpus: kernels with one planted bug each,
// caught by the intended mechanism on every schedule tried; the correct twin runs clean.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "simt/portable.h"

namespace {

const char* kSchedules[] = {"rr", "random:1", "random:2", "random:99", "pct:1:3", "pct:2:2", "pct:3:5", "tape"};

void use_schedule(const std::string& s) {
  if (s == "tape") {
    const uint8_t bytes[] = {7, 1, 200, 33, 5, 91, 250, 0, 17, 4};
    simt::set_schedule_tape(bytes, sizeof bytes);
  } else {
    ASSERT_TRUE(simt::set_schedule_from_string(s)) << s;
  }
}

struct Quiet {
  Quiet() { simt::set_quiet(true); }
  ~Quiet() {
    simt::set_quiet(false);
    simt::set_schedule_from_string("rr");
  }
};

// ---- 1. missing __syncthreads between a shared write and a neighbour's read ------------------
template <bool kBug>
SIMT_KERNEL void neighbour_sum(int* out) {
  SIMT_SHARED(int, s, [64]);
  const unsigned t = threadIdx.x;
  s[t] = static_cast<int>(t) + 1;
  if (!kBug) __syncthreads();
  out[t] = s[(t + 1) % 64];
}

TEST(KnownBugs, MissingSyncthreadsGivesWrongResultOnEverySchedule) {
  Quiet q;
  for (const char* s : kSchedules) {
    use_schedule(s);
    for (bool bug : {true, false}) {
      std::vector<int> out(64, 0);
      simt::rt::LaunchConfig c;
      c.block = dim3(64);
      auto e = simt::rt::launch(c, bug ? neighbour_sum<true> : neighbour_sum<false>, out.data());
      ASSERT_EQ(e, simt::rt::kSuccess) << s << simt::last_report();
      bool right = true;
      for (int t = 0; t < 64; ++t) right = right && out[t] == (t + 1) % 64 + 1;
      EXPECT_EQ(right, !bug) << "schedule " << s << (bug ? " buggy" : " correct");
    }
  }
}

// ---- 2. __syncthreads in divergent code ------------------------------------------------------
template <bool kBug>
SIMT_KERNEL void divergent_barrier(int* out) {
  SIMT_SHARED(int, s, [128]);
  const unsigned t = threadIdx.x;
  s[t] = static_cast<int>(t);
  if (kBug) {
    if (t < 64) __syncthreads();
  } else {
    __syncthreads();
  }
  out[t] = s[127 - t];
}

TEST(KnownBugs, SyncthreadsInDivergentCodeIsReported) {
  Quiet q;
  for (const char* s : kSchedules) {
    use_schedule(s);
    std::vector<int> out(128);
    simt::rt::LaunchConfig c;
    c.block = dim3(128);
    EXPECT_EQ(simt::rt::launch(c, divergent_barrier<true>, out.data()), cudaErrorLaunchFailure) << s;
    EXPECT_NE(simt::last_report().find("barrier divergence"), std::string::npos) << s << simt::last_report();
    EXPECT_NE(simt::last_report().find("known_bugs_test.cpp"), std::string::npos) << simt::last_report();
    EXPECT_NE(simt::last_report().find("simt repro: SIMT_SCHED="), std::string::npos);
    EXPECT_EQ(simt::rt::launch(c, divergent_barrier<false>, out.data()), simt::rt::kSuccess) << s;
    EXPECT_EQ(simt::last_report(), "");
  }
}

// Early return before a barrier (threads past the end of the data).
template <bool kBug>
SIMT_KERNEL void early_return(const int* in, int* out, int n) {
  SIMT_SHARED(int, s, [64]);
  const int t = static_cast<int>(threadIdx.x);
  if (kBug && t >= n) return;
  s[t] = t < n ? in[t] : 0;
  __syncthreads();
  if (t < n) out[t] = s[n - 1 - t];
}

TEST(KnownBugs, EarlyReturnBeforeBarrierIsReported) {
  Quiet q;
  std::vector<int> in(64, 3), out(64);
  for (const char* s : kSchedules) {
    use_schedule(s);
    simt::rt::LaunchConfig c;
    c.block = dim3(64);
    EXPECT_EQ(simt::rt::launch(c, early_return<true>, in.data(), out.data(), 40), cudaErrorLaunchFailure) << s;
    EXPECT_NE(simt::last_report().find("exited without reaching it"), std::string::npos) << simt::last_report();
    EXPECT_EQ(simt::rt::launch(c, early_return<false>, in.data(), out.data(), 40), simt::rt::kSuccess) << s;
  }
}

// ---- 3. shuffle reading a lane outside the mask ----------------------------------------------
template <bool kBug>
SIMT_KERNEL void half_warp_rotate(int* out) {
  const unsigned lane = threadIdx.x;
  int v = static_cast<int>(lane) * 10;
  if (lane < 16) {
    // bug: source lane (lane + 8) leaves the 16-lane mask for lanes 8..15 (width 32)
    v = kBug ? __shfl_sync(0x0000ffffu, v, static_cast<int>(lane + 8))
             : __shfl_sync(0x0000ffffu, v, static_cast<int>(lane + 8), 16);
  }
  out[lane] = v;
}

TEST(KnownBugs, ShuffleFromLaneOutsideMaskIsReported) {
  Quiet q;
  for (const char* s : kSchedules) {
    use_schedule(s);
    std::vector<int> out(32);
    simt::rt::LaunchConfig c;
    c.block = dim3(32);
    EXPECT_EQ(simt::rt::launch(c, half_warp_rotate<true>, out.data()), cudaErrorLaunchFailure) << s;
    EXPECT_NE(simt::last_report().find("outside the mask"), std::string::npos) << simt::last_report();
    EXPECT_NE(simt::last_report().find("warp 0 lane 8"), std::string::npos) << simt::last_report();
    EXPECT_EQ(simt::rt::launch(c, half_warp_rotate<false>, out.data()), simt::rt::kSuccess) << s;
    EXPECT_EQ(out[3], 110);
    EXPECT_EQ(out[9], 10);
  }
}

// Mask naming lanes that exited.
template <bool kBug>
SIMT_KERNEL void exited_lane_mask(int* out) {
  const unsigned lane = threadIdx.x;
  if (lane >= 24) return;
  out[lane] = static_cast<int>(__ballot_sync(kBug ? 0xffffffffu : 0x00ffffffu, lane & 1u));
}

TEST(KnownBugs, MaskNamingExitedLanesIsReported) {
  Quiet q;
  for (const char* s : kSchedules) {
    use_schedule(s);
    std::vector<int> out(32);
    simt::rt::LaunchConfig c;
    c.block = dim3(32);
    EXPECT_EQ(simt::rt::launch(c, exited_lane_mask<true>, out.data()), cudaErrorLaunchFailure) << s;
    EXPECT_NE(simt::last_report().find("exited lanes"), std::string::npos) << simt::last_report();
    EXPECT_EQ(simt::rt::launch(c, exited_lane_mask<false>, out.data()), simt::rt::kSuccess) << s;
    EXPECT_EQ(out[0], 0x00aaaaaa);
  }
}

// ---- 5. reading a cluster peer's shared memory after it exited (missing final cluster.sync) ---
template <bool kBug>
SIMT_KERNEL void cluster_read_peer(int* out) {
  SIMT_SHARED(int, s, [32]);
  auto cl = simt_cg::this_cluster();
  const unsigned r = cl.block_rank();
  s[threadIdx.x] = static_cast<int>(r * 100 + threadIdx.x);
  cl.sync();
  const int* peer = cl.map_shared_rank(&s[0], (r + 1) % cl.num_blocks());
  out[blockIdx.x * 32 + threadIdx.x] = peer[threadIdx.x];
  if (!kBug) cl.sync();
}

// ---- 6. missing cluster.sync before the DSMEM read --------------------------------------------
template <bool kBug>
SIMT_KERNEL void cluster_no_initial_sync(int* out) {
  SIMT_SHARED(int, s, [32]);
  auto cl = simt_cg::this_cluster();
  const unsigned r = cl.block_rank();
  s[threadIdx.x] = static_cast<int>(r * 100 + threadIdx.x);
  if (!kBug) cl.sync();
  const int* peer = cl.map_shared_rank(&s[0], (r + 1) % cl.num_blocks());
  out[blockIdx.x * 32 + threadIdx.x] = peer[threadIdx.x];
  cl.sync();
}

TEST(KnownBugs, ClusterLifetimeBugsAreReported) {
  Quiet q;
  for (const char* s : kSchedules) {
    use_schedule(s);
    std::vector<int> out(4 * 32);
    simt::rt::LaunchConfig c;
    c.grid = dim3(4);
    c.block = dim3(32);
    c.cluster = dim3(2);
    EXPECT_EQ(simt::rt::launch(c, cluster_read_peer<true>, out.data()), cudaErrorLaunchFailure) << s;
    EXPECT_NE(simt::last_report().find("cluster shared-memory"), std::string::npos) << simt::last_report();
    EXPECT_EQ(simt::rt::launch(c, cluster_read_peer<false>, out.data()), simt::rt::kSuccess)
        << s << simt::last_report();
    EXPECT_EQ(out[32 + 5], 5);
    EXPECT_EQ(simt::rt::launch(c, cluster_no_initial_sync<true>, out.data()), cudaErrorLaunchFailure) << s;
    EXPECT_NE(simt::last_report().find("before cluster.sync"), std::string::npos) << simt::last_report();
    EXPECT_EQ(simt::rt::launch(c, cluster_no_initial_sync<false>, out.data()), simt::rt::kSuccess)
        << s << simt::last_report();
    EXPECT_EQ(out[5], 105);
  }
}

}  // namespace
