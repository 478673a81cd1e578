// fuzz/fuzz_pipeline.cpp -- libFuzzer target for the two-level chain amax8 -> Top-K v2 blocks -> sort_candidate_blocks -> gather -> bf16 top-k (spec README §2).
//
// Invariant checked (every input, zero tolerance): each stage is exact against its own oracle on
//   the ACTUAL output of the stage before it; where the composition contracts hold, the block
//   selection has min(K2, nblk) distinct ids including the newest block, which the sorted table
//   places last, and every final slot maps back to a real position < len of a selected block.
// Input: any byte string (total decode) or a case file; kernel forced to Pipeline; bounded to
// B <= 2, L <= 4096, K <= 512 so one execution stays in milliseconds on the CPU (simt) backend.
#include "fuzz/fuzz_driver.hpp"

namespace dsv4::fuzz {

const Target& target() {
  static const Target t = [] {
    Target x{"fuzz_pipeline", harness::KernelId::Pipeline, {}};
    x.limits.total.max_batch = 2;
    x.limits.total.max_width = 4096;
    x.limits.total.max_k = 512;
    x.limits.max_cells = 8192;
    return x;
  }();
  return t;
}

}  // namespace dsv4::fuzz
