// properties/block_amax_test.cpp -- amax8_varlen (block_amax.md): keys exact (maxNum, newest key
// +inf), skipped rows and columns >= nk untouched, lengths 8m-1 / 8m / 8m+1, key width around nk,
// the topk skip around nk, NaN / ±0 / -inf blocks, poison past n, codes 1-3 in both modes.
#include "fuzz/seed_cases.hpp"
#include "properties/prop_support.hpp"

using namespace dsv4;

DSV4_PROP(BlockAmax, InContract, 250) { props::check_case(*gen::amax8()); }
DSV4_PROP(BlockAmax, OutOfContract, 150) { props::check_case(*gen::amax8(true)); }

// 1..8 NaNs inside one block, all-(-inf) blocks, +inf in non-newest blocks.
DSV4_PROP(BlockAmax, SpecialBlocks, 150) {
  harness::Case c = *gen::amax8();
  harness::Injection j;
  j.kind = harness::InjKind::Bits;
  j.pos = 8 * *rc::gen::inRange(0, 4);
  j.count = *rc::gen::inRange(1, 9);
  j.bits = *rc::gen::element(0x7FC00000u, 0xFF800000u, 0x7F800000u, 0x80000000u, 0u);
  for (auto& r : c.rows) r.injections.push_back(j);
  props::check_case(c);
}

class AmaxTrigger : public ::testing::TestWithParam<seeds::Named> {};
TEST_P(AmaxTrigger, Passes) { props::expect_pass(GetParam().c, GetParam().name); }
INSTANTIATE_TEST_SUITE_P(BlockAmax, AmaxTrigger, ::testing::ValuesIn(seeds::amax8()),
                         [](const auto& i) { return props::param_name(i.param.name); });

DSV4_PROPS_MAIN()
