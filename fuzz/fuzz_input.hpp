// fuzz/fuzz_input.hpp -- the shared "bytes -> Case" step of every fuzz target, and the
// structure-aware mutator (LLVMFuzzerCustomMutator) that works on the Case.
//
// Input format: a byte string that starts with the codec magic and strictly decodes (a corpus file,
// or a mutator output) is that case; ANY other byte string goes through the codec's TOTAL decoder
// (harness/codec.hpp), so every input is a valid case. The target's kernel id is forced either
// way. Strictly decoded cases beyond the target's size bounds are rejected (not run), never
// silently clamped, so a crash file replays exactly with `dsv4-harness repro FILE`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "harness/case.hpp"
#include "harness/codec.hpp"

namespace dsv4::fuzz {

struct InputLimits {
  harness::TotalLimits total;  // bounds of the total decoder
  int32_t block_threads = 128; // Top-K v2 instantiation (dispatch thresholds for the mutator)
  int32_t bf16_len_max = 2048;
  int64_t max_cells = 1 << 16; // score cells of one case (B * S), keeps an exec in milliseconds
};

enum class InputKind { Total, Strict, Rejected };

// Decode `data` for a target of kernel `kernel`. `kind` says which decoder was used.
harness::Case bytes_to_case(const uint8_t* data, size_t size, int kernel, const InputLimits& lim,
                            InputKind* kind);

// True when a case is small enough to run inside a fuzz iteration.
bool within_limits(const harness::Case& c, const InputLimits& lim);

// One structural mutation of `c` (deterministic in `seed`): nudge a value across a bin edge,
// resize a tie group, move a seq_len across a dispatch threshold, change page_size / k / path /
// tie capacity / distribution / schedule seed, add an injection. Returns a short name of what
// was done (for tests and -print_final_stats style logs).
const char* mutate_case(harness::Case& c, uint64_t seed, const InputLimits& lim);

// The body of LLVMFuzzerCustomMutator: decode, mutate, encode into `data` when it fits, else
// fall back to `byte_mutate` (LLVMFuzzerMutate). Returns the new size.
using ByteMutator = size_t (*)(uint8_t* data, size_t size, size_t max_size);
size_t custom_mutate(uint8_t* data, size_t size, size_t max_size, unsigned seed, int kernel,
                     const InputLimits& lim, ByteMutator byte_mutate);

}  // namespace dsv4::fuzz
