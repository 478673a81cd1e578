// oracle/fp16_reference.hpp -- an INDEPENDENT reference of the Top-K v2 coarse key
// (topk_v2.md §4.1, §4.2, §4.5), written with integer arithmetic only: no CUDA headers, no F16C,
// no floating-point rounding. The kernels' own coarse_bin_lower_bound is compared against
// coarse_bin_lower_bound_reference for every bin at both widths.
#pragma once

#include <cstdint>

namespace dsv4::oracle {

// fp32 -> fp16 bit pattern, round to nearest, ties to even (cvt.rn.f16.f32). |x| >= 65520 gives
// +-inf, |x| <= 2^-25 gives +-0, fp32 subnormals give +-0. Every NaN gives 0x7FFF (what the H200
// and CUDA 13.0's host __float2half_rn produce).
uint16_t fp16_rne_reference(float x);

// Sign-ordered 16-bit key: (h & 0x8000) ? ~h : h | 0x8000 (16 bits).
uint16_t fp16_ordered_key_reference(uint16_t h);

// bin_w(x) = key16(fp16_rne(x)) >> (16 - w); NaN -> 2^w - 1 by the explicit rule. w in [1, 16].
uint32_t bin_w_reference(float x, int w);

// key32 = (u & 0x80000000) ? ~u : u | 0x80000000 over the fp32 bits u (strictly increasing over
// non-NaN values, +0 above -0).
uint32_t key32_reference(float x);

// LB_w(b): the smallest non-NaN fp32 x in the total order (-inf < ... < -0 < +0 < ... < +inf)
// with bin_w(x) >= b, found by a search over the monotone bin function (not by the midpoint
// formula); -inf for b = 0 and the bins up to the -inf bin; +inf (sentinel "no such value") for
// bins above the +inf bin. b in [0, 2^w); w in [1, 16].
float coarse_bin_lower_bound_reference(uint32_t b, int w);

}  // namespace dsv4::oracle
