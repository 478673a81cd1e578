// oracle/fp16_reference.cpp -- integer-only fp16 RNE, ordered keys, bins, brute-force bin bounds.
#include "oracle/fp16_reference.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace dsv4::oracle {
namespace {

uint32_t bits_of(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
float float_of(uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}
void check_width(int w, const char* entry) {
  if (w < 1 || w > 16)
    throw std::invalid_argument(std::string("dsv4::oracle::") + entry + ": w = " + std::to_string(w) +
                                " outside [1, 16]");
}

}  // namespace

uint16_t fp16_rne_reference(float x) {
  const uint32_t u = bits_of(x);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t exp = (u >> 23) & 0xFFu;
  const uint32_t frac = u & 0x7FFFFFu;
  if (exp == 0xFFu) return frac != 0 ? 0x7FFFu : static_cast<uint16_t>(sign | 0x7C00u);
  if (exp == 0) return static_cast<uint16_t>(sign);  // fp32 zero or subnormal (< 2^-126): rounds to 0
  const int32_t e = static_cast<int32_t>(exp) - 127;  // |x| = M * 2^(e - 23), M in [2^23, 2^24)
  if (e > 15) return static_cast<uint16_t>(sign | 0x7C00u);
  const uint32_t m = frac | 0x800000u;
  // fp16 quantum at this magnitude: 2^(e-10) for normals (e >= -14), 2^-24 for subnormals.
  const int32_t shift = (e >= -14) ? 13 : (-1 - e);  // bits of M below the quantum
  if (shift > 24) return static_cast<uint16_t>(sign);  // |x| < 2^-25: below half the smallest subnormal
  uint32_t q = m >> shift;
  const uint32_t rem = m & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  // Encoding: subnormals are q itself (q = 1024 is the smallest normal 0x0400); normals are
  // ((e + 15) << 10) + q - 1024, where a carry to q = 2048 steps into the next binade (0x7C00 = inf).
  const uint32_t mag = (e >= -14) ? ((static_cast<uint32_t>(e + 15) << 10) + q - 1024u) : q;
  return static_cast<uint16_t>(sign | (mag >= 0x7C00u ? 0x7C00u : mag));
}

uint16_t fp16_ordered_key_reference(uint16_t h) {
  return (h & 0x8000u) ? static_cast<uint16_t>(~h & 0xFFFFu) : static_cast<uint16_t>(h | 0x8000u);
}

uint32_t bin_w_reference(float x, int w) {
  check_width(w, "bin_w_reference");
  const uint32_t u = bits_of(x);
  if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x7FFFFFu) != 0) return (1u << w) - 1u;  // explicit NaN rule
  return static_cast<uint32_t>(fp16_ordered_key_reference(fp16_rne_reference(x))) >> (16 - w);
}

uint32_t key32_reference(float x) {
  const uint32_t u = bits_of(x);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

float coarse_bin_lower_bound_reference(uint32_t b, int w) {
  check_width(w, "coarse_bin_lower_bound_reference");
  if (b >= (1u << w))
    throw std::invalid_argument("dsv4::oracle::coarse_bin_lower_bound_reference: bin " + std::to_string(b) +
                                " outside [0, 2^" + std::to_string(w) + ")");
  // Non-NaN fp32 values are exactly the key32 range [key32(-inf), key32(+inf)], and bin_w is
  // monotone over it. Search for the smallest key whose bin reaches b.
  auto value_of_key = [](uint32_t k) { return float_of((k & 0x80000000u) ? (k & 0x7FFFFFFFu) : ~k); };
  const float neg_inf = float_of(0xFF800000u), pos_inf = float_of(0x7F800000u);
  uint32_t lo = key32_reference(neg_inf), hi = key32_reference(pos_inf);
  if (b == 0 || bin_w_reference(neg_inf, w) >= b) return neg_inf;
  if (bin_w_reference(pos_inf, w) < b) return pos_inf;  // sentinel: no non-NaN value reaches b
  // invariant: bin(value_of_key(lo)) < b <= bin(value_of_key(hi))
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (bin_w_reference(value_of_key(mid), w) >= b) hi = mid; else lo = mid;
  }
  return value_of_key(hi);
}

}  // namespace dsv4::oracle
