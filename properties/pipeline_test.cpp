// properties/pipeline_test.cpp -- the chain property of spec README §2 (runner kernel id
// Pipeline): amax8 -> Top-K v2 block selection -> sort_candidate_blocks -> gather -> bf16 top-k,
// each stage checked by its own oracle on the ACTUAL output of the stage before it, plus the
// composition contracts (min(K2, nblk) distinct ids, newest block last, final slots invert to
// real positions of selected blocks).
#include "fuzz/seed_cases.hpp"
#include "properties/prop_support.hpp"

using namespace dsv4;

DSV4_PROP(Pipeline, Chain, 120) { props::check_case(*gen::pipeline()); }

// Lengths on block boundaries (8m-1, 8m, 8m+1) and nblk around the block K.
DSV4_PROP(Pipeline, BlockBoundaries, 80) {
  harness::Case c = *gen::pipeline();
  const int32_t k2 = c.shape.k2;
  for (auto& n : c.seq_lens)
    n = std::clamp(8 * *rc::gen::element(k2 - 1, k2, k2 + 1, 2 * k2) + *rc::gen::inRange(-1, 2), 0, c.shape.width);
  props::check_case(c);
}

class ChainExample : public ::testing::TestWithParam<seeds::Named> {};
TEST_P(ChainExample, Passes) { props::expect_pass(GetParam().c, GetParam().name); }
INSTANTIATE_TEST_SUITE_P(Pipeline, ChainExample, ::testing::ValuesIn(seeds::pipeline()),
                         [](const auto& i) { return props::param_name(i.param.name); });

DSV4_PROPS_MAIN()
