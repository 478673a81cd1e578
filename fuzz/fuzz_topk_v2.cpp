// fuzz/fuzz_topk_v2.cpp -- libFuzzer target for topk_v2_transform_paged (+ topk_v2_plan when written).
//
// Invariant checked (every input, zero tolerance): every row's output is the exact top-min(K, n_v)
//   value multiset of its window (NaN absent, +-0 equal) after undoing the page transform
//   (topk_v2.md §3.3), trivial rows slot-exact, INT32_MIN exactly where the 64-bit transform fails
//   (code 5), the expected status codes / host error in both validation modes, nothing written
//   outside [B, K) (guard columns, red zones, inputs unchanged) -- on whatever dispatch path the
//   case forces.
// Input: any byte string (total decode) or a case file; kernel forced to TopkV2Paged; bounded to
// B <= 4, L <= 4608, K <= 2048 so one execution stays in milliseconds on the CPU (simt) backend.
#include "fuzz/fuzz_driver.hpp"

namespace dsv4::fuzz {

const Target& target() {
  static const Target t = [] {
    Target x{"fuzz_topk_v2", harness::KernelId::TopkV2Paged, {}};
    x.limits.total.max_batch = 4;
    x.limits.total.max_width = 4608;
    x.limits.total.max_k = 2048;
    x.limits.max_cells = 20000;
    return x;
  }();
  return t;
}

}  // namespace dsv4::fuzz
