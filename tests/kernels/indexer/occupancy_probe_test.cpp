// tests/kernels/indexer/occupancy_probe_test.cpp -- the cluster occupancy probe on the simt
// virtual device (spec occupancy_probe.md §2-§5, §7; bug classes 13, 21, 22): H200 answers and
// the pinning method, argument errors, failure modes through the virtual device's query hook and
// the config injections, per-device memoization, thread safety.
#include <atomic>
#include <cstring>
#include <thread>

#include "indexer_test_util.hpp"
#include "kernels/occupancy_probe/occupancy_probe.hpp"
#include "kernels/occupancy_probe/occupancy_probe_testing.hpp"
#include "simt/portable.h"

using namespace idxtest;

namespace {

class Probe : public ::testing::Test {
 protected:
  void SetUp() override { restore(); }
  void TearDown() override { restore(); }
  static void restore() {
    simt::vdev::reset();
    dsv4_set_config(nullptr, nullptr);
    dsv4::ours::probe_cache_clear_for_testing();
  }
  static dsv4_result probe(int size, int occ, int* out, std::string* text = nullptr) {
    dsv4_message m{};
    const dsv4_result r = dsv4_get_max_active_clusters(size, occ, out, &m);
    if (text) *text = m.text;
    return r;
  }
};

// H200 defaults (§3): (8,2) = 30, (16,1) = 7, the whole measured table through the pinning
// method (the virtual device derives the occupancy from the launch configuration we build).
TEST_F(Probe, H200TableThroughPinning) {
  const int sizes[5] = {1, 2, 4, 8, 16};
  const int table[4][5] = {{132, 66, 30, 15, 7}, {264, 132, 62, 30, 14}, {396, 198, 92, 45, 21},
                           {528, 264, 124, 62, 28}};
  for (int occ = 1; occ <= 4; ++occ)
    for (int i = 0; i < 5; ++i) {
      int v = -1;
      std::string text;
      ASSERT_EQ(probe(sizes[i], occ, &v, &text), DSV4_OK) << text;
      EXPECT_EQ(v, table[occ - 1][i]) << "cluster " << sizes[i] << " occupancy " << occ;
    }
  int v = -1;
  ASSERT_EQ(dsv4::ours::probe_max_active_clusters(8, 2, &v, nullptr), DSV4_OK);
  EXPECT_EQ(v, 30);
}

// Cluster 32 is not schedulable: NoSchedulableClusters naming N, O, the device and the SM count.
TEST_F(Probe, NoSchedulableClusters) {
  for (int occ : {1, 2, 4}) {
    int v = 12345;
    std::string text;
    EXPECT_EQ(probe(32, occ, &v, &text), DSV4_ERR_NO_SCHEDULABLE_CLUSTERS);
    EXPECT_EQ(v, 12345) << "out must not be written on error";
    EXPECT_NE(text.find("cluster of 32"), std::string::npos) << text;
    EXPECT_NE(text.find("occupancy " + std::to_string(occ)), std::string::npos) << text;
    EXPECT_NE(text.find("H200"), std::string::npos) << text;
    EXPECT_NE(text.find("132 SMs"), std::string::npos) << text;
  }
}

// Class 22: occupancy 0 / negative, cluster size 0 / negative, occupancy above the device's
// resident CTAs per SM (32 on the virtual H200): InvalidArgument, never a crash.
TEST_F(Probe, ArgumentErrors) {
  const std::pair<int, int> bad[] = {{8, 0}, {8, -1}, {0, 2}, {-8, 2}, {8, 33}, {16, 1 << 30}, {INT32_MIN, INT32_MIN}};
  for (auto [size, occ] : bad) {
    int v = 12345;
    std::string text;
    EXPECT_EQ(probe(size, occ, &v, &text), DSV4_ERR_INVALID_ARGUMENT) << size << "," << occ;
    EXPECT_EQ(v, 12345);
    EXPECT_FALSE(text.empty());
  }
  dsv4_message m{};
  EXPECT_EQ(dsv4_get_max_active_clusters(8, 2, nullptr, &m), DSV4_ERR_INVALID_ARGUMENT);
}

// Pre-sm_90 device: ClustersUnsupported naming the device and its capability.
TEST_F(Probe, ClustersUnsupportedBeforeSm90) {
  simt::vdev::set_profile(simt::vdev::sm80_no_clusters());
  int v = 0;
  std::string text;
  EXPECT_EQ(probe(8, 2, &v, &text), DSV4_ERR_CLUSTERS_UNSUPPORTED);
  EXPECT_NE(text.find(simt::vdev::profile().name), std::string::npos) << text;
  EXPECT_NE(text.find("8.0"), std::string::npos) << text;
}

// Fault injection through the virtual device: CUDA errors (query and attribute reads), a zero
// answer (class 13: must never become a pool of 0), 1, and values above the true capacity.
TEST_F(Probe, VirtualDeviceInjection) {
  using simt::vdev::Injection;
  using simt::vdev::Query;
  simt::vdev::set_query_hook([](const simt::vdev::QueryInfo& q) {
    Injection inj;
    if (q.query == Query::kMaxActiveClusters && q.cluster_size == 8) inj = {true, cudaErrorInvalidValue, 0};
    if (q.query == Query::kMaxActiveClusters && q.cluster_size == 4) inj = {true, cudaSuccess, 0};
    if (q.query == Query::kMaxActiveClusters && q.cluster_size == 2) inj = {true, cudaSuccess, 1};
    if (q.query == Query::kMaxActiveClusters && q.cluster_size == 1) inj = {true, cudaSuccess, 100000};
    return inj;
  });
  int v = 0;
  std::string text;
  EXPECT_EQ(probe(8, 2, &v, &text), DSV4_ERR_CUDA);
  EXPECT_NE(text.find("cudaOccupancyMaxActiveClusters"), std::string::npos) << text;
  v = 12345;
  EXPECT_EQ(probe(4, 2, &v, &text), DSV4_ERR_NO_SCHEDULABLE_CLUSTERS) << "zero answer: " << v;
  EXPECT_EQ(probe(2, 2, &v, &text), DSV4_OK);
  EXPECT_EQ(v, 1);
  EXPECT_EQ(probe(1, 2, &v, &text), DSV4_OK);
  EXPECT_EQ(v, 100000);
  simt::vdev::set_query_hook([](const simt::vdev::QueryInfo& q) {
    Injection inj;
    if (q.query == Query::kDeviceProps) inj = {true, cudaErrorNoDevice, 0};
    return inj;
  });
  EXPECT_EQ(probe(16, 1, &v, &text), DSV4_ERR_CUDA);
  EXPECT_NE(text.find("device properties"), std::string::npos) << text;
}

// dsv4_config injections: >= 0 replaces the answer (0 = no schedulable clusters), -2 = CUDA-style
// failure, -1 = ask the device; c8 applies to cluster size 8 only, c16 to 16 only.
TEST_F(Probe, ConfigInjection) {
  dsv4_config cfg;
  std::memset(&cfg, 0xff, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.force_path = DSV4_PATH_AUTO;
  cfg.early_read = 0;
  cfg.inject_probe_c8 = 5;
  cfg.inject_probe_c16 = -2;
  ASSERT_EQ(dsv4_set_config(&cfg, nullptr), DSV4_OK);
  int v = 0;
  EXPECT_EQ(probe(8, 2, &v), DSV4_OK);
  EXPECT_EQ(v, 5);
  EXPECT_EQ(probe(16, 1, &v), DSV4_ERR_CUDA);
  EXPECT_EQ(probe(4, 1, &v), DSV4_OK);
  EXPECT_EQ(v, 30) << "sizes other than 8/16 ignore the injections";
  cfg.inject_probe_c8 = 0;
  cfg.inject_probe_c16 = -1;
  ASSERT_EQ(dsv4_set_config(&cfg, nullptr), DSV4_OK);
  EXPECT_EQ(probe(8, 2, &v), DSV4_ERR_NO_SCHEDULABLE_CLUSTERS);
  EXPECT_EQ(probe(16, 1, &v), DSV4_OK);
  EXPECT_EQ(v, 7);
  EXPECT_EQ(probe(8, 0, &v), DSV4_ERR_INVALID_ARGUMENT) << "arguments are checked before injection";
}

// §5 / class 21: memoized per (device identity, size, occupancy); a second device is asked anew.
TEST_F(Probe, MemoizedPerDevice) {
  int v = 0;
  const long long q0 = dsv4::ours::probe_device_queries_for_testing();
  ASSERT_EQ(probe(8, 2, &v), DSV4_OK);
  ASSERT_EQ(probe(8, 2, &v), DSV4_OK);
  EXPECT_EQ(dsv4::ours::probe_device_queries_for_testing() - q0, 1) << "second call not memoized";
  auto other = simt::vdev::h200();
  other.uuid = "0123456789abcdef0123456789abcdef";
  other.clusters_table[1][3] = 29;  // a different GPC layout
  simt::vdev::set_profile(other);
  ASSERT_EQ(probe(8, 2, &v), DSV4_OK);
  EXPECT_EQ(v, 29) << "the first device's answer was reused";
  EXPECT_EQ(dsv4::ours::probe_device_queries_for_testing() - q0, 2);
}

// Thread-safe: concurrent callers all get the same answer, and the device is asked once.
TEST_F(Probe, ConcurrentCallers) {
  const long long q0 = dsv4::ours::probe_device_queries_for_testing();
  std::atomic<int> bad{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 8; ++t)
    ts.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        int v = 0;
        if (dsv4_get_max_active_clusters(16, 1, &v, nullptr) != DSV4_OK || v != 7) ++bad;
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(dsv4::ours::probe_device_queries_for_testing() - q0, 1);
}

}  // namespace
