// fuzz/fuzz_driver.hpp -- the libFuzzer entry points shared by every fuzz target (fuzz_driver.cpp).
//
// Each fuzz_<family>.cpp only says WHICH kernel it drives, its size bounds and the invariant it
// checks, by defining dsv4::fuzz::target(). The driver:
//   LLVMFuzzerInitialize   loads the implementation ONCE (env DSV4_IMPL / DSV4_BACKEND; default
//                          ours: simt on CPU, the CUDA plugin when a GPU exists) and its backend;
//   LLVMFuzzerTestOneInput bytes -> Case (fuzz_input.hpp; the schedule policy+seed of the CPU
//                          backend come from the input bytes, so libFuzzer mutates schedules) ->
//                          run_case -> on mismatch / guard breach / error: prints the report,
//                          writes the case file (DSV4_FAILURE_DIR, default fuzz-failures/) with
//                          its `dsv4-harness repro FILE` line, and abort()s so libFuzzer keeps
//                          the crash input; the Top-K v2 path of every row is fed back as extra
//                          coverage (kernel x path x verdict counters);
//   LLVMFuzzerCustomMutator structure-aware mutation of the Case (fuzz_input.hpp).
#pragma once

#include "fuzz/fuzz_input.hpp"
#include "harness/case.hpp"

namespace dsv4::fuzz {

struct Target {
  const char* name;           // "fuzz_topk_v2"
  harness::KernelId kernel;
  InputLimits limits;         // block_threads / bf16_len_max are overwritten from capabilities
};

const Target& target();  // defined by the fuzz_<family>.cpp of this binary

}  // namespace dsv4::fuzz
