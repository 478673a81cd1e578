// tests/gpu/paged_case.hpp -- one Top-K v2 paged batch on the GPU (PAGE_TABLE mode) with its
// host check: scores [B, L] (N(0,1), +inf poison past each row's length), an injective per-row
// permuted page table (page size 64), metadata [B+1, 2] pre-filled, guarded output view
// [B, K] with row stride K + kGuard (guard columns pre-filled with kPrefill).
#pragma once

#include <string>
#include <vector>

#include "gpu_test_util.hpp"

namespace dsv4::gpu_test {

struct PagedCase {
  static constexpr int kGuard = 16;
  static constexpr int kPageSize = 64, kPageBits = 6;
  static constexpr int32_t kMetaPrefill = -777;
  int B = 0, L = 0, K = 0, S = 0, W = 0;
  std::vector<float> scores;   // [B, S]
  std::vector<int32_t> table;  // [B, W]
  std::vector<int32_t> lens;   // [B] (what the transform will see)
  DevBuf<float> d_scores;
  DevBuf<int32_t> d_table, d_lens, d_meta, d_out;

  // Allocates and uploads scores (fixed) and a first table; `seed` varies the data.
  ::testing::AssertionResult init(int B, int L, int K, uint32_t seed, cudaStream_t s);
  // New per-row page permutations (still injective over the whole table).
  void shuffle_table(uint32_t seed);
  // Uploads lens + table, pre-fills outputs (and guard columns) and the metadata.
  ::testing::AssertionResult upload_inputs(cudaStream_t s);
  // Tensors for the ABI.
  dsv4_tensor t_scores() { return t2d(d_scores.ptr, DSV4_FLOAT32, B, L, S); }
  dsv4_tensor t_lens() { return t1d(d_lens.ptr, DSV4_INT32, B); }
  dsv4_tensor t_table() { return t2d(d_table.ptr, DSV4_INT32, B, W, W); }
  dsv4_tensor t_meta() { return t2d(d_meta.ptr, DSV4_INT32, B + 1, 2, 2); }
  dsv4_tensor t_out() { return t2d(d_out.ptr, DSV4_INT32, B, K, K + kGuard); }
  // Plan (static_threshold) then transform, unchecked unless validate; returns "" or the error.
  std::string run(int static_threshold, cudaStream_t s, int validate = 0, bool plan = true);
  // Host check of every row against `lens` (and the guard columns); "" when all pass.
  std::string verify(cudaStream_t s) const;
  // Downloads the metadata.
  std::vector<int32_t> metadata(cudaStream_t s) const;
};

}  // namespace dsv4::gpu_test
