// tests/gpu/test_gpu_occupancy_probe.cu -- the occupancy probe on the real device
// (occupancy_probe.md §3, §4, §7; bug classes 13, 21, 22).
//   - H200: (8, 2) == 30, (16, 1) == 7 (hard); the full §3 table is printed and compared softly
//     (report, never fail) on every device;
//   - cluster 32 -> NO_SCHEDULABLE_CLUSTERS at every occupancy;
//   - occupancy 0 / negative / above the device's resident-CTA limit, cluster size 0 / negative
//     -> INVALID_ARGUMENT (and the process survives);
//   - more than one device: each device answers for itself (class 21).
#include <cstdio>

#include "gpu_test_util.hpp"

namespace dsv4::gpu_test {
namespace {

class OccupancyProbe : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_ENTRY(max_active_clusters, DSV4_ENTRY_MAX_ACTIVE_CLUSTERS);
    ASSERT_TRUE(reset_config());  // no injected answers
    if (device_props().major < 9) {
      std::printf("[ SKIP-NOTE ] %s is sm_%d%d: clusters unsupported\n", device_props().name,
                  device_props().major, device_props().minor);
      GTEST_SKIP() << "device before sm_90: the probe answers CLUSTERS_UNSUPPORTED";
    }
  }
  dsv4_result probe(int size, int occ, int* out, dsv4_message* msg) {
    *out = -99;
    std::memset(msg, 0, sizeof *msg);
    return plugin().max_active_clusters(size, occ, out, msg);
  }
};

// Spec §3 table (H200, driver 580.159.04). Rows occupancy 1..4, columns cluster 1..32.
constexpr int kSizes[] = {1, 2, 4, 8, 16, 32};
constexpr int kH200[4][6] = {{132, 66, 30, 15, 7, 0},
                             {264, 132, 62, 30, 14, 0},
                             {396, 198, 92, 45, 21, 0},
                             {528, 264, 124, 62, 28, 0}};

TEST_F(OccupancyProbe, H200ValuesUsedByTopKV2) {
  int v = 0;
  dsv4_message msg;
  ABI_EXPECT(DSV4_OK, probe(8, 2, &v, &msg), msg);
  const int c8 = v;
  ABI_EXPECT(DSV4_OK, probe(16, 1, &v, &msg), msg);
  const int c16 = v;
  std::printf("%s: probe(8,2) = %d, probe(16,1) = %d\n", device_props().name, c8, c16);
  EXPECT_GE(c8, 1);
  EXPECT_GE(c16, 1);
  if (device_is_h200()) {
    EXPECT_EQ(c8, 30) << "H200 Cluster-8 pool size (spec occupancy_probe.md §3)";
    EXPECT_EQ(c16, 7) << "H200 Cluster-16 capacity (spec occupancy_probe.md §3)";
  } else {
    std::printf("[ SOFT ] not an H200: 30 / 7 not asserted\n");
  }
}

TEST_F(OccupancyProbe, Cluster32IsNotSchedulable) {
  for (int occ = 1; occ <= 4; ++occ) {
    int v = 0;
    dsv4_message msg;
    const dsv4_result r = probe(32, occ, &v, &msg);
    EXPECT_EQ(int(r), int(DSV4_ERR_NO_SCHEDULABLE_CLUSTERS))
        << "probe(32, " << occ << ") -> " << v << " \"" << msg.text << "\"";
    EXPECT_NE(std::string(msg.text), "") << "the error must name the request";
  }
}

TEST_F(OccupancyProbe, BadArgumentsAreInvalidArgument) {
  int max_blocks = 0;
  GPU_OK(cudaDeviceGetAttribute(&max_blocks, cudaDevAttrMaxBlocksPerMultiprocessor, 0));
  const int cases[][2] = {{8, 0}, {8, -1}, {16, -5}, {8, max_blocks + 1}, {8, 1 << 30},
                          {0, 1}, {-8, 2}};
  for (const auto& c : cases) {
    int v = 0;
    dsv4_message msg;
    const dsv4_result r = probe(c[0], c[1], &v, &msg);
    EXPECT_EQ(int(r), int(DSV4_ERR_INVALID_ARGUMENT))
        << "probe(" << c[0] << ", " << c[1] << ") -> " << int(r) << " \"" << msg.text << "\"";
    EXPECT_EQ(v, -99) << "the output must be untouched on an error";
  }
  // NULL out pointer.
  dsv4_message msg{};
  EXPECT_EQ(int(plugin().max_active_clusters(8, 2, nullptr, &msg)), int(DSV4_ERR_INVALID_ARGUMENT));
  // The process and the device are still fine afterwards.
  int v = 0;
  ABI_EXPECT(DSV4_OK, probe(8, 1, &v, &msg), msg);
  GPU_OK(cudaDeviceSynchronize());
}

TEST_F(OccupancyProbe, FullTableSoftReport) {
  const bool h200 = device_is_h200();
  std::printf("max active clusters on %s (%d SMs)%s\n", device_props().name,
              device_props().multiProcessorCount, h200 ? ", vs the spec's H200 table" : "");
  std::printf("occ\\size");
  for (int s : kSizes) std::printf("%8d", s);
  std::printf("\n");
  int mismatches = 0;
  for (int occ = 1; occ <= 4; ++occ) {
    std::printf("%8d", occ);
    for (int j = 0; j < 6; ++j) {
      int v = 0;
      dsv4_message msg;
      const dsv4_result r = probe(kSizes[j], occ, &v, &msg);
      const int shown = r == DSV4_OK ? v : r == DSV4_ERR_NO_SCHEDULABLE_CLUSTERS ? 0 : -int(r);
      const bool diff = h200 && shown != kH200[occ - 1][j];
      mismatches += diff;
      std::printf("%7d%s", shown, diff ? "*" : " ");
      // Hard: a success is >= 1 ("never returns 0"), an error is one of the two documented ones.
      if (r == DSV4_OK)
        EXPECT_GE(v, 1);
      else
        EXPECT_EQ(int(r), int(DSV4_ERR_NO_SCHEDULABLE_CLUSTERS)) << msg.text;
    }
    std::printf("\n");
  }
  if (h200)
    std::printf("[ SOFT ] %d of 24 entries differ from the spec table (marked *; report only)\n",
                mismatches);
}

TEST_F(OccupancyProbe, EachDeviceAnswersForItself) {
  int count = 0;
  GPU_OK(cudaGetDeviceCount(&count));
  if (count < 2) {
    std::printf("[ SKIP-NOTE ] one device: per-device caching (class 21) needs two\n");
    GTEST_SKIP() << "single-GPU host";
  }
  for (int d = 0; d < count; ++d) {
    GPU_OK(cudaSetDevice(d));
    cudaDeviceProp prop{};
    GPU_OK(cudaGetDeviceProperties(&prop, d));
    int v = 0;
    dsv4_message msg;
    ABI_EXPECT(DSV4_OK, probe(8, 2, &v, &msg), msg);
    std::printf("device %d (%s): probe(8,2) = %d\n", d, prop.name, v);
    if (std::strstr(prop.name, "H200")) EXPECT_EQ(v, 30) << "device " << d;
  }
  GPU_OK(cudaSetDevice(0));
}

}  // namespace
}  // namespace dsv4::gpu_test
