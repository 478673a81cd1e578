// check_rows.cpp -- see check_rows.hpp.
#include "check_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

namespace dsv4_bench {

float bf16_to_float(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t float_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

namespace {

using RowFn = std::function<void(int64_t b, int32_t n, std::vector<float>& row)>;

RowCheck fail(int64_t b, int64_t t, const std::string& what) {
  return RowCheck{false, "row " + std::to_string(b) + " slot " + std::to_string(t) + ": " + what};
}

RowCheck check_rows(const RowFn& get_row, const std::vector<int32_t>& lens, const int32_t* out, int64_t B,
                    int32_t k, const std::vector<int32_t>* table, int64_t W, int64_t page_size) {
  // Inverse of the permutation table: page -> (row, column).
  std::vector<int64_t> inv;
  if (table) {
    inv.assign(table->size(), -1);
    for (size_t i = 0; i < table->size(); ++i) inv[(*table)[i]] = static_cast<int64_t>(i);
  }
  std::vector<float> row, present;
  std::vector<uint8_t> seen;
  for (int64_t b = 0; b < B; ++b) {
    const int32_t n = lens[b];
    const int32_t* o = out + b * k;
    if (n <= k) {  // trivial row: exact slots
      for (int64_t t = 0; t < k; ++t) {
        const int64_t want = t < n ? (table ? int64_t{(*table)[b * W + t / page_size]} * page_size + t % page_size : t) : -1;
        if (o[t] != want) return fail(b, t, "trivial row: got " + std::to_string(o[t]) + ", want " + std::to_string(want));
      }
      continue;
    }
    get_row(b, n, row);
    present.clear();
    for (float x : row) if (!std::isnan(x)) present.push_back(x);
    const int64_t v = std::min<int64_t>(k, static_cast<int64_t>(present.size()));
    float w = -INFINITY;
    int64_t above = 0;
    if (v > 0) {
      std::nth_element(present.begin(), present.begin() + (v - 1), present.end(), std::greater<float>());
      w = present[v - 1];
      for (float x : present) above += x > w;
    }
    seen.assign(static_cast<size_t>(n), 0);
    int64_t sel_above = 0;
    for (int64_t t = 0; t < k; ++t) {
      if (t >= v) {
        if (o[t] != -1) return fail(b, t, "expected -1 after " + std::to_string(v) + " valid slots, got " + std::to_string(o[t]));
        continue;
      }
      int64_t pos = o[t];
      if (pos < 0) return fail(b, t, "expected a valid slot, got " + std::to_string(pos));
      if (table) {
        const int64_t page = pos / page_size, off = pos % page_size;
        if (page >= static_cast<int64_t>(inv.size())) return fail(b, t, "slot " + std::to_string(pos) + " maps to no page");
        const int64_t cell = inv[page];
        if (cell / W != b) return fail(b, t, "slot " + std::to_string(pos) + " belongs to row " + std::to_string(cell / W));
        pos = (cell % W) * page_size + off;
      }
      if (pos >= n) return fail(b, t, "position " + std::to_string(pos) + " >= seq_len " + std::to_string(n));
      if (seen[pos]) return fail(b, t, "position " + std::to_string(pos) + " selected twice");
      seen[pos] = 1;
      const float x = row[pos];
      if (std::isnan(x)) return fail(b, t, "position " + std::to_string(pos) + " holds NaN");
      if (x < w) return fail(b, t, "position " + std::to_string(pos) + " value " + std::to_string(x) +
                                   " is below the k-th value " + std::to_string(w));
      sel_above += x > w;
    }
    if (sel_above != above)
      return fail(b, 0, std::to_string(above - sel_above) + " values above the k-th value " + std::to_string(w) + " are missing");
  }
  return RowCheck{};
}

}  // namespace

RowCheck check_topk_rows_f32(const float* scores, int64_t stride, const std::vector<int32_t>& lens,
                             const int32_t* out, int64_t B, int32_t k, const std::vector<int32_t>* table,
                             int64_t W, int64_t page_size) {
  return check_rows([&](int64_t b, int32_t n, std::vector<float>& row) {
    row.assign(scores + b * stride, scores + b * stride + n);
  }, lens, out, B, k, table, W, page_size);
}

RowCheck check_topk_rows_bf16(const uint16_t* scores, int64_t stride, const std::vector<int32_t>& lens,
                              const int32_t* out, int64_t B, int32_t k, const std::vector<int32_t>* table,
                              int64_t W, int64_t page_size) {
  return check_rows([&](int64_t b, int32_t n, std::vector<float>& row) {
    row.resize(static_cast<size_t>(n));
    for (int32_t i = 0; i < n; ++i) row[i] = bf16_to_float(scores[b * stride + i]);
  }, lens, out, B, k, table, W, page_size);
}

}  // namespace dsv4_bench
