// tests/kernels/indexer/indexer_test_util.hpp -- helpers shared by the indexer kernel tests:
// tensor views over host memory (the simt build's "device" memory), status-block access,
// deterministic random numbers and bf16 bit helpers.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "dsv4/indexer_abi.h"

namespace idxtest {

constexpr int32_t kGuardI32 = -12345;        // int32 pre-fill outside every producible set
constexpr uint32_t kKeySentinel = 0x7FA5A5A5u;  // fp32 NaN with a reserved payload (amax8 keys)

inline dsv4_tensor t1(const void* p, dsv4_dtype dt, int64_t n, int64_t stride = 1) {
  dsv4_tensor t{};
  t.data = const_cast<void*>(p);
  t.dtype = dt;
  t.ndim = 1;
  t.sizes[0] = n;
  t.strides[0] = stride;
  return t;
}
inline dsv4_tensor t2(const void* p, dsv4_dtype dt, int64_t rows, int64_t cols, int64_t stride) {
  dsv4_tensor t{};
  t.data = const_cast<void*>(p);
  t.dtype = dt;
  t.ndim = 2;
  t.sizes[0] = rows;
  t.sizes[1] = cols;
  t.strides[0] = stride;
  t.strides[1] = 1;
  return t;
}

// Reads and clears the library's status block.
inline dsv4_device_status take_status() {
  dsv4_device_status s{};
  dsv4_message m{};
  const dsv4_result r = dsv4_check_status(nullptr, &s, &m);
  EXPECT_EQ(r, DSV4_OK) << m.text;
  return s;
}
inline uint32_t bit(int code) { return 1u << code; }

struct Rng {  // SplitMix64: deterministic, platform independent
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int64_t uniform(int64_t lo, int64_t hi) {  // inclusive
    return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }
  float normal() {  // sum of uniforms: cheap, good enough for test values
    double acc = 0;
    for (int i = 0; i < 4; ++i) acc += static_cast<double>(next() >> 11) * 0x1.0p-53;
    return static_cast<float>((acc - 2.0) * 1.7320508);
  }
  template <typename T>
  void shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[static_cast<size_t>(next() % i)]);
  }
};

inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float f32_from(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
// fp32 -> bf16 bits, round to nearest even (NaN kept quiet).
inline uint16_t bf16(float f) {
  const uint32_t u = f32_bits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// A random permutation of [0, n) (page tables whose inversion is unique).
inline std::vector<int32_t> permutation(int64_t n, Rng& rng) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<int32_t>(i);
  rng.shuffle(v);
  return v;
}

}  // namespace idxtest
