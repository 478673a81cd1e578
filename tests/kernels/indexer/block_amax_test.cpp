// tests/kernels/indexer/block_amax_test.cpp -- amax8_varlen through the ABI on the simt build,
// checked by oracle::check_amax8 (spec block_amax.md §6; bug classes 3, 5, 10, 15, 22).
#include <cmath>
#include <limits>

#include "indexer_test_util.hpp"
#include "oracle/oracle.hpp"

using namespace idxtest;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

struct AmaxCase {
  int64_t B, L, stride, Kk, out_stride;
  int32_t topk = 0;
  float* scores = nullptr;  // 32-byte aligned, B * stride floats (+ optional tail)
  std::vector<int32_t> lens;
  std::vector<float> out;
  std::vector<uint32_t> sentinel;
  std::vector<uint8_t> row_error;

  AmaxCase(int64_t B_, int64_t L_, int64_t Kk_, int64_t pad = 0, int64_t guard = 4)
      : B(B_), L(L_), stride((L_ + 7) / 8 * 8 + pad), Kk(Kk_), out_stride(Kk_ + guard) {
    const size_t bytes = static_cast<size_t>(std::max<int64_t>(B * stride, 8)) * 4;
    scores = static_cast<float*>(std::aligned_alloc(32, (bytes + 31) / 32 * 32));
    for (int64_t i = 0; i < B * stride; ++i) scores[i] = 1e30f;  // poison everywhere first
    lens.assign(static_cast<size_t>(B), static_cast<int32_t>(L));
    out.assign(static_cast<size_t>(std::max<int64_t>(B * out_stride, 1)), f32_from(kKeySentinel));
    sentinel.assign(static_cast<size_t>(Kk), kKeySentinel);
    row_error.assign(static_cast<size_t>(B), 0);
  }
  ~AmaxCase() { std::free(scores); }
  float* row(int64_t b) { return scores + b * stride; }
  void fill_normal(Rng& rng) {
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 0; i < std::min<int64_t>(lens[b], L); ++i) row(b)[i] = rng.normal();
  }
  dsv4_result run(bool validate, dsv4_message* m, float* base = nullptr) {
    dsv4_tensor s = t2(base ? base : scores, DSV4_FLOAT32, B, L, stride);
    dsv4_tensor l = t1(lens.data(), DSV4_INT32, B);
    dsv4_tensor o = t2(out.data(), DSV4_FLOAT32, B, Kk, out_stride);
    return dsv4_amax8_varlen(&s, &l, &o, topk, nullptr, validate ? 1 : 0, m);
  }
  dsv4_device_status run_and_check(bool validate = true, uint32_t allowed = 0) {
    std::vector<float> snap(scores, scores + B * stride);
    take_status();
    dsv4_message m{};
    EXPECT_EQ(run(validate, &m), DSV4_OK) << m.text;
    const auto st = take_status();
    EXPECT_EQ(st.code_mask & ~allowed, 0u) << "code " << st.code << " row " << st.row;
    EXPECT_EQ(std::memcmp(snap.data(), scores, snap.size() * 4), 0) << "scores modified";
    dsv4::oracle::Amax8CheckArgs a;
    a.key_width = Kk;
    a.topk = topk;
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t c = Kk; c < out_stride; ++c)
        EXPECT_EQ(f32_bits(out[b * out_stride + c]), kKeySentinel) << "guard column " << c << " row " << b;
      dsv4::oracle::Amax8Row r;
      r.n = lens[b];
      r.scores = row(b);
      r.row_error = row_error[b] || lens[b] < 0 || lens[b] > L;
      r.got = out.data() + b * out_stride;
      r.sentinel = sentinel.data();
      a.rows.push_back(r);
    }
    const auto res = dsv4::oracle::check_amax8(a);
    std::string why;
    for (const auto& mm : res.first)
      why += "\n row " + std::to_string(mm.row) + " col " + std::to_string(mm.slot) + ": " + mm.what +
             " got " + mm.got + " want " + mm.want;
    EXPECT_TRUE(res.ok) << res.mismatch_count << " mismatches" << why;
    return st;
  }
};

int64_t key_width_for(int64_t max_len) { return ((max_len + 7) / 8 + 3) / 4 * 4; }

// Upstream grid (§6): (1,1), (1,8), (1,9), (3,1000), (4,16389), (8,131072), (2,1048576); ragged
// lengths, rows padded by 248 floats, a wider key buffer, max_seqlen sizing.
TEST(Amax8, UpstreamGrid) {
  const std::vector<std::pair<int64_t, int64_t>> grid = {
      {1, 1}, {1, 8}, {1, 9}, {3, 1000}, {4, 16389}, {8, 131072}, {2, 1048576}};
  Rng rng(0xA3A8);
  for (auto [B, n] : grid) {
    for (int variant = 0; variant < 3; ++variant) {
      if (B * n > 200000 && variant != 0) continue;  // CPU time
      const int64_t pad = variant == 1 ? 248 : 0;
      const int64_t Kk = key_width_for(n) + (variant == 2 ? 40 : 0);
      AmaxCase c(B, n, Kk, pad);
      if (variant != 0)
        for (int64_t b = 1; b < B; ++b) c.lens[b] = static_cast<int32_t>(rng.uniform(0, n));
      c.fill_normal(rng);
      SCOPED_TRACE("B=" + std::to_string(B) + " n=" + std::to_string(n) + " variant " + std::to_string(variant));
      c.run_and_check(variant != 2);
    }
  }
}

// topk = 2048 skips a row of 16384 (2048 blocks) but not 16385 (2049).
TEST(Amax8, TopkSkipBoundary) {
  AmaxCase c(2, 16385, key_width_for(16385));
  c.topk = 2048;
  c.lens = {16384, 16385};
  Rng rng(2048);
  c.fill_normal(rng);
  c.run_and_check();
  EXPECT_EQ(f32_bits(c.out[0]), kKeySentinel) << "skipped row written";
  EXPECT_EQ(c.out[c.out_stride + 2048], kInf);
}

// Value domain: 1..8 NaNs per block, ±0 mixes, all -inf blocks, +inf in non-newest blocks,
// lengths 8m-1, 8m, 8m+1, poison (+inf, NaN, huge) past n.
TEST(Amax8, SpecialValuesAndPoison) {
  const std::vector<int32_t> lens = {8 * 30 - 1, 8 * 30, 8 * 30 + 1, 1, 9, 8 * 64};
  AmaxCase c(static_cast<int64_t>(lens.size()), 8 * 64 + 8, 72);
  c.lens = lens;
  Rng rng(8);
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t b = 0; b < c.B; ++b) {
    for (int64_t blk = 0; blk * 8 < c.L; ++blk) {
      const int kind = static_cast<int>(rng.next() % 6);
      const int nans = 1 + static_cast<int>(rng.next() % 8);
      for (int j = 0; j < 8 && blk * 8 + j < c.L; ++j) {
        float v = rng.normal();
        if (kind == 0) v = j < nans ? f32_from(0x7FC00000u | static_cast<uint32_t>(rng.next() & 0xFFFF)) : v;
        if (kind == 1) v = rng.next() % 2 ? 0.0f : -0.0f;
        if (kind == 2) v = -kInf;
        if (kind == 3 && j == 3) v = kInf;
        if (kind == 4) v = j % 2 ? -0.0f : -1.0f;
        c.row(b)[blk * 8 + j] = v;
      }
    }
    const float poison[3] = {kInf, qnan, 3e38f};
    for (int64_t i = c.lens[b]; i < c.stride; ++i) c.row(b)[i] = poison[(b + i) % 3];
  }
  c.run_and_check();
}

// Class 10: a tight allocation ending at the last real score of the last row (the newest block
// is never read; an ASan build reports any over-read).
TEST(Amax8, TightAllocation) {
  const int64_t B = 2, stride = 64, n = 61;  // row 1 ends at element 64 + 60
  const size_t cnt = static_cast<size_t>(stride + n);
  float* buf = static_cast<float*>(std::aligned_alloc(32, (cnt * 4 + 31) / 32 * 32));
  Rng rng(61);
  for (size_t i = 0; i < cnt; ++i) buf[i] = rng.normal();
  int32_t lens[2] = {static_cast<int32_t>(n), static_cast<int32_t>(n)};
  std::vector<float> out(2 * 9, f32_from(kKeySentinel));
  dsv4_tensor s = t2(buf, DSV4_FLOAT32, B, n, stride), l = t1(lens, DSV4_INT32, B);
  dsv4_tensor o = t2(out.data(), DSV4_FLOAT32, B, 9, 9);
  dsv4_message m{};
  ASSERT_EQ(dsv4_amax8_varlen(&s, &l, &o, 0, nullptr, 1, &m), DSV4_OK) << m.text;
  for (int b = 0; b < 2; ++b) {
    const auto want = dsv4::oracle::amax8_expected(buf + b * stride, n, 0);
    ASSERT_EQ(want.size(), 8u);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(out[b * 9 + i], want[i]);
    EXPECT_EQ(f32_bits(out[b * 9 + 8]), kKeySentinel) << "key past nk written";
  }
  std::free(buf);
}

// Class 5 minimal trigger: key width 2, n = 24 (nk = 3). Checked: host error naming the row;
// unchecked: code 3, nothing written (upstream writes key 2 past the width).
TEST(Amax8Guards, KeysPastWidth) {
  AmaxCase c(2, 24, 2);
  Rng rng(24);
  c.fill_normal(rng);
  c.lens = {16, 24};
  c.row_error[1] = 1;
  dsv4_message m{};
  ASSERT_EQ(c.run(true, &m), DSV4_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(m.text).find("seq_lens[1] = 24"), std::string::npos) << m.text;
  const auto st = c.run_and_check(false, bit(3));
  EXPECT_EQ(st.code_mask, bit(3));
  EXPECT_EQ(st.count, 1u);
  c.topk = 3;  // nk = 3 <= topk: skipped without a code (codes 1, 2, skip, then 3)
  c.row_error[1] = 0;
  c.out.assign(c.out.size(), f32_from(kKeySentinel));
  EXPECT_EQ(c.run_and_check(true).code_mask, 0u);
}

// Class 3: negative lengths (code 1) and n > L (code 2): nothing written, one count per row.
TEST(Amax8Guards, NegativeAndTooLong) {
  for (int32_t bad : {-1, -7, -8, INT32_MIN, 41}) {
    AmaxCase c(3, 40, 8);
    c.topk = bad == -1 ? 100 : 0;  // the skip does not hide codes 1 and 2
    c.lens = {40, bad, 17};
    c.row_error[1] = 1;
    dsv4_message m{};
    ASSERT_EQ(c.run(true, &m), DSV4_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(m.text).find("seq_lens[1] = " + std::to_string(bad)), std::string::npos);
    const int code = bad < 0 ? 1 : 2;
    const auto st = c.run_and_check(false, bit(code));
    EXPECT_EQ(st.code_mask, bit(code));
    EXPECT_EQ(st.count, 1u);
  }
}

// Class 15 / 22 and every metadata contract: InvalidArgument, nothing written.
TEST(Amax8Args, MetadataErrors) {
  AmaxCase c(2, 64, 8);
  struct Bad { const char* what; std::function<void(dsv4_tensor&, dsv4_tensor&, dsv4_tensor&, int32_t&)> edit; };
  const std::vector<Bad> bads = {
      {"base 16-byte but not 32-byte aligned", [&](auto& s, auto&, auto&, auto&) { s.data = c.scores + 4; s.sizes[1] = 56; }},
      {"stride % 8", [](auto& s, auto&, auto&, auto&) { s.strides[0] = 60; s.sizes[1] = 60; }},
      {"stride < L", [](auto& s, auto&, auto&, auto&) { s.sizes[1] = 72; }},
      {"Kk = 0", [](auto&, auto&, auto& o, auto&) { o.sizes[1] = 0; }},
      {"topk < 0", [](auto&, auto&, auto&, auto& k) { k = -1; }},
      {"out aliases scores", [&](auto& s, auto&, auto& o, auto&) { o.data = s.data; }},
      {"out dtype", [](auto&, auto&, auto& o, auto&) { o.dtype = DSV4_INT32; }},
      {"seq_lens length", [](auto&, auto& l, auto&, auto&) { l.sizes[0] = 1; }},
      {"scores bf16", [](auto& s, auto&, auto&, auto&) { s.dtype = DSV4_BFLOAT16; }},
  };
  for (const auto& bad : bads)
    for (int validate : {1, 0}) {
      dsv4_tensor s = t2(c.scores, DSV4_FLOAT32, 2, 64, c.stride), l = t1(c.lens.data(), DSV4_INT32, 2);
      dsv4_tensor o = t2(c.out.data(), DSV4_FLOAT32, 2, 8, c.out_stride);
      int32_t topk = 0;
      bad.edit(s, l, o, topk);
      const auto snap = c.out;
      dsv4_message m{};
      EXPECT_EQ(dsv4_amax8_varlen(&s, &l, &o, topk, nullptr, validate, &m), DSV4_ERR_INVALID_ARGUMENT) << bad.what;
      EXPECT_NE(std::string(m.text).find("amax8_varlen"), std::string::npos) << m.text;
      EXPECT_EQ(std::memcmp(snap.data(), c.out.data(), snap.size() * 4), 0) << bad.what;
    }
  dsv4_tensor s = t2(nullptr, DSV4_FLOAT32, 0, 64, 64), l = t1(nullptr, DSV4_INT32, 0);
  dsv4_tensor o = t2(nullptr, DSV4_FLOAT32, 0, 8, 8);
  dsv4_message m{};
  EXPECT_EQ(dsv4_amax8_varlen(&s, &l, &o, 0, nullptr, 1, &m), DSV4_OK) << "B = 0: " << m.text;
}

}  // namespace
