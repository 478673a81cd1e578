// properties/topk_bf16_small_test.cpp -- bf16 small-row top-k (topk_bf16_small.md): exact
// top-min(k, n_v) through the page table for hostile bf16 rows (NaN absent, ±0 equal, -0 pivots),
// lengths 8m-1 / 8m / 8m+1 / k / k+1 / L, page sizes 1..4096, out-of-contract lengths in both
// validation modes; the fixed examples of seed_cases.hpp.
#include "fuzz/seed_cases.hpp"
#include "properties/prop_support.hpp"

using namespace dsv4;

DSV4_PROP(Bf16Small, InContract, 200) { props::check_case(*gen::bf16Small()); }
DSV4_PROP(Bf16Small, OutOfContract, 100) { props::check_case(*gen::bf16Small(true)); }

// -0 pivot rule: rows that are mostly signed zeros with the k-th value a zero.
DSV4_PROP(Bf16Small, SignedZeroPivot, 100) {
  harness::Case c = *gen::bf16Small();
  for (auto& r : c.rows) {
    r.dist = harness::Dist::SignedZeros;
    r.injections.clear();
  }
  props::check_case(c);
}

// NaN count around k (k-1, k, k+1, all) at seeded positions.
DSV4_PROP(Bf16Small, NaNCountAroundK, 100) {
  if (!gen::limits().nan_supported) RC_DISCARD("NaN declared unsupported");
  harness::Case c = *gen::bf16Small();
  harness::Injection j;
  j.kind = harness::InjKind::NaNSprinkle;
  j.count = *gen::countNear(c.shape.k, c.shape.width);
  j.bits = *rc::gen::element(0x7FC00000u, 0xFFC00000u, 0x7F810000u);
  for (auto& r : c.rows) r.injections.push_back(j);
  props::check_case(c);
}

class Bf16Trigger : public ::testing::TestWithParam<seeds::Named> {};
TEST_P(Bf16Trigger, Passes) { props::expect_pass(GetParam().c, GetParam().name); }
INSTANTIATE_TEST_SUITE_P(Bf16Small, Bf16Trigger, ::testing::ValuesIn(seeds::bf16_small()),
                         [](const auto& i) { return props::param_name(i.param.name); });

DSV4_PROPS_MAIN()
