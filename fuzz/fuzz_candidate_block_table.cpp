// fuzz/fuzz_candidate_block_table.cpp -- libFuzzer target for sort_candidate_blocks.
//
// Invariant checked (every input, zero tolerance): identity path (nb <= K) = arange(nb) then
//   INT32_MAX; sort path = the distinct valid ids ascending then INT32_MAX, out_pages = the 64-bit
//   checked pool-slot map (INT32_MIN + code 5 when it fails), code 6 per out-of-range id, warning 17
//   when m < min(K, nb), both outputs fully written and nothing else.
// Input: any byte string (total decode) or a case file; kernel forced to CandidateTable; bounded to
// B <= 4, L <= 131072, K <= 2048 so one execution stays in milliseconds on the CPU (simt) backend.
#include "fuzz/fuzz_driver.hpp"

namespace dsv4::fuzz {

const Target& target() {
  static const Target t = [] {
    Target x{"fuzz_candidate_block_table", harness::KernelId::CandidateTable, {}};
    x.limits.total.max_batch = 4;
    x.limits.total.max_width = 131072;
    x.limits.total.max_k = 2048;
    x.limits.max_cells = 16384;
    return x;
  }();
  return t;
}

}  // namespace dsv4::fuzz
