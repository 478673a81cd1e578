// properties/topk_v2_test.cpp -- Top-K v2 (topk_v2.md): paged in every output mode, ragged, plan,
// every forced dispatch path, path invariance, out-of-contract rows in both validation modes, the
// §4.7 refinement, and the bug_classes.md minimal triggers as fixed examples.
// Property: for every generated case, run_case(case).verdict == pass (oracle exact, guards intact,
// expected status codes / host errors).
#include "fuzz/seed_cases.hpp"
#include "properties/prop_support.hpp"

using namespace dsv4;
using harness::Case;
using harness::PagedMode;

static Case in_mode(Case c, PagedMode m) {
  c.mode = m;
  return c;
}

DSV4_PROP(TopkV2, PagedIndices, 150) { props::check_case(in_mode(*gen::topkV2Paged(), PagedMode::Indices)); }
DSV4_PROP(TopkV2, PagedPageTable, 150) { props::check_case(in_mode(*gen::topkV2Paged(), PagedMode::PageTable)); }
DSV4_PROP(TopkV2, PagedDual, 150) { props::check_case(in_mode(*gen::topkV2Paged(), PagedMode::Dual)); }
DSV4_PROP(TopkV2, Ragged, 200) { props::check_case(*gen::topkV2Ragged()); }
DSV4_PROP(TopkV2, Plan, 200) { props::check_case(*gen::topkV2Plan()); }
DSV4_PROP(TopkV2, PagedOutOfContract, 150) { props::check_case(*gen::topkV2Paged({true, -1})); }
DSV4_PROP(TopkV2, RaggedOutOfContract, 150) { props::check_case(*gen::topkV2Ragged({true, -1})); }

// §4.7: more candidates in the threshold bin than the (small) tie capacity: the refinement path.
DSV4_PROP(TopkV2, ThresholdBinRefinement, 100) {
  Case c = *gen::topkV2Paged();
  c.knobs.tie_capacity = *rc::gen::element(0, 1, 2, 8, 64);
  harness::Injection j;
  j.kind = harness::InjKind::BinOverflow;
  j.arg = *rc::gen::element(10, 12);
  j.bits = *gen::hostileBin(j.arg);
  j.count = *gen::countNear(c.shape.k, c.shape.width);
  for (auto& r : c.rows) r.injections.push_back(j);
  props::check_case(c);
}

// Every forced path of the capability mask: one property per path.
class ForcedPath : public ::testing::TestWithParam<int32_t> {};
TEST_P(ForcedPath, PassesTheOracle) {
  const int32_t p = GetParam();
  if (!(gen::limits().paths & DSV4_PATH_BIT(p)) || !gen::limits().can_force_path)
    GTEST_SKIP() << "path " << p << " not provided by this implementation";
  props::check_property(80, [p] {
    const bool ragged = p <= DSV4_PATH_STREAMING && *rc::gen::arbitrary<bool>();
    props::check_case(ragged ? *gen::topkV2Ragged({false, p}) : *gen::topkV2Paged({false, p}));
  });
}
INSTANTIATE_TEST_SUITE_P(TopkV2, ForcedPath,
                         ::testing::Values(DSV4_PATH_REGISTER2, DSV4_PATH_REGISTER4, DSV4_PATH_STREAMING,
                                           DSV4_PATH_CLUSTER8, DSV4_PATH_CLUSTER16, DSV4_PATH_POOL,
                                           DSV4_PATH_CLUSTER4, DSV4_PATH_CLUSTER2),
                         [](const auto& i) { return "path" + std::to_string(i.param); });

// Path invariance: ONE case passes on every forced path (INDICES mode: same value multisets).
DSV4_PROP(TopkV2, PathInvariance, 50) {
  Case c = in_mode(*gen::topkV2Paged(), *rc::gen::element(PagedMode::Indices, PagedMode::Dual));
  for (int32_t p : gen::forceable_paths(false)) {
    c.knobs.force_path = p;
    RC_TAG(p);
    props::check_case(c);
  }
}

// The bug_classes.md minimal triggers (CPU-sized), each in both validation modes where relevant.
class Trigger : public ::testing::TestWithParam<seeds::Named> {};
TEST_P(Trigger, Passes) { props::expect_pass(GetParam().c, GetParam().name); }
static std::vector<seeds::Named> all_triggers() {
  auto v = seeds::topk_v2_paged();
  for (auto& s : seeds::topk_v2_ragged()) v.push_back(s);
  return v;
}
INSTANTIATE_TEST_SUITE_P(TopkV2, Trigger, ::testing::ValuesIn(all_triggers()),
                         [](const auto& i) { return props::param_name(i.param.name); });

DSV4_PROPS_MAIN()
