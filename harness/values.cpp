// harness/values.cpp -- value recipes: distributions and injections of one row window.
// Integer-only: every value is built from PRNG integers and bit patterns (see fpbits.hpp).
#include <algorithm>
#include <climits>
#include <numeric>

#include "fpbits.hpp"
#include "materialize.hpp"
#include "rng.hpp"

namespace dsv4::harness {
namespace {

constexpr int64_t kCandCapacity = 131072;

bool is_bf16_kernel(const Case& c) { return c.kernel == KernelId::Bf16Small; }

// The fp32 value num * 2^pow2, exact for |num| < 2^24 (larger numerators are truncated toward
// zero, identically everywhere; callers stay below 2^24).
uint32_t scaled_int(int64_t num, int pow2) {
  if (num == 0) return 0;
  uint32_t sign = num < 0 ? 0x80000000u : 0u;
  uint64_t mag = uint64_t(num < 0 ? -num : num);
  int exp = pow2;
  while (mag >= (uint64_t(1) << 24)) {  // round to nearest even when dropping bits
    mag >>= 1;
    ++exp;
  }
  while (mag < (uint64_t(1) << 23)) { mag <<= 1; --exp; }
  return sign | (uint32_t(exp + 23 + 127) << 23) | uint32_t(mag & 0x7FFFFFu);
}

uint32_t draw_randn(Rng& r, uint32_t scale_log2) {
  // Irwin-Hall of 4 uniform 21-bit integers: mean 0, sd = 2^21 * sqrt(4/12) ~ 0.577 * 2^21.
  int64_t s = 0;
  for (int i = 0; i < 4; ++i) s += int64_t(r.next() >> 43);
  s -= int64_t(4) << 20;
  // Divide by 2^20 -> sd ~ 1.15 (a randn-like bell); exact (s fits 24 bits).
  return scaled_int(s, -20 + int(scale_log2 & 15));
}

uint32_t draw_in_bin(Rng& r, int bin, int w) {
  const int lo_bin = fp::bin_w(fp::kNegInf, w), hi_bin = fp::bin_w(fp::kPosInf, w);
  bin = std::clamp(bin, lo_bin, hi_bin);
  const uint32_t lo = fp::key32(fp::lower_bound_bits(bin, w));
  const uint32_t hi = bin == hi_bin ? fp::kKeyMax : fp::key32(fp::lower_bound_bits(bin + 1, w)) - 1;
  return fp::from_key32(lo + uint32_t(r.below(uint64_t(hi - lo) + 1)));
}

int64_t resolve_pos(int32_t pos, int64_t m) { return pos >= 0 ? pos : m + pos; }

// Positions ordered by value, largest first; NaN positions excluded.
std::vector<int64_t> order_desc(const std::vector<uint32_t>& v) {
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < int64_t(v.size()); ++i)
    if (!fp::is_nan(v[i])) idx.push_back(i);
  std::stable_sort(idx.begin(), idx.end(),
                   [&](int64_t a, int64_t b) { return fp::key32(v[a]) > fp::key32(v[b]); });
  return idx;
}

// The `want` largest values of v[0, m) (fewer if v has fewer non-NaN values) moved to one end of
// the window, ordered towards it (first: descending at the start; else ascending at the end, the
// largest last); the other values keep their order.
void move_largest(std::vector<uint32_t>& v, int64_t m, int64_t want, bool first) {
  const auto ord = order_desc(v);
  const int64_t top = std::min<int64_t>(want, int64_t(ord.size()));
  std::vector<char> is_top(size_t(m), 0);
  for (int64_t i = 0; i < top; ++i) is_top[size_t(ord[size_t(i)])] = 1;
  std::vector<uint32_t> out;
  out.reserve(size_t(m));
  if (first)
    for (int64_t i = 0; i < top; ++i) out.push_back(v[ord[size_t(i)]]);
  for (int64_t i = 0; i < m; ++i) if (!is_top[size_t(i)]) out.push_back(v[i]);
  if (!first)
    for (int64_t i = top - 1; i >= 0; --i) out.push_back(v[ord[size_t(i)]]);
  v.swap(out);
}

void fill_dist(const Case& c, const RowRecipe& rr, int64_t m, Rng& r, std::vector<uint32_t>& v,
               int64_t row) {
  const int64_t k = c.shape.k > 0 ? c.shape.k : 1;
  const int64_t n_tokens = seq_len_of(c, row);
  const int64_t nb = n_tokens > 0 ? (n_tokens + 7) / 8 : 0;
  switch (rr.dist) {
    case Dist::Randn: for (auto& x : v) x = draw_randn(r, rr.param); break;
    case Dist::Uniform: for (auto& x : v) x = scaled_int(int64_t(r.next() >> 40), -24); break;
    case Dist::Distinct12: for (auto& x : v) x = 0x3F800000u + uint32_t(r.below(8388)); break;
    case Dist::Distinct10: for (auto& x : v) x = 0x3F800000u + uint32_t(r.below(419430)); break;
    case Dist::Tiny: for (auto& x : v) x = (uint32_t(27 + r.below(2)) << 23) | (r.u32() & 0x7FFFFFu); break;
    case Dist::Ties: for (auto& x : v) x = 0x3F800000u + uint32_t(r.below(2)); break;
    case Dist::Huge:
      for (auto& x : v) x = r.chance(1, 4) ? fp::kPosInf : 0x477FF000u + uint32_t(r.below(0x7F7FFFFFu - 0x477FF000u + 1));
      break;
    case Dist::NegInf: {
      std::fill(v.begin(), v.end(), fp::kNegInf);
      int64_t finite = rr.param ? int64_t(rr.param) : k / 2;
      finite = std::min<int64_t>(finite, m);
      for (int64_t i = 0; i < finite; ++i) v[r.below(uint64_t(m))] = draw_randn(r, 0);
      break;
    }
    case Dist::SignedZeros:
      for (auto& x : v) {
        const uint64_t t = r.below(10);
        x = t < 7 ? 0x80000000u : t == 7 ? 0u : t == 8 ? scaled_int(1 + int64_t(r.below(4)), 0)
                                                        : scaled_int(-1 - int64_t(r.below(4)), 0);
      }
      break;
    case Dist::Midpoints: {
      const int w = rr.param == 10 ? 10 : 12;
      const int lo_bin = fp::bin_w(0xC77FE000u, w) + 1;  // first fast-range negative bin
      const int hi_bin = (1 << (w - 1)) - 1;             // the -0 bin
      for (auto& x : v) {
        const int bin = lo_bin + int(r.below(uint64_t(hi_bin - lo_bin)));
        const uint16_t key = uint16_t(bin << (16 - w));
        x = fp::fp16_midpoint(fp::f16_from_key16(uint16_t(key - 1)), fp::f16_from_key16(key));
      }
      break;
    }
    case Dist::SmallInts: for (auto& x : v) x = scaled_int(int64_t(r.below(8)) - 4, 0); break;
    case Dist::Constant: std::fill(v.begin(), v.end(), rr.param); break;
    case Dist::Bf16Bits:
      for (auto& x : v) {
        uint16_t h;
        do { h = uint16_t(r.u32() >> 16); } while (fp::is_nan16(h));
        x = uint32_t(h) << 16;
      }
      break;
    case Dist::AllNaN: std::fill(v.begin(), v.end(), fp::kQNaN); break;
    case Dist::CandUniform: case Dist::CandMinusOne: {
      // distinct ids by a partial Fisher-Yates over [0, nb) (duplicates only when nb < m)
      const int64_t valid = rr.dist == Dist::CandMinusOne ? std::min<int64_t>(m, rr.param ? rr.param : m / 2) : m;
      std::fill(v.begin(), v.end(), uint32_t(-1));
      if (nb >= valid && nb <= 4 * kCandCapacity) {
        std::vector<int32_t> pool{}; pool.resize(size_t(nb));
        std::iota(pool.begin(), pool.end(), 0);
        for (int64_t i = 0; i < valid; ++i) {
          std::swap(pool[size_t(i)], pool[size_t(i + int64_t(r.below(uint64_t(nb - i))))]);
          v[i] = uint32_t(pool[size_t(i)]);
        }
      } else {
        for (int64_t i = 0; i < valid; ++i) v[i] = uint32_t(r.below(uint64_t(std::max<int64_t>(nb, 1))));
      }
      if (rr.dist == Dist::CandMinusOne)  // scatter the -1s
        for (int64_t i = m - 1; i > 0; --i) std::swap(v[i], v[r.below(uint64_t(i + 1))]);
      break;
    }
    case Dist::CandClustered: {
      int64_t i = 0;
      while (i < m) {
        if (r.chance(3, 4)) {
          const int64_t start = int64_t(r.below(uint64_t(std::max<int64_t>(nb - 64, 1))));
          for (int64_t j = 0; j < 64 && i < m; ++j) v[i++] = uint32_t(start + j);
        } else {
          v[i++] = uint32_t(r.below(uint64_t(std::max<int64_t>(nb, 1))));
        }
      }
      break;
    }
    case Dist::CandNewest:
      for (int64_t i = 0; i < m; ++i) v[i] = uint32_t(std::max<int64_t>(nb - m, 0) + i);
      for (int64_t i = m - 1; i > 0; --i) std::swap(v[i], v[r.below(uint64_t(i + 1))]);
      break;
    case Dist::CandQueueOnly: {
      const int64_t span = std::min<int64_t>(m, 2048);
      int64_t start = int64_t(r.below(uint64_t(std::max<int64_t>(nb - span, 1)))) & ~int64_t(31);
      for (int64_t i = 0; i < m; ++i) v[i] = i < span ? uint32_t(start + i) : uint32_t(-1);
      break;
    }
    case Dist::CandDuplicates: {
      // More distinct ids than the row holds would change nothing but the work: capped at m (a
      // fuzzed param of 6.5e8 once allocated 2.6 GB here and took 34 s a case).
      const int64_t distinct = std::clamp<int64_t>(rr.param ? rr.param : m / 2, 1, m);
      std::vector<uint32_t> base{}; base.resize(size_t(distinct));
      for (auto& x : base) x = uint32_t(r.below(uint64_t(std::max<int64_t>(nb, 1))));
      for (int64_t i = 0; i < m; ++i) v[i] = base[size_t(r.below(uint64_t(distinct)))];
      break;
    }
    case Dist::CandOutOfRange: {
      const uint32_t bad[] = {uint32_t(nb), uint32_t(kCandCapacity - 1), uint32_t(kCandCapacity),
                              uint32_t(INT32_MAX), uint32_t(-2), uint32_t(INT32_MIN), uint32_t(nb - 1)};
      for (int64_t i = 0; i < m; ++i)
        v[i] = r.chance(1, 8) ? bad[r.below(7)] : uint32_t(r.below(uint64_t(std::max<int64_t>(nb, 1))));
      break;
    }
  }
}

void apply_injection(const Case& c, const Injection& in, int64_t m, Rng& r, std::vector<uint32_t>& v) {
  if (m <= 0) return;
  const int64_t k = c.shape.k > 0 ? c.shape.k : 1;
  const int64_t count = std::clamp<int64_t>(in.count, 0, m);
  const int64_t p0 = resolve_pos(in.pos, m);
  const int w = in.arg == 10 ? 10 : 12;
  auto put = [&](int64_t cnt, auto&& value_of) {
    for (int64_t i = 0; i < cnt; ++i) {
      const int64_t p = p0 + i;
      if (p >= 0 && p < m) v[p] = value_of(i);
    }
  };
  switch (in.kind) {
    case InjKind::Bits: {
      const uint32_t bits = is_bf16_kernel(c) ? (in.bits & 0xFFFFu) << 16 : in.bits;
      put(count, [&](int64_t) { return bits; });
      break;
    }
    case InjKind::NaNSprinkle: {
      uint32_t nan = fp::is_nan(in.bits) && in.bits != fp::kReservedNaN ? in.bits : fp::kQNaN;
      if (is_bf16_kernel(c)) nan = (nan & 0xFFFF0000u) | 0x00400000u;  // survives bf16 rounding
      std::vector<int64_t> pos{}; pos.resize(size_t(m));
      std::iota(pos.begin(), pos.end(), 0);
      for (int64_t i = 0; i < count; ++i) {
        std::swap(pos[size_t(i)], pos[size_t(i + int64_t(r.below(uint64_t(m - i))))]);
        v[pos[size_t(i)]] = nan;
      }
      break;
    }
    case InjKind::KthTie: {
      const auto ord = order_desc(v);
      if (ord.empty()) break;
      const int64_t kth = std::min<int64_t>(k, int64_t(ord.size())) - 1;
      const uint32_t wv = v[ord[size_t(kth)]];
      const int64_t first = std::max<int64_t>(0, kth - count / 2);
      for (int64_t i = first; i < first + count && i < int64_t(ord.size()); ++i) v[ord[size_t(i)]] = wv;
      break;
    }
    case InjKind::BinEdge: {
      const int bin = int(in.bits % (1u << w));
      const uint32_t x = fp::step_ulps(fp::lower_bound_bits(bin, w), std::clamp(in.delta, -2, 2));
      put(count, [&](int64_t) { return x; });
      break;
    }
    case InjKind::RneMidpoint: {
      const int bin = int(in.bits % (1u << w));
      const uint16_t key = uint16_t(std::clamp(bin << (16 - w), 0x0401, 0xFBFF));
      const uint16_t lo = fp::f16_from_key16(uint16_t(key - 1)), hi = fp::f16_from_key16(key);
      const uint32_t x = fp::fp16_midpoint(lo, hi);
      put(count, [&](int64_t) { return x; });
      break;
    }
    case InjKind::HalfwayFp16: {
      uint16_t code = uint16_t(in.bits & 0xFFFFu);
      if ((code & 0x7C00u) == 0x7C00u) code = 0x3C00u;  // not inf/NaN
      uint16_t next = uint16_t(code + 1);
      if ((next & 0x7C00u) == 0x7C00u) { next = code; code = uint16_t(code - 1); }
      const uint32_t x = fp::fp16_midpoint(code, next);
      put(count, [&](int64_t) { return x; });
      break;
    }
    case InjKind::WholeRowOneBin:
      for (auto& x : v) x = draw_in_bin(r, int(in.bits % (1u << w)), w);
      break;
    case InjKind::BinOverflow: {
      const int bin = std::clamp(int(in.bits % (1u << w)), fp::bin_w(fp::kNegInf, w) + 1,
                                 fp::bin_w(fp::kPosInf, w));
      const uint32_t lb = fp::key32(fp::lower_bound_bits(bin, w));
      for (auto& x : v)
        if (!fp::is_nan(x) && fp::key32(x) >= lb) x = draw_in_bin(r, bin - 1, w);
      put(count, [&](int64_t) { return draw_in_bin(r, bin, w); });
      break;
    }
    case InjKind::LargestLast:
      move_largest(v, m, count > 0 ? count : k, false);
      break;
    case InjKind::Shuffle:
      for (int64_t i = m - 1; i > 0; --i) std::swap(v[i], v[r.below(uint64_t(i + 1))]);
      break;
    case InjKind::LargestFirst:
      move_largest(v, m, count > 0 ? count : std::max<int64_t>(k / 2, 1), true);
      break;
  }
}

}  // namespace

std::vector<uint32_t> make_row_values(const Case& c, int64_t row, int64_t m, uint64_t seed) {
  std::vector<uint32_t> v(size_t(m > 0 ? m : 0), 0);
  if (m <= 0) return v;
  const RowRecipe& rr = recipe_of(c, row);
  Rng r(seed);
  fill_dist(c, rr, m, r, v, row);
  const bool bf16 = is_bf16_kernel(c);
  for (int64_t i = 0; i < int64_t(rr.literal.size()) && i < m; ++i)
    v[i] = bf16 ? (rr.literal[i] & 0xFFFFu) << 16 : rr.literal[i];
  for (const Injection& in : rr.injections) apply_injection(c, in, m, r, v);
  // Never emit the reserved pre-fill NaN as a score.
  if (c.kernel != KernelId::CandidateTable)
    for (auto& x : v) if (x == fp::kReservedNaN) x = fp::kQNaN;
  return v;
}

}  // namespace dsv4::harness
