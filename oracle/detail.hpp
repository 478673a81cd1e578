// oracle/detail.hpp -- helpers shared by the oracle's .cpp files (not part of the public API).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace dsv4::oracle::detail {

inline uint32_t f32_bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
inline float f32_from_bits(uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// Order key of the verdict: key32 after canonicalizing -0 to +0, so that +-0 compare EQUAL and
// every other pair of non-NaN values compares as in IEEE order. Never called on NaN.
inline uint32_t order_key(float x) {
  uint32_t u = f32_bits(x);
  if (u == 0x80000000u) u = 0;
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
inline float value_of_order_key(uint32_t key) {
  return f32_from_bits((key & 0x80000000u) ? (key & 0x7FFFFFFFu) : ~key);
}

// "1.5 (0x3fc00000)", "-0.0 (0x80000000)", "nan (0x7fc00000)".
std::string fmt_value(float x);
// "-0.0 (bf16 0x8000)".
std::string fmt_bf16(uint16_t bits);
// int32 outputs: "-1", "INT32_MIN", "INT32_MAX", or the number.
std::string fmt_i32(int64_t v);

[[noreturn]] void bad_input(const std::string& entry, const std::string& what);

}  // namespace dsv4::oracle::detail
