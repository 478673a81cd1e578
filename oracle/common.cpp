// oracle/common.cpp -- CheckResult bookkeeping, value helpers, the 64-bit checked output transform.
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "oracle/detail.hpp"
#include "oracle/oracle.hpp"

namespace dsv4::oracle {

namespace {
constexpr size_t kMaxRecorded = 16;
}

void CheckResult::add(Mismatch m) {
  ok = false;
  ++mismatch_count;
  if (m.row >= 0 && (bad_rows.empty() || bad_rows.back() != m.row)) {
    // rows are checked in order, so a new failing row is always >= the last one recorded
    bool seen = false;
    for (auto it = bad_rows.rbegin(); it != bad_rows.rend() && *it >= m.row; ++it)
      if (*it == m.row) { seen = true; break; }
    if (!seen) bad_rows.push_back(m.row);
  }
  if (first.size() < kMaxRecorded) first.push_back(std::move(m));
}

float bf16_bits_to_float(uint16_t bits) {
  return detail::f32_from_bits(static_cast<uint32_t>(bits) << 16);
}

bool is_nan_f32(float x) {
  const uint32_t u = detail::f32_bits(x);
  return (u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0;
}

int64_t Transform::apply(int64_t i) const {
  constexpr int64_t kFail = std::numeric_limits<int32_t>::min();
  if (kind == Identity) return i + offset;
  if (page_bits < 0 || page_bits > 30)
    detail::bad_input("Transform::apply", "page_bits = " + std::to_string(page_bits) + " outside [0, 30]");
  if (table_width > 0 && table == nullptr)
    detail::bad_input("Transform::apply", "page table is null but table_width > 0");
  if (i < 0) return kFail;
  const int64_t column = i >> page_bits;
  if (column >= table_width) return kFail;
  const int64_t t = table[column];
  if (t < 0 || t > (std::numeric_limits<int32_t>::max() >> page_bits)) return kFail;
  const int64_t mask = (int64_t{1} << page_bits) - 1;
  return (t << page_bits) | (i & mask);
}

namespace detail {

std::string fmt_value(float x) {
  char num[64];
  if (is_nan_f32(x)) {
    std::snprintf(num, sizeof num, "nan");
  } else if (std::isinf(x)) {
    std::snprintf(num, sizeof num, x > 0 ? "+inf" : "-inf");
  } else {
    std::snprintf(num, sizeof num, "%.9g", static_cast<double>(x));
    const std::string s(num);
    if (s.find_first_of(".en") == std::string::npos) std::snprintf(num, sizeof num, "%s.0", s.c_str());
  }
  char out[96];
  std::snprintf(out, sizeof out, "%s (0x%08x)", num, f32_bits(x));
  return out;
}

std::string fmt_bf16(uint16_t bits) {
  std::string s = fmt_value(bf16_bits_to_float(bits));
  const auto paren = s.find(" (");
  char hex[32];
  std::snprintf(hex, sizeof hex, " (bf16 0x%04x)", bits);
  return s.substr(0, paren) + hex;
}

std::string fmt_i32(int64_t v) {
  if (v == std::numeric_limits<int32_t>::min()) return "INT32_MIN";
  if (v == std::numeric_limits<int32_t>::max()) return "INT32_MAX";
  return std::to_string(v);
}

void bad_input(const std::string& entry, const std::string& what) {
  throw std::invalid_argument("dsv4::oracle::" + entry + ": " + what);
}

}  // namespace detail
}  // namespace dsv4::oracle
