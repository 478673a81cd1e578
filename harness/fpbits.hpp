// harness/fpbits.hpp -- exact, integer-only float helpers used to build values (fp16 RNE key, coarse
// bins, the corrected bin lower bound, bf16 rounding). Written from topk_v2.md §4.1-§4.5; they
// build INPUTS only (the oracle has its own, independent code).
#pragma once

#include <cstdint>

namespace dsv4::harness::fp {

constexpr uint32_t kPosInf = 0x7F800000u;
constexpr uint32_t kNegInf = 0xFF800000u;
constexpr uint32_t kQNaN = 0x7FC00000u;
constexpr uint32_t kReservedNaN = 0x7FA5A5A5u;  // fp32 key pre-fill: generators never emit it
constexpr uint32_t kHuge1e30 = 0x7149F2CAu;     // 1e30f

inline bool is_nan(uint32_t u) { return (u & 0x7F800000u) == 0x7F800000u && (u & 0x7FFFFFu) != 0; }
inline bool is_nan16(uint16_t h) { return (h & 0x7F80u) == 0x7F80u && (h & 0x7Fu) != 0; }  // bf16
// Ordered key (§4.2): strictly increasing over non-NaN values, -0 below +0.
inline uint32_t key32(uint32_t u) { return (u & 0x80000000u) ? ~u : (u | 0x80000000u); }
inline uint32_t from_key32(uint32_t k) { return (k & 0x80000000u) ? (k & 0x7FFFFFFFu) : ~k; }
constexpr uint32_t kKeyMin = 0x007FFFFFu;  // key32(-inf)
constexpr uint32_t kKeyMax = 0xFF800000u;  // key32(+inf)

uint16_t f32_to_f16_rne(uint32_t u);  // NaN -> quiet NaN; overflow -> inf; tiny -> 0
uint32_t f16_to_f32(uint16_t h);      // exact widening
uint16_t f32_to_bf16_rne(uint32_t u); // NaN keeps its sign and the top payload bits (made quiet)
int bin_w(uint32_t u, int w);         // coarse bin; NaN -> 2^w - 1 (explicit rule)
uint32_t lower_bound_bits(int bin, int w);  // LB_w(bin) (corrected); +inf sentinel above +inf bin
uint32_t step_ulps(uint32_t u, int delta);  // move `delta` steps in the total order (clamped to ±inf)
uint32_t fp16_midpoint(uint16_t lo, uint16_t hi);  // exact fp32 midpoint of two finite fp16 values
uint16_t f16_from_key16(uint16_t key);

}  // namespace dsv4::harness::fp
