// properties/occupancy_probe_test.cpp -- get_max_active_clusters (occupancy_probe.md §4, §7):
// argument errors are InvalidArgument (never a crash); with probe answers injected (0, error, 1,
// above capacity) Top-K v2 stays exact, never launches a zero-size grid and takes the documented
// path of topk_v2.md §5.2-§5.3 / §7 for every long row.
#include "properties/prop_support.hpp"

using namespace dsv4;
using harness::Case;

static dsv4_result probe(int32_t size, int32_t occ, int32_t* out) {
  dsv4_message msg{};
  const auto fn = props::env().impl->fn().get_max_active_clusters;
  return fn(size, occ, out, &msg);
}

TEST(OccupancyProbe, ArgumentErrorsAreInvalidArgument) {
  if (!props::env().impl->fn().get_max_active_clusters) GTEST_SKIP() << "probe entry not implemented";
  for (auto [size, occ] : std::vector<std::pair<int32_t, int32_t>>{
           {8, 0}, {8, -1}, {0, 2}, {-1, 1}, {16, INT32_MIN}, {INT32_MIN, 1}, {8, 1 << 20}}) {
    int32_t out = -777;
    const dsv4_result r = probe(size, occ, &out);
    EXPECT_EQ(r, DSV4_ERR_INVALID_ARGUMENT) << "probe(" << size << ", " << occ << ")";
    EXPECT_EQ(out, -777) << "an error must not write the answer";
  }
  dsv4_message msg{};
  EXPECT_EQ(props::env().impl->fn().get_max_active_clusters(8, 2, nullptr, &msg), DSV4_ERR_INVALID_ARGUMENT);
}

// occupancy_probe.md §1/§4/§7: "nothing fits" is an error, never a successful 0 (a zero answer would
// size a zero-size pool, bug class 13). On every device a cluster of 32 CTAs is not schedulable.
TEST(OccupancyProbe, NothingFitsIsNoSchedulableClustersNeverZero) {
  if (!props::env().impl->fn().get_max_active_clusters) GTEST_SKIP() << "probe entry not implemented";
  for (int32_t occ : {1, 2}) {
    int32_t out = -777;
    const dsv4_result r = probe(32, occ, &out);
    EXPECT_EQ(r, DSV4_ERR_NO_SCHEDULABLE_CLUSTERS) << "probe(32, " << occ << ") answered " << out;
    EXPECT_NE(out, 0) << "probe(32, " << occ << ") must never report a successful 0";
  }
  for (auto [size, occ] : std::vector<std::pair<int32_t, int32_t>>{{8, 2}, {16, 1}, {8, 1}}) {
    int32_t out = -777;
    if (probe(size, occ, &out) == DSV4_OK) EXPECT_GE(out, 1) << "probe(" << size << ", " << occ << ")";
  }
}

// Expected Top-K v2 path of a long row (n > max(Register4 capacity, F(B))) in a batch of B such
// rows, cluster paths enabled, floors F = `floor`, the plan at T = 0 (topk_v2.md §5.2, §6, §7).
static int32_t expected_long_row_path(int32_t B, int32_t inj8, int32_t inj16) {
  const int32_t P = inj8 == -2 ? 30 : inj8;     // error -> arch default (sm_90 fallback); 0 -> disabled
  const int32_t C16 = inj16 == -2 ? 0 : inj16;  // error -> 0
  if (C16 > 0 && B <= C16) return DSV4_PATH_CLUSTER16;
  if (P > 0 && B <= P) return DSV4_PATH_CLUSTER8;
  if (P > 0) return DSV4_PATH_POOL;
  return DSV4_PATH_STREAMING;
}

DSV4_PROP(OccupancyProbe, InjectedAnswersKeepTopkExactAndRouted, 60) {
  const int r4 = gen::limits().register4_max();
  const int32_t floor = 1024;
  const int32_t B = *rc::gen::inRange(1, 9);
  const int32_t L = std::max(r4, floor) + *rc::gen::inRange(1, 1200);
  Case c = harness::make_topk_paged(B, L, *rc::gen::element(16, 64, 512), harness::Dist::Randn,
                                    *rc::gen::arbitrary<uint64_t>());
  c.shape.stride_pad = (4 - L % 4) % 4;
  c.rows[0].dist = *gen::scoreDist(false);
  c.knobs.cluster_enable = 1;
  c.knobs.cluster_floor_small = floor;
  c.knobs.cluster_floor_large = floor;
  c.knobs.plan_t_min = 0;
  c.knobs.static_threshold = 0;
  c.knobs.inject_probe_c8 = *rc::gen::element(-2, 0, 1, 2, 4, 64);
  c.knobs.inject_probe_c16 = *rc::gen::element(-2, 0, 1, 7, 64);
  c.mode = *rc::gen::element(harness::PagedMode::Indices, harness::PagedMode::PageTable);
  const harness::Outcome o = props::run(c);
  RC_TAG(harness::verdict_name(o.verdict));
  if (o.verdict == harness::Verdict::Skipped) return;
  if (o.verdict != harness::Verdict::Pass) RC_FAIL(props::failure_message(c, o, "case did not pass"));
  const int32_t want = expected_long_row_path(B, c.knobs.inject_probe_c8, c.knobs.inject_probe_c16);
  RC_CLASSIFY(want == DSV4_PATH_POOL, "pool");
  RC_CLASSIFY(want == DSV4_PATH_CLUSTER16, "cluster16");
  RC_CLASSIFY(want == DSV4_PATH_CLUSTER8, "cluster8");
  for (size_t b = 0; b < o.row_paths.size(); ++b)
    if (o.row_paths[b] != want)
      RC_FAIL(props::failure_message(c, o, "row " + std::to_string(b) + " took path " +
                                               std::to_string(o.row_paths[b]) + ", documented path " +
                                               std::to_string(want)));
}

DSV4_PROPS_MAIN()
