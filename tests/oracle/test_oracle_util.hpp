// tests/oracle/test_oracle_util.hpp -- small helpers for the oracle tests: readable verdict dumps
// and accept / reject assertions that print the mismatch report.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "oracle/oracle.hpp"

namespace oracle_test {

using namespace dsv4::oracle;
constexpr int32_t kIntMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kIntMax = std::numeric_limits<int32_t>::max();
constexpr int32_t kUnwritten = -12345;
const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

inline float from_bits(uint32_t u) { float x; std::memcpy(&x, &u, 4); return x; }
inline uint32_t bits(float x) { uint32_t u; std::memcpy(&u, &x, 4); return u; }

inline std::string describe(const CheckResult& r) {
  std::string s = "ok=" + std::to_string(r.ok) + " mismatches=" + std::to_string(r.mismatch_count) + "\n";
  for (const auto& m : r.first)
    s += "  row " + std::to_string(m.row) + " slot " + std::to_string(m.slot) + ": " + m.what + ": got " + m.got +
         "; want " + m.want + "\n";
  return s;
}

#define EXPECT_ACCEPTED(res) EXPECT_TRUE((res).ok) << oracle_test::describe(res)

// Rejected, and some mismatch's `what` contains `needle`; the report is printed (it is a bug report).
inline void expect_rejected(const CheckResult& r, const std::string& needle, const char* label) {
  EXPECT_FALSE(r.ok) << label;
  EXPECT_GT(r.mismatch_count, 0) << label;
  EXPECT_FALSE(r.bad_rows.empty()) << label;
  bool found = false;
  for (const auto& m : r.first) {
    found |= m.what.find(needle) != std::string::npos;
    EXPECT_FALSE(m.got.empty()) << label;
    EXPECT_FALSE(m.want.empty()) << label;
  }
  EXPECT_TRUE(found) << label << ": no mismatch mentions '" << needle << "'\n" << describe(r);
  std::cout << "[rejected as expected] " << label << "\n" << describe(r);
}

// One-row Top-K check in INDICES mode (Identity transform, offset 0 unless given).
inline CheckResult check_indices(const std::vector<float>& x, int64_t k, const std::vector<int32_t>& got,
                                 int64_t offset = 0, uint32_t* codes = nullptr) {
  TopkCheckArgs a;
  a.k = k;
  TopkRow r;
  r.n = static_cast<int64_t>(x.size());
  r.values_f32 = x.data();
  r.transform.offset = offset;
  r.got = got.data();
  a.rows.push_back(r);
  return check_topk(a, codes);
}

inline std::vector<int32_t> iota_from(int32_t first, int32_t count) {
  std::vector<int32_t> v(static_cast<size_t>(count));
  for (int32_t i = 0; i < count; ++i) v[i] = first + i;
  return v;
}
inline std::vector<int32_t> concat(std::vector<int32_t> a, const std::vector<int32_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace oracle_test
