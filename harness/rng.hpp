// harness/rng.hpp -- the harness's own deterministic PRNG (SplitMix64 seeding + xoshiro256**).
// No std:: distributions anywhere: every draw is integer arithmetic, so the same case gives the
// same bits on every machine and compiler.
#pragma once

#include <cstdint>

namespace dsv4::harness {

// SplitMix64 finalizer: a bijective 64-bit mix.
inline uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    uint64_t x = seed;
    for (auto& w : s_) { x += 0x9E3779B97F4A7C15ull; w = mix64(x); }
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  uint32_t u32() { return uint32_t(next() >> 32); }
  // Uniform in [0, n) for n >= 1 (multiply-shift; the tiny bias is irrelevant for testing and
  // is identical everywhere).
  uint64_t below(uint64_t n) {
    if (n <= 1) return 0;
    unsigned __int128 m = (unsigned __int128)next() * n;
    return uint64_t(m >> 64);
  }
  bool chance(uint32_t num, uint32_t den) { return below(den) < num; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace dsv4::harness
