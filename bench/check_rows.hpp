// check_rows.hpp -- the benchmarks' correctness check: one launch per config against a simple CPU
// reference (topk_v2.md §3.3 / topk_bf16_small.md §7 for injective page tables): trivial rows slot
// by slot; other rows: v = min(k, n_v) valid slots then -1, distinct in-range non-NaN positions,
// and the selected values equal the top-v value multiset of the row (ties at the v-th value free).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dsv4_bench {

struct RowCheck {
  bool ok = true;
  std::string message;  // the first failure: row, slot, what was wrong
};

// Scores are host copies with row stride `stride`; `out` is [B, k] contiguous. `table` (row-major
// [B, W], a permutation of 0..B*W-1) is NULL in INDICES mode; otherwise outputs are page slots.
RowCheck check_topk_rows_f32(const float* scores, int64_t stride, const std::vector<int32_t>& lens,
                             const int32_t* out, int64_t B, int32_t k, const std::vector<int32_t>* table,
                             int64_t W, int64_t page_size);
RowCheck check_topk_rows_bf16(const uint16_t* scores, int64_t stride, const std::vector<int32_t>& lens,
                              const int32_t* out, int64_t B, int32_t k, const std::vector<int32_t>* table,
                              int64_t W, int64_t page_size);

// bf16 bits <-> float (round to nearest even; NaN stays NaN).
float bf16_to_float(uint16_t h);
uint16_t float_to_bf16(float f);

}  // namespace dsv4_bench
