// kernels/common/half_pair_keys.cuh -- word arithmetic on two 16-bit floating-point codes held in
// one 32-bit word (fp16 and bf16 alike: sign bit 15, magnitude bits 14..0; nothing carries across
// the halves). Shared by the Top-K v2 coarse keys (fp16, topk_v2_keys.cuh) and the bf16 small-row
// top-k keys (topk_bf16_small_keys.cuh).
#pragma once
#include <cstdint>

#include "simt/portable.h"

namespace dsv4::ours {

// Bit 15 of each half, moved to bit 0 of that half (0x00010001 where both are set).
SIMT_HD uint32_t top_bits_halves(uint32_t w) { return (w >> 15) & 0x00010001u; }

// The sign-ordered key of each half, given its sign bits (top_bits_halves(w)): XOR 0xFFFF for a
// negative code, 0x8000 for a positive one, so that unsigned key order is the value order (-0 just
// below +0).
SIMT_HD uint32_t sign_order_halves(uint32_t w, uint32_t neg) { return w ^ 0x80008000u ^ (neg * 0x7FFFu); }
SIMT_HD uint32_t sign_order_halves(uint32_t w) { return sign_order_halves(w, top_bits_halves(w)); }

// Bit 15 of each half set iff that half is a NaN code of a format whose largest non-NaN
// magnitude (the infinity) is 0x7FFF - kMantMask: the magnitude plus kMantMask carries into bit 15
// exactly above it (fp16: kMantMask 0x3FF, infinity 0x7C00; bf16: 0x7F, 0x7F80).
template <uint32_t kMantMask>
SIMT_HD uint32_t nan_halves_carry(uint32_t w) {
  return (w & 0x7FFF7FFFu) + kMantMask * 0x00010001u;
}

}  // namespace dsv4::ours
