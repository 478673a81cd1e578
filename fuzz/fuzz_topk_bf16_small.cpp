// fuzz/fuzz_topk_bf16_small.cpp -- libFuzzer target for topk_bf16_small_transform.
//
// Invariant checked (every input, zero tolerance): exact top-min(k, n_v) of the bf16 row (NaN
//   absent, +-0 equal, -0 pivot rule) through the page table, trivial rows slot-exact, INT32_MIN +
//   code 5 for failing entries, codes 1-3 for out-of-contract lengths, guard columns intact.
// Input: any byte string (total decode) or a case file; kernel forced to Bf16Small; bounded to
// B <= 4, L <= 2048, K <= 2048 so one execution stays in milliseconds on the CPU (simt) backend.
#include "fuzz/fuzz_driver.hpp"

namespace dsv4::fuzz {

const Target& target() {
  static const Target t = [] {
    Target x{"fuzz_topk_bf16_small", harness::KernelId::Bf16Small, {}};
    x.limits.total.max_batch = 4;
    x.limits.total.max_width = 2048;
    x.limits.total.max_k = 2048;
    x.limits.max_cells = 8192;
    return x;
  }();
  return t;
}

}  // namespace dsv4::fuzz
