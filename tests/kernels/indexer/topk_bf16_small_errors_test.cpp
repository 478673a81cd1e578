// tests/kernels/indexer/topk_bf16_small_errors_test.cpp -- bf16 small top-k: device guards
// (codes 1, 2, 5), page-table overflow (class 11), a short candidate table reaching the consumer
// (class 19), silent truncation (class 17), host argument errors (class 15, 22).
#include "bf16_case.hpp"

using namespace idxtest;

namespace {

// Class 3 and 17: negative lengths and n > L. Checked mode names row and value; unchecked mode
// records the code (one count per row) and emits an all -1 row; other rows are unaffected.
TEST(TopkBf16SmallGuards, NegativeAndTooLongLengths) {
  const int64_t L = 300;
  for (int32_t bad : {-1, -7, -8, INT32_MIN, int32_t(L + 1), int32_t(kBf16Cap + 1)}) {
    Bf16Case c(3, L, 16);
    Rng rng(static_cast<uint64_t>(bad));
    c.fill_normal(rng);
    c.lens[1] = bad;
    c.row_error[1] = 1;
    dsv4_message m{};
    ASSERT_EQ(c.run(true, &m), DSV4_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(m.text).find("seq_lens[1] = " + std::to_string(bad)), std::string::npos)
        << m.text;
    for (int32_t v : c.out) ASSERT_EQ(v, kGuardI32) << "output written after a host error";
    const int code = bad < 0 ? 1 : 2;
    const auto st = c.run_and_check(false, bit(code));
    EXPECT_EQ(st.code_mask, bit(code));
    EXPECT_EQ(st.count, 1u);
    EXPECT_EQ(st.row, 1);
    EXPECT_EQ(st.value, bad);
  }
}

// Class 17: view [1, C] over a buffer with a wider stride, seq_len past the view: code 2, all -1
// (upstream returns the top-k of a subset or reads the padding).
TEST(TopkBf16SmallGuards, SilentTruncationMinimalTrigger) {
  Bf16Case c(1, kBf16Cap, 64);
  Rng rng(17);
  c.fill_normal(rng);
  c.lens[0] = kBf16Cap + 5;
  c.row_error[0] = 1;
  const auto st = c.run_and_check(false, bit(2));
  EXPECT_EQ(st.code_mask, bit(2));
}

// Class 11: entries at INT32_MAX >> page_bits are legal; one above, -1 and INT32_MAX give
// INT32_MIN + code 5 in exactly the selected slots that map through them.
TEST(TopkBf16SmallTable, EntryOverflowAndNegative) {
  for (int64_t ps : {int64_t{8}, int64_t{64}}) {
    const int bits = ps == 8 ? 3 : 6;
    Bf16Case c(1, 4 * ps, /*k=*/ps, /*page_size=*/ps);  // 4 pages; the top ps values live in page 1
    for (int64_t i = 0; i < 4 * ps; ++i) c.row(0)[i] = bf16(i / ps == 1 ? 2.0f : 0.5f);
    c.trow(0)[0] = INT32_MAX >> bits;  // legal maximum, unselected
    for (int32_t bad : {int32_t((INT32_MAX >> bits) + 1), -1, INT32_MAX}) {
      c.trow(0)[1] = bad;
      c.out.assign(c.out.size(), kGuardI32);
      const auto st = c.run_and_check(true, bit(5));
      EXPECT_EQ(st.code_mask, bit(5));
      EXPECT_EQ(st.count, static_cast<uint32_t>(ps)) << "one count per failing slot";
      for (int64_t s = 0; s < ps; ++s) EXPECT_EQ(c.orow(0)[s], INT32_MIN);
    }
    c.trow(0)[1] = INT32_MAX >> bits;  // legal maximum, selected: (t << bits) | r fits int32
    c.trow(0)[0] = 5;
    const auto st = c.run_and_check(true, 0);
    EXPECT_EQ(st.code_mask, 0u);
  }
}

// Class 11: a table narrower than ceil(n / page_size). Checked mode rejects naming W; unchecked
// mode maps the selected positions of the missing column to INT32_MIN + code 5.
TEST(TopkBf16SmallTable, TableTooNarrow) {
  Bf16Case c(1, 64, 8);
  for (int i = 0; i < 64; ++i) c.row(0)[i] = bf16(i >= 56 ? 9.0f : 1.0f);  // top 8 in column 7
  c.W = 7;
  dsv4_message m{};
  ASSERT_EQ(c.run(true, &m), DSV4_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(m.text).find("W = 7"), std::string::npos) << m.text;
  const auto st = c.run_and_check(false, bit(5));
  EXPECT_EQ(st.code_mask, bit(5));
  for (int s = 0; s < 8; ++s) EXPECT_EQ(c.orow(0)[s], INT32_MIN);
}

// Class 19: a short candidate table (INT32_MAX entries past m) under valid_len. Selected columns
// mapping through INT32_MAX become INT32_MIN + code 5; unselected ones raise nothing.
TEST(TopkBf16SmallTable, ShortCandidateTableReachesConsumer) {
  const int64_t m_valid = 20, nblk = 24, n = nblk * 8, k = 16;
  for (bool selected : {true, false}) {
    Bf16Case c(1, n, k);
    for (int64_t p = 0; p < c.W; ++p) c.trow(0)[p] = p < m_valid ? int32_t(100 + 3 * p) : INT32_MAX;
    for (int64_t j = 0; j < n; ++j)
      c.row(0)[j] = bf16(j >= m_valid * 8 ? (selected ? 50.0f : -50.0f) : float(j % 13));
    const auto st = c.run_and_check(true, bit(5));
    EXPECT_EQ((st.code_mask & bit(5)) != 0, selected);
  }
}

// k > L is legal: every valid row is trivial (slot t = f(t), then -1).
TEST(TopkBf16SmallArgs, KLargerThanWidth) {
  Bf16Case c(3, 100, 2048);
  c.lens = {100, 0, 37};
  c.run_and_check();
  EXPECT_EQ(c.orow(0)[99], 99);
  EXPECT_EQ(c.orow(2)[37], -1);
}

// Class 22: B = 0 is a no-op even with NULL data.
TEST(TopkBf16SmallArgs, EmptyBatch) {
  dsv4_tensor s = t2(nullptr, DSV4_BFLOAT16, 0, 128, 128), l = t1(nullptr, DSV4_INT32, 0);
  dsv4_tensor t = t2(nullptr, DSV4_INT32, 0, 16, 16), o = t2(nullptr, DSV4_INT32, 0, 64, 64);
  dsv4_message m{};
  EXPECT_EQ(dsv4_topk_bf16_small_transform(&s, &l, &t, &o, 8, nullptr, 1, &m), DSV4_OK) << m.text;
  EXPECT_EQ(dsv4_topk_bf16_small_transform(&s, &l, &t, &o, 8, nullptr, 0, &m), DSV4_OK) << m.text;
}

// Every metadata contract: a clear InvalidArgument, nothing written (both modes).
TEST(TopkBf16SmallArgs, MetadataErrors) {
  Bf16Case c(2, 256, 32);
  std::vector<uint16_t> big(2 * 256 + 64, 0);
  struct Bad { const char* what; std::function<void(dsv4_tensor&, dsv4_tensor&, dsv4_tensor&, dsv4_tensor&, int64_t&)> edit; };
  const std::vector<Bad> bads = {
      {"k = 0", [](auto&, auto&, auto&, auto& o, auto&) { o.sizes[1] = 0; }},
      {"k = 2049", [&](auto&, auto&, auto&, auto& o, auto&) { o.sizes[1] = 2049; o.strides[0] = 2049; }},
      {"page_size 0", [](auto&, auto&, auto&, auto&, auto& ps) { ps = 0; }},
      {"page_size 3", [](auto&, auto&, auto&, auto&, auto& ps) { ps = 3; }},
      {"page_size 2^31", [](auto&, auto&, auto&, auto&, auto& ps) { ps = int64_t{1} << 31; }},
      {"L > capacity", [](auto& s, auto&, auto&, auto&, auto&) { s.sizes[1] = kBf16Cap + 8; s.strides[0] = kBf16Cap + 8; }},
      {"stride % 8", [](auto& s, auto&, auto&, auto&, auto&) { s.strides[0] = 260; s.sizes[1] = 250; }},
      {"stride < L", [](auto& s, auto&, auto&, auto&, auto&) { s.strides[0] = 248; }},
      {"misaligned base (class 15)", [&](auto& s, auto&, auto&, auto&, auto&) { s.data = big.data() + 1; s.strides[0] = 264; s.sizes[1] = 256; }},
      {"seq_lens length", [](auto&, auto& l, auto&, auto&, auto&) { l.sizes[0] = 3; }},
      {"seq_lens dtype", [](auto&, auto& l, auto&, auto&, auto&) { l.dtype = DSV4_FLOAT32; }},
      {"scores dtype", [](auto& s, auto&, auto&, auto&, auto&) { s.dtype = DSV4_FLOAT32; }},
      {"column stride", [](auto&, auto&, auto&, auto& o, auto&) { o.strides[1] = 2; }},
      {"out rows", [](auto&, auto&, auto&, auto& o, auto&) { o.sizes[0] = 1; }},
      {"out aliases page_table", [&](auto&, auto&, auto& t, auto& o, auto&) { o.data = t.data; }},
      {"out aliases scores", [&](auto& s, auto&, auto&, auto& o, auto&) { o.data = s.data; }},
      {"out aliases seq_lens", [&](auto&, auto& l, auto&, auto& o, auto&) { o.data = l.data; }},
  };
  for (const auto& bad : bads) {
    for (int validate : {1, 0}) {
      dsv4_tensor s = t2(c.scores.data(), DSV4_BFLOAT16, 2, 256, c.stride);
      dsv4_tensor l = t1(c.lens.data(), DSV4_INT32, 2);
      dsv4_tensor t = t2(c.table.data(), DSV4_INT32, 2, c.W, c.table_stride);
      dsv4_tensor o = t2(c.out.data(), DSV4_INT32, 2, 32, c.out_stride);
      int64_t ps = 8;
      bad.edit(s, l, t, o, ps);
      const auto snap = c.out;
      dsv4_message m{};
      EXPECT_EQ(dsv4_topk_bf16_small_transform(&s, &l, &t, &o, ps, nullptr, validate, &m),
                DSV4_ERR_INVALID_ARGUMENT) << bad.what;
      EXPECT_NE(std::string(m.text).find("topk_bf16_small_transform"), std::string::npos) << m.text;
      EXPECT_TRUE(c.out == snap) << bad.what << ": written after a host error";
    }
  }
  dsv4_message m{};
  dsv4_tensor l = t1(c.lens.data(), DSV4_INT32, 2), o = t2(c.out.data(), DSV4_INT32, 2, 32, c.out_stride);
  dsv4_tensor s = t2(c.scores.data(), DSV4_BFLOAT16, 2, 256, c.stride);
  EXPECT_EQ(dsv4_topk_bf16_small_transform(&s, &l, nullptr, &o, 8, nullptr, 1, &m),
            DSV4_ERR_INVALID_ARGUMENT) << "page_table is required";
}

// dsv4_config.bf16_ctas_per_sm: 3, 4 or <= 0; anything else is refused with the field named.
TEST(TopkBf16SmallGuards, ConfigRefusesOtherCtasPerSm) {
  dsv4_config cfg;
  std::memset(&cfg, 0xff, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.force_path = DSV4_PATH_AUTO;
  for (int v : {1, 2, 5, 1024}) {
    cfg.bf16_ctas_per_sm = v;
    dsv4_message m{};
    EXPECT_EQ(dsv4_set_config(&cfg, &m), DSV4_ERR_INVALID_ARGUMENT) << v;
    EXPECT_NE(std::string(m.text).find("bf16_ctas_per_sm"), std::string::npos) << m.text;
  }
  for (int v : {-1, 0, 3, 4}) {
    cfg.bf16_ctas_per_sm = v;
    dsv4_message m{};
    EXPECT_EQ(dsv4_set_config(&cfg, &m), DSV4_OK) << v << ": " << m.text;
  }
  dsv4_message m{};
  EXPECT_EQ(dsv4_set_config(nullptr, &m), DSV4_OK);
}

// dsv4_config.bf16_split_ranks: 1, 2, 4 or <= 0; anything else is refused with the field named.
TEST(TopkBf16SmallGuards, ConfigRefusesOtherSplit) {
  dsv4_config cfg;
  std::memset(&cfg, 0xff, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.force_path = DSV4_PATH_AUTO;
  for (int v : {3, 5, 8, 16}) {
    cfg.bf16_split_ranks = v;
    dsv4_message m{};
    EXPECT_EQ(dsv4_set_config(&cfg, &m), DSV4_ERR_INVALID_ARGUMENT) << v;
    EXPECT_NE(std::string(m.text).find("bf16_split_ranks"), std::string::npos) << m.text;
  }
  for (int v : {-1, 0, 1, 2, 4}) {
    cfg.bf16_split_ranks = v;
    dsv4_message m{};
    EXPECT_EQ(dsv4_set_config(&cfg, &m), DSV4_OK) << v << ": " << m.text;
  }
  dsv4_message m{};
  EXPECT_EQ(dsv4_set_config(nullptr, &m), DSV4_OK);
}

}  // namespace
