// fuzz/fuzz_topk_v2_ragged.cpp -- libFuzzer target for topk_v2_transform_ragged.
//
// Invariant checked (every input, zero tolerance): each row selects the exact top-min(K, n_v) of
//   scores[b, rs_b : rs_b + n_b) emitted as p + out_offsets[b], never reads or is influenced by
//   cells outside its window (poisoned), bad windows are row errors (codes 1, 2, 4: all -1) or named
//   host errors in checked mode, and the scores buffer is byte-identical after the call (strict
//   mode).
// Input: any byte string (total decode) or a case file; kernel forced to TopkV2Ragged; bounded to
// B <= 4, L <= 4608, K <= 2048 so one execution stays in milliseconds on the CPU (simt) backend.
#include "fuzz/fuzz_driver.hpp"

namespace dsv4::fuzz {

const Target& target() {
  static const Target t = [] {
    Target x{"fuzz_topk_v2_ragged", harness::KernelId::TopkV2Ragged, {}};
    x.limits.total.max_batch = 4;
    x.limits.total.max_width = 4608;
    x.limits.total.max_k = 2048;
    x.limits.max_cells = 20000;
    return x;
  }();
  return t;
}

}  // namespace dsv4::fuzz
