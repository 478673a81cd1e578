// simt/prmt_reference.h -- prmt.b32's default mode, byte by byte: SIMT_PRMT's meaning on the GPU
// and its implementation on the host (simt/portable.h), and the host's __byte_perm (the same with
// every selector's sign-mode bit cleared: simt/host/intrinsics.hpp).
#pragma once
#include <cstdint>

namespace simt {
// SIMT_PRMT's definition, byte by byte (the host's implementation, and the GPU's meaning).
inline unsigned prmt_reference(unsigned x, unsigned y, unsigned s) {
  const uint64_t v = (static_cast<uint64_t>(y) << 32) | x;
  unsigned r = 0;
  for (int n = 0; n < 4; ++n) {
    const unsigned sel = (s >> (4 * n)) & 0xFu;
    unsigned byte = static_cast<unsigned>(v >> (8 * (sel & 7u))) & 0xFFu;
    if (sel & 8u) byte = (byte & 0x80u) ? 0xFFu : 0u;
    r |= byte << (8 * n);
  }
  return r;
}
}  // namespace simt
