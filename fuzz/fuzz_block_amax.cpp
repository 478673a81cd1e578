// fuzz/fuzz_block_amax.cpp -- libFuzzer target for amax8_varlen.
//
// Invariant checked (every input, zero tolerance): key i = maxNum of scores[8i .. 8i+7] bitwise
//   (NaN payload / zero sign aside), key nk-1 = +inf, skipped rows (nk <= topk) and columns >= nk
//   untouched (sentinel bytes), codes 1-3 for bad lengths, nothing read at or past n (poison never
//   changes a key).
// Input: any byte string (total decode) or a case file; kernel forced to Amax8; bounded to
// B <= 8, L <= 8192, K <= 2048 so one execution stays in milliseconds on the CPU (simt) backend.
#include "fuzz/fuzz_driver.hpp"

namespace dsv4::fuzz {

const Target& target() {
  static const Target t = [] {
    Target x{"fuzz_block_amax", harness::KernelId::Amax8, {}};
    x.limits.total.max_batch = 8;
    x.limits.total.max_width = 8192;
    x.limits.total.max_k = 2048;
    x.limits.max_cells = 32768;
    return x;
  }();
  return t;
}

}  // namespace dsv4::fuzz
