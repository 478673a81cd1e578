// harness/materialize.hpp -- the ONE deterministic materializer: Case -> host tensors with exact
// layouts and bits (same bits on every machine/compiler: harness PRNG, integer-only value code).
//
// Every score buffer is laid out as the kernel sees it: `offset` elements of prefix (base
// misalignment), then rows of `stride` elements; the allocation is TIGHT (it ends at the last
// row's column `cols - 1`). Every cell outside a row's legal read window (prefix, columns past
// seq_len, stride padding, cells before a ragged window) holds the case's poison.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "case.hpp"
#include "dsv4/indexer_abi.h"

namespace dsv4::harness {

// Host image of one tensor (the whole allocation, prefix included).
struct HostBuf {
  int32_t dtype = DSV4_INT32;
  int32_t ndim = 2;
  int64_t rows = 0;        // sizes[0]
  int64_t cols = 0;        // sizes[1] (ndim 2) / numel (ndim 1)
  int64_t stride = 0;      // row stride in elements (0 allowed: shared rows)
  int64_t offset = 0;      // data starts `offset` elements into `bytes`
  std::vector<uint8_t> bytes;
  bool present = false;    // false = optional tensor not passed (NULL)

  size_t elem_size() const { return dtype == DSV4_BFLOAT16 ? 2 : 4; }
  int64_t numel_alloc() const { return int64_t(bytes.size() / elem_size()); }
  // Element (r, c) relative to the data start.
  template <class T> T& at(int64_t r, int64_t c) {
    return reinterpret_cast<T*>(bytes.data())[offset + r * stride + c];
  }
  template <class T> const T& at(int64_t r, int64_t c) const {
    return reinterpret_cast<const T*>(bytes.data())[offset + r * stride + c];
  }
  // Pointer to element (r, c), or nullptr when the buffer holds no bytes (safe for empty views).
  template <class T> T* ptr(int64_t r, int64_t c) {
    return bytes.empty() ? nullptr : reinterpret_cast<T*>(bytes.data()) + (offset + r * stride + c);
  }
  template <class T> const T* ptr(int64_t r, int64_t c) const {
    return bytes.empty() ? nullptr : reinterpret_cast<const T*>(bytes.data()) + (offset + r * stride + c);
  }
  template <class T> T* data() { return reinterpret_cast<T*>(bytes.data()) + offset; }
  template <class T> const T* data() const { return reinterpret_cast<const T*>(bytes.data()) + offset; }
};

struct Materialized {
  HostBuf scores;        // fp32 [B, L] (Top-K v2, amax8, Pipeline logits) or bf16 [B, L]
  HostBuf seq_lens;      // int32 [B]
  HostBuf row_starts;    // int32 [B] (ragged, when has_row_starts)
  HostBuf out_offsets;   // int32 [B] (ragged)
  HostBuf page_table;    // int32 [B, W] (stride 0 for SharedStride0); present per mode / kernel
  HostBuf blocks_in;     // int32 [B, K] candidate-table input ids
  HostBuf source_bf16;   // Pipeline: per-position bf16 consumer source C [B, L]
  int64_t batch = 0;
  int64_t k = 0;          // outputs per row (Amax8: key width Kk)
  int64_t out_stride = 0; // row stride of output views (k + out_pad)
  int32_t page_bits = 0;  // log2(page_size) (-1 if not a power of two); candidates: log2(bpp)
  std::vector<int64_t> win_start, win_len;  // per row: the legal read window (clamped to [0, L))
};

// Size limits of a materializable case (a strict corpus decode enforces them too).
constexpr int64_t kMaxBatch = 1 << 16;
constexpr int64_t kMaxElements = int64_t(1) << 28;  // score cells in one buffer

// Throws std::invalid_argument with a readable reason when the case cannot be materialized
// (sizes beyond the limits above).
Materialized materialize(const Case& c);

// Fills one row window (m values) from a recipe: fp32 bits (bf16 kernels: fp32 bits whose bf16
// RNE rounding is the input), or int32 ids for the candidate table. Exposed for the pipeline's
// consumer source and for tests.
std::vector<uint32_t> make_row_values(const Case& c, int64_t row, int64_t m, uint64_t seed);

// 64-bit FNV-1a over every buffer and layout field (determinism tests, reports).
uint64_t hash_materialized(const Materialized& m);

}  // namespace dsv4::harness
