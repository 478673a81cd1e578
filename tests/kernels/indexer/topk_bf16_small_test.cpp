// tests/kernels/indexer/topk_bf16_small_test.cpp -- bf16 small-row top-k through the ABI on the
// simt build, checked by oracle::check_topk (spec topk_bf16_small.md §7; bug classes 9, 10, 11,
// 17, 19 and the -0 pivot rule). Row capacity follows the instantiation (kBf16Cap).
#include "bf16_case.hpp"

using namespace idxtest;

namespace {

// Upstream grid (spec §7) scaled to this instantiation's capacity C: (1,1), (4,300), (8,512),
// (8,513), (16,C/4+1), (32,C-C/40), (32,C), (148,C); page sizes 8 and 64; identity and
// permutation tables; uniform and ragged lengths; poison past n; column-padded output.
TEST(TopkBf16Small, UpstreamGridScaled) {
  const int64_t C = kBf16Cap;
  const std::vector<std::pair<int64_t, int64_t>> grid = {
      {1, 1}, {4, 300}, {8, 512}, {8, 513}, {16, C / 4 + 1}, {32, C - C / 40}, {32, C}, {148, C}};
  Rng rng(0xB16);
  for (auto [B, n] : grid) {
    for (int variant = 0; variant < 4; ++variant) {
      if (B > 32 && variant != 3) continue;  // keep the CPU run short
      const int64_t page_size = variant & 1 ? 64 : 8;
      const int64_t k = std::min<int64_t>(512, C / 4);
      Bf16Case c(B, n, k, page_size);
      if (variant & 2) {  // ragged lengths and permuted tables
        for (int64_t b = 1; b < B; ++b) c.lens[b] = static_cast<int32_t>(rng.uniform(0, n));
        c.permute_tables(rng);
      }
      c.fill_normal(rng);
      SCOPED_TRACE("B=" + std::to_string(B) + " n=" + std::to_string(n) + " variant " +
                   std::to_string(variant));
      c.run_and_check(variant & 1);
    }
  }
}

// Class 9: NaN is absent. n = 600, k = 512, 100 positive NaNs + 500 finite: the 500 finite
// positions, then exactly 12 x -1 (upstream: garbage or a whole -1 row).
TEST(TopkBf16Small, NanAbsentMinimalTrigger) {
  Bf16Case c(1, 600, 512);
  for (int i = 0; i < 600; ++i) c.row(0)[i] = i % 6 == 0 ? uint16_t(0x7FC0 + (i % 60)) : bf16(i * 0.5f);
  c.run_and_check();
  int minus = 0;
  for (int s = 0; s < 512; ++s) minus += c.orow(0)[s] == -1;
  EXPECT_EQ(minus, 12);
}

// NaN counts around k (n_v = k-1, k, k+1, 0), both signs, many payloads.
TEST(TopkBf16Small, NanCountsAroundK) {
  const int64_t n = 700, k = 64;
  Rng rng(9);
  for (int64_t nv : {k - 1, k, k + 1, int64_t{0}, int64_t{1}}) {
    Bf16Case c(2, n, k);
    for (int64_t b = 0; b < 2; ++b) {
      std::vector<int64_t> pos(n);
      for (int64_t i = 0; i < n; ++i) pos[i] = i;
      rng.shuffle(pos);
      for (int64_t j = 0; j < n; ++j) {
        const uint16_t payload = static_cast<uint16_t>(rng.uniform(1, 0x7F));
        const uint16_t nan = static_cast<uint16_t>((b == 0 ? 0x7F80 : 0xFF80) | payload);
        c.row(b)[pos[j]] = j < nv ? bf16(rng.normal()) : nan;
      }
    }
    SCOPED_TRACE("n_v=" + std::to_string(nv));
    c.run_and_check();
  }
}

// The -0 pivot (spec §4.4): exactly 0x8000 pivots with and without +0 / positive NaN present.
TEST(TopkBf16Small, NegativeZeroPivot) {
  struct Row { int pos, pzero, nzero, pnan; int64_t k; };
  for (Row r : {Row{3, 1, 10, 0, 6}, Row{3, 0, 12, 0, 6}, Row{3, 0, 10, 2, 8}, Row{3, 2, 40, 3, 9},
                Row{0, 5, 30, 0, 8}}) {
    const int64_t n = r.pos + r.pzero + r.nzero + r.pnan;
    Bf16Case c(1, n, r.k);
    int i = 0;
    for (int j = 0; j < r.nzero; ++j) c.row(0)[i++] = 0x8000;  // zeros placed first
    for (int j = 0; j < r.pzero; ++j) c.row(0)[i++] = 0x0000;
    for (int j = 0; j < r.pnan; ++j) c.row(0)[i++] = 0x7FC1;
    for (int j = 0; j < r.pos; ++j) c.row(0)[i++] = bf16(1.0f + j);
    c.run_and_check();
    int valid = 0;
    for (int64_t s = 0; s < r.k; ++s) valid += c.orow(0)[s] != -1;
    EXPECT_EQ(valid, r.k) << "every slot must be filled: n_v >= k";
  }
}

// Special bit patterns: ±inf, ±0, subnormals, 0x7F7F / 0xFF7F extremes, NaNs; -inf fills k.
TEST(TopkBf16Small, SpecialPatterns) {
  const uint16_t specials[] = {0x7F80, 0xFF80, 0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x807F,
                               0x7F7F, 0xFF7F, 0x7FC0, 0xFFFF, 0x7F81, 0xFF81, 0x3F80, 0xBF80};
  Rng rng(77);
  const int64_t C = kBf16Cap;
  Bf16Case c(24, C, 100);
  for (int64_t b = 0; b < 24; ++b) {
    c.lens[b] = static_cast<int32_t>(rng.uniform(101, C));
    const int mode = static_cast<int>(b % 4);
    for (int64_t i = 0; i < c.lens[b]; ++i) {
      uint16_t v = specials[rng.next() % 16];
      if (mode == 1) v = rng.next() % 3 ? 0xFF80 : v;                       // mostly -inf
      if (mode == 2) v = static_cast<uint16_t>(0x3F00 | (rng.next() & 0xFF));  // one high byte
      if (mode == 3) v = rng.next() % 2 ? bf16(1.5f) : v;                    // heavy exact ties
      c.row(b)[i] = v;
    }
  }
  c.run_and_check();
}

// Lengths k, k+1, 8m-1, 8m, 8m+1, C-1, C with poison +inf past n (partial last vector).
TEST(TopkBf16Small, LengthBoundaries) {
  const int64_t C = kBf16Cap, k = 200;
  const std::vector<int64_t> lens = {k, k + 1, 8 * 40 - 1, 8 * 40, 8 * 40 + 1, C - 1, C, 0, 1};
  Bf16Case c(static_cast<int64_t>(lens.size()), C, k);
  Rng rng(5);
  for (size_t b = 0; b < lens.size(); ++b) c.lens[b] = static_cast<int32_t>(lens[b]);
  c.fill_normal(rng);
  for (size_t b = 0; b < lens.size(); ++b)
    for (int64_t i = lens[b]; i < c.stride; ++i) c.row(b)[i] = 0x7F80;  // +inf poison
  c.run_and_check();
}

// Class 10: nothing at or past n is read. Poison +inf / 1e30 / NaN past n, and a tight
// allocation ending at element n - 1 (sanitizer builds see any over-read).
TEST(TopkBf16Small, ReadPastSeqLenPoisonAndTight) {
  for (uint16_t poison : {uint16_t(0x7F80), bf16(1e30f), uint16_t(0x7FC0)}) {
    Bf16Case c(1, 1025, 64);
    Rng rng(poison);
    c.fill_normal(rng);
    for (int64_t i = 1025; i < c.stride; ++i) c.row(0)[i] = poison;
    c.run_and_check();
  }
  const int64_t n = 1025, k = 64;
  uint16_t* tight = static_cast<uint16_t*>(std::malloc(n * 2));
  ASSERT_EQ(reinterpret_cast<uintptr_t>(tight) % 16, 0u);
  Rng rng(3);
  for (int64_t i = 0; i < n; ++i) tight[i] = bf16(rng.normal());
  int32_t len = static_cast<int32_t>(n);
  std::vector<int32_t> table(200);
  for (int i = 0; i < 200; ++i) table[i] = i;
  std::vector<int32_t> out(k, kGuardI32);
  dsv4_tensor s = t2(tight, DSV4_BFLOAT16, 1, n, 1032), l = t1(&len, DSV4_INT32, 1);
  dsv4_tensor t = t2(table.data(), DSV4_INT32, 1, 200, 200), o = t2(out.data(), DSV4_INT32, 1, k, k);
  dsv4_message m{};
  ASSERT_EQ(dsv4_topk_bf16_small_transform(&s, &l, &t, &o, 8, nullptr, 1, &m), DSV4_OK) << m.text;
  dsv4::oracle::TopkCheckArgs a;
  a.k = k;
  dsv4::oracle::TopkRow r;
  r.n = n;
  r.values_bf16 = tight;
  r.transform.kind = dsv4::oracle::Transform::PageTable;
  r.transform.table = table.data();
  r.transform.table_width = 200;
  r.transform.page_bits = 3;
  r.got = out.data();
  a.rows.push_back(r);
  const auto res = dsv4::oracle::check_topk(a);
  EXPECT_TRUE(res.ok) << Bf16Case::describe(res);
  std::free(tight);
}

// Both kernel instantiations (dsv4_config.bf16_ctas_per_sm 3 and 4: 40 registers with the table
// prefetch, 32 without) on the same rows: permuted tables, ragged lengths, NaN rows (the late NaN
// clearing), heavy ties; then the batch rule by itself. The planted BF16_WIDE_LAST_SLOT fails the
// forced-4 half only.
TEST(TopkBf16Small, BothInstantiationsExact) {
  const int64_t C = kBf16Cap;
  for (int forced : {3, 4}) {
    dsv4_config cfg;
    std::memset(&cfg, 0xff, sizeof cfg);
    cfg.struct_size = sizeof cfg;
    cfg.force_path = DSV4_PATH_AUTO;
    cfg.early_read = 0;
    cfg.bf16_ctas_per_sm = forced;
    dsv4_message m{};
    ASSERT_EQ(dsv4_set_config(&cfg, &m), DSV4_OK) << m.text;
    SCOPED_TRACE("bf16_ctas_per_sm " + std::to_string(forced));
    Rng rng(0xC7A + forced);
    Bf16Case c(6, C, std::min<int64_t>(300, C / 4), 8);
    c.fill_normal(rng);
    c.permute_tables(rng);
    for (int64_t b = 1; b < 6; ++b) c.lens[b] = static_cast<int32_t>(rng.uniform(C / 8, C));
    for (int i = 0; i < 40; ++i) c.row(2)[i * 5] = uint16_t(0x7FC1 + i);       // positive NaNs
    for (int i = 0; i < 40; ++i) c.row(3)[i * 3] = uint16_t(0xFFC1 + i);       // negative NaNs
    for (int64_t i = 0; i < C; i += 2) c.row(4)[i] = bf16(1.5f);               // ties at the pivot
    c.run_and_check();
  }
  dsv4_message m{};
  ASSERT_EQ(dsv4_set_config(nullptr, &m), DSV4_OK) << m.text;
}

// Every split (dsv4_config.bf16_split_ranks 1, 2, 4: one CTA a row, or the row over a cluster of
// 2 or 4 CTAs whose histograms are summed through distributed shared memory) on rows that end in
// every rank (short rows leave the upper ranks empty), permuted tables, NaN rows, ties at the pivot
// that straddle the ranks, all -inf rows and trivial rows. The planted BF16_SPLIT_OWN_HIST fails the
// split halves.
TEST(TopkBf16Small, EverySplitExact) {
  const int64_t C = kBf16Cap;
  for (int split : {1, 2, 4}) {
    dsv4_config cfg;
    std::memset(&cfg, 0xff, sizeof cfg);
    cfg.struct_size = sizeof cfg;
    cfg.force_path = DSV4_PATH_AUTO;
    cfg.early_read = 0;
    cfg.bf16_split_ranks = split;
    dsv4_message m{};
    ASSERT_EQ(dsv4_set_config(&cfg, &m), DSV4_OK) << m.text;
    SCOPED_TRACE("bf16_split_ranks " + std::to_string(split));
    for (int64_t k : {int64_t{1}, std::min<int64_t>(300, C / 4), std::min<int64_t>(2048, C / 2)}) {
      SCOPED_TRACE("k " + std::to_string(k));
      Rng rng(0x5B1 + split * 7 + k);
      Bf16Case c(8, C, k, 8);
      c.fill_normal(rng);
      c.permute_tables(rng);
      c.lens[1] = static_cast<int32_t>(C / 4 + 3);   // ends inside rank 1 of 4
      c.lens[2] = static_cast<int32_t>(C / 2 + 1);   // one lane into the upper half
      c.lens[3] = static_cast<int32_t>(k);           // trivial
      for (int64_t i = 0; i < C; i += 2) c.row(4)[i] = bf16(1.5f);                // ties, every rank
      for (int i = 0; i < 40; ++i) c.row(5)[i * 7] = uint16_t(0x7FC1 + i);        // positive NaNs
      for (int64_t i = 0; i < C; ++i) c.row(6)[i] = 0xFF80;                        // all -inf
      for (int64_t i = 0; i < C; ++i) c.row(7)[i] = i % 3 ? uint16_t(0x8000) : uint16_t(0);  // +-0
      c.run_and_check();
    }
  }
  dsv4_message m{};
  ASSERT_EQ(dsv4_set_config(nullptr, &m), DSV4_OK) << m.text;
}

}  // namespace
