// properties/candidate_block_table_test.cpp -- sort_candidate_blocks (candidate_block_table.md):
// identity path (nb <= K) and sort path exact slot by slot, both outputs, every id distribution
// (duplicates, -1, ids at nb-1 / nb / capacity-1 / capacity / INT32_MAX), page sizes 8..2^20,
// huge table entries, negative lengths in both modes; bitwise repeatability (run twice).
#include "fuzz/seed_cases.hpp"
#include "properties/prop_support.hpp"

using namespace dsv4;

DSV4_PROP(CandidateTable, InContract, 200) { props::check_case(*gen::candidateTable()); }
DSV4_PROP(CandidateTable, OutOfContract, 100) { props::check_case(*gen::candidateTable(true)); }

// Deterministic kernel: the same case twice gives the same verdict (the oracle is exact per slot,
// so two passes mean two identical outputs).
DSV4_PROP(CandidateTable, Repeatable, 60) {
  const harness::Case c = *gen::candidateTable();
  props::check_case(c);
  props::check_case(c);
}

class CandTrigger : public ::testing::TestWithParam<seeds::Named> {};
TEST_P(CandTrigger, Passes) { props::expect_pass(GetParam().c, GetParam().name); }
INSTANTIATE_TEST_SUITE_P(CandidateTable, CandTrigger, ::testing::ValuesIn(seeds::candidate_table()),
                         [](const auto& i) { return props::param_name(i.param.name); });

DSV4_PROPS_MAIN()
