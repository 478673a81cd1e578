// tests/oracle/test_oracle_tables.cpp -- plan, block amax and candidate-table oracles: spec worked
// examples, bug-class triggers (3, 5, 6, 12, 19) rejected with readable reports, correct answers accepted.
#include <algorithm>

#include "test_oracle_util.hpp"

using namespace oracle_test;

namespace {
// metadata [B+1, 2] as the kernel would write it: header, listed rows in the given order, rest = fill.
std::vector<int32_t> make_plan(const std::vector<int32_t>& lens, int32_t t, std::vector<int32_t> ids, int32_t fill) {
  std::vector<int32_t> m(2 * (lens.size() + 1), fill);
  m[0] = t;
  m[1] = static_cast<int32_t>(ids.size());
  for (size_t j = 0; j < ids.size(); ++j) { m[2 * (j + 1)] = ids[j]; m[2 * (j + 1) + 1] = lens[ids[j]]; }
  return m;
}
}  // namespace

TEST(OraclePlan, WorkedExamplesSm90) {
  const auto t90 = plan_table_sm90();
  auto p = plan_expected(std::vector<int32_t>(100, 200000), -1, t90);
  EXPECT_EQ(p.threshold, 262144);
  EXPECT_TRUE(p.listed.empty());
  std::vector<int32_t> lens(40, 262144);
  lens.resize(60, 1000);
  p = plan_expected(lens, -1, t90);
  EXPECT_EQ(p.threshold, 98304);
  EXPECT_EQ(p.listed.size(), 40u);
  EXPECT_EQ(plan_table_sm100().entries.front(), (std::pair<int32_t, int32_t>{32768, 48}));
  EXPECT_EQ(plan_expected({40000}, 0, t90, 0).threshold, 0);  // forced pool: T = 0 lists every n > 0
  EXPECT_EQ(plan_expected({40000, 0}, 0, t90, 0).listed, std::vector<int32_t>{0});
}

// Class 6: static_threshold 0 is literal (clamped to T_min), not "heuristic".
TEST(OraclePlan, Class6StaticThresholdZero) {
  const std::vector<int32_t> lens(64, 100000);
  const auto t90 = plan_table_sm90();
  auto h = plan_expected(lens, -1, t90);
  EXPECT_EQ(h.threshold, 131072);
  EXPECT_TRUE(h.listed.empty());
  auto z = plan_expected(lens, 0, t90);
  EXPECT_EQ(z.threshold, 32768);
  EXPECT_EQ(z.listed.size(), 64u);
  std::vector<int32_t> ids(64);
  for (int i = 0; i < 64; ++i) ids[i] = 63 - i;  // any order
  auto good = make_plan(lens, 32768, ids, -7);
  EXPECT_ACCEPTED(check_plan(lens, 0, t90, 32768, good.data(), nullptr, 64));
  auto heuristic_meaning = make_plan(lens, 131072, {}, -7);  // upstream-main reading of 0
  expect_rejected(check_plan(lens, 0, t90, 32768, heuristic_meaning.data(), nullptr, 64), "threshold",
                  "class 6: 0 treated as heuristic");
}

// Class 3: a negative length is never counted or listed; rows past N stay untouched.
TEST(OraclePlan, Class3NegativeLength) {
  std::vector<int32_t> lens(31, 65540);
  lens[0] = -1;
  const auto t90 = plan_table_sm90();
  auto want = plan_expected(lens, 0, t90);
  EXPECT_EQ(want.threshold, 32768);
  EXPECT_EQ(want.listed.size(), 30u);
  EXPECT_EQ(want.listed.front(), 1);
  std::vector<int32_t> ids;
  for (int i = 30; i >= 1; --i) ids.push_back(i);
  auto pre = std::vector<int32_t>(64, -7);
  auto good = make_plan(lens, 32768, ids, -7);
  EXPECT_ACCEPTED(check_plan(lens, 0, t90, 32768, good.data(), pre.data(), 31));
  auto upstream = make_plan(lens, 32768, concat({0}, ids), -7);  // -1 read as 4294967295
  upstream.resize(64, -7);
  upstream[2 * 31 + 1] = -1;
  expect_rejected(check_plan(lens, 0, t90, 32768, upstream.data(), pre.data(), 31), "item count",
                  "class 3: negative row listed");
  // Heuristic counts: 31 rows of 65540 > 30 (cap of 65536) would need the negative row not to count.
  std::vector<int32_t> h(31, 70000);
  h[0] = -1;
  EXPECT_EQ(plan_expected(h, -1, t90).threshold, 65536);
  auto dup = make_plan(lens, 32768, ids, -7);
  dup[4] = dup[2];  // item 2 repeats item 1's batch id
  dup[5] = dup[3];
  expect_rejected(check_plan(lens, 0, t90, 32768, dup.data(), pre.data(), 31), "repeats", "plan: repeated item");
  // Rows N+1..B must keep the pre-fill.
  std::vector<int32_t> few = {100000, 10, 10, 10};
  auto pf = std::vector<int32_t>(10, -7);
  auto written = make_plan(few, 32768, {0}, -7);
  written[6] = 0;
  expect_rejected(check_plan(few, 0, t90, 32768, written.data(), pf.data(), 4), "past N", "plan: stale row written");
  EXPECT_THROW(check_plan(few, 0, t90, 32768, written.data(), pf.data(), 5), std::invalid_argument);
}

TEST(OracleAmax8, MaxNumKeysAndWriteSet) {
  const uint32_t sentinel_bits = 0x7FA5A5A5u;  // reserved NaN payload
  std::vector<float> s(24);
  for (int i = 0; i < 24; ++i) s[i] = static_cast<float>(i % 8) - 3.0f;
  s[3] = kNaN; s[7] = kNaN;  // block 0: max stays 3 (maxNum ignores NaN)
  for (int i = 8; i < 16; ++i) s[i] = kNaN;  // block 1: all NaN -> NaN key (any payload)
  auto want = amax8_expected(s.data(), 20, 0);  // nk = 3
  ASSERT_EQ(want.size(), 3u);
  EXPECT_EQ(want[0], 3.0f);
  EXPECT_TRUE(std::isnan(want[1]));
  EXPECT_EQ(want[2], kInf);
  EXPECT_TRUE(amax8_expected(s.data(), 16384, 2048).empty());        // 2048 blocks skipped
  EXPECT_EQ(amax8_expected(nullptr, 8, 0), std::vector<float>{kInf});  // newest block is not read

  std::vector<uint32_t> sent(4, sentinel_bits);
  const float sf = from_bits(sentinel_bits);
  Amax8CheckArgs a;
  a.key_width = 4;
  std::vector<float> good = {3.0f, from_bits(0xFFC00000u), kInf, sf};
  a.rows.push_back({20, s.data(), false, good.data(), sent.data()});
  EXPECT_ACCEPTED(check_amax8(a));
  std::vector<float> torch_amax = {kNaN, kNaN, kInf, sf};  // NaN-propagating max
  a.rows[0].got = torch_amax.data();
  expect_rejected(check_amax8(a), "block key", "amax8: NaN-propagating max");
  std::vector<float> no_inf = {3.0f, kNaN, 2.0f, sf};
  a.rows[0].got = no_inf.data();
  expect_rejected(check_amax8(a), "newest key", "amax8: newest key not +inf");
  std::vector<float> past = {3.0f, kNaN, kInf, 4.0f};
  a.rows[0].got = past.data();
  expect_rejected(check_amax8(a), "past nk", "amax8: key past nk written");
  // Signed zero: the key of {-0, +0, -1...} may be either zero.
  std::vector<float> z(16, -1.0f);
  z[0] = -0.0f; z[5] = 0.0f;
  std::vector<float> zgot = {-0.0f, kInf, sf, sf};
  a.rows[0] = {16, z.data(), false, zgot.data(), sent.data()};
  EXPECT_ACCEPTED(check_amax8(a));
}

// Class 5 (amax8 part): key width 2, n = 24 (nk = 3 > Kk): code 3, nothing written.
TEST(OracleAmax8, Class5KeyWidthOverflowAndSkips) {
  const uint32_t sb = 0x7FA5A5A5u;
  std::vector<uint32_t> sent(2, sb);
  std::vector<float> s(24, 1.0f), untouched = {from_bits(sb), from_bits(sb)}, upstream = {1.0f, 1.0f};
  Amax8CheckArgs a;
  a.key_width = 2;
  a.rows.push_back({24, s.data(), false, untouched.data(), sent.data()});
  EXPECT_ACCEPTED(check_amax8(a));
  a.rows[0].got = upstream.data();
  expect_rejected(check_amax8(a), "row error", "class 5: amax8 wrote a code-3 row");
  a.topk = 3;  // nk = 3 <= topk: skipped, no code
  expect_rejected(check_amax8(a), "skipped", "amax8: skipped row written");
  a.rows[0].got = untouched.data();
  EXPECT_ACCEPTED(check_amax8(a));
  a.topk = 0;
  a.rows[0] = {-1, nullptr, false, untouched.data(), sent.data()};  // code 1
  EXPECT_ACCEPTED(check_amax8(a));
}

TEST(OracleCandidates, IdentityAndSortPaths) {
  std::vector<int32_t> table = {3, 9, 4};  // page_size 64 -> bpp 8
  CandidateCheckArgs a;
  a.k = 4;
  a.page_size = 64;
  std::vector<int32_t> in = {-1, 5, 5, -1};
  std::vector<int32_t> gb = {0, 1, 2, kIntMax}, gp = {24, 25, 26, kIntMax};
  a.rows.push_back({24, in.data(), table.data(), 3, false, gb.data(), gp.data()});  // nb = 3 <= K: identity
  uint32_t codes = 1;
  EXPECT_ACCEPTED(check_candidates(a, &codes));
  EXPECT_EQ(codes, 0u);
  std::vector<int32_t> in2 = {17, 3, -1, 9}, sb = {3, 9, 17, kIntMax}, sp = {27, 73, 33, kIntMax};
  a.rows[0] = {160, in2.data(), table.data(), 3, false, sb.data(), sp.data()};  // nb = 20: sort path
  EXPECT_ACCEPTED(check_candidates(a, &codes));
  EXPECT_EQ(codes, 1u << 17);  // m = 3 < min(K, nb) = 4
  std::vector<int32_t> unsorted = {17, 3, 9, kIntMax};
  a.rows[0].got_blocks = unsorted.data();
  expect_rejected(check_candidates(a, &codes), "block id", "candidates: not ascending");
  // Page entry out of range -> INT32_MIN, code 5.
  table[2] = kIntMax;
  std::vector<int32_t> sp5 = {27, 73, kIntMin, kIntMax};
  a.rows[0].got_blocks = sb.data();
  a.rows[0].got_pages = sp5.data();
  EXPECT_ACCEPTED(check_candidates(a, &codes));
  EXPECT_EQ(codes, (1u << 5) | (1u << 17));
  std::vector<int32_t> wrapped = {27, 73, static_cast<int32_t>((static_cast<uint32_t>(kIntMax) << 3) | 1), kIntMax};
  a.rows[0].got_pages = wrapped.data();
  expect_rejected(check_candidates(a, &codes), "page", "candidates: wrapped pool slot");
}

// Class 12: ids at or above the bitmap capacity / at or above nb.
TEST(OracleCandidates, Class12IdsOutOfRange) {
  std::vector<int32_t> table = {0};
  CandidateCheckArgs a;
  a.k = 4;
  a.page_size = 64;
  std::vector<int32_t> in = {0, 1, 2, 131072}, want_b = {0, 1, 2, kIntMax}, want_p = {0, 1, 2, kIntMax};
  a.rows.push_back({40, in.data(), table.data(), 1, false, want_b.data(), want_p.data()});
  uint32_t codes = 0;
  EXPECT_ACCEPTED(check_candidates(a, &codes));
  EXPECT_EQ(codes, (1u << 6) | (1u << 17));
  std::vector<int32_t> up_b = {0, 1, 2, 131072}, up_p = {0, 1, 2, kIntMin};
  a.rows[0].got_blocks = up_b.data();
  a.rows[0].got_pages = up_p.data();
  expect_rejected(check_candidates(a), "block id", "class 12: id 131072 accepted");
  std::vector<int32_t> in7 = {0, 1, 2, 7}, up7 = {0, 1, 2, 7}, up7p = {0, 1, 2, 7};
  a.rows[0] = {40, in7.data(), table.data(), 1, false, up7.data(), up7p.data()};
  expect_rejected(check_candidates(a, &codes), "block id", "class 12: id >= nb accepted");
  EXPECT_EQ(codes, (1u << 6) | (1u << 17));
  // Capacity: a sort-path row with nb > capacity is a row error (code 3), all INT32_MAX.
  a.capacity = 4;
  std::vector<int32_t> pad(4, kIntMax);
  a.rows[0] = {40, in7.data(), table.data(), 1, false, pad.data(), pad.data()};
  EXPECT_ACCEPTED(check_candidates(a, &codes));
  EXPECT_EQ(codes, 1u << 3);
}

// Class 19: duplicates leave m < min(K, nb): warning 17; a kernel that does not collapse them fails.
TEST(OracleCandidates, Class19ShortTable) {
  const int k = 2048, nb = 3000;
  std::vector<int32_t> table(nb);
  for (int i = 0; i < nb; ++i) table[i] = nb - 1 - i;  // page_size 8: map(id) = table[id]
  std::vector<int32_t> in(k);
  for (int i = 0; i < k; ++i) in[i] = nb - k + i;
  for (int i = 0; i < 10; ++i) in[i] = in[100 + i];  // 10 duplicates: m = 2038
  std::vector<int32_t> b, p;
  CandidateRow row{8 * nb, in.data(), table.data(), nb, false, nullptr, nullptr};
  uint32_t codes = 0;
  candidates_expected(row, k, 8, 131072, &b, &p, &codes);
  EXPECT_EQ(codes, 1u << 17);
  EXPECT_EQ(std::count(b.begin(), b.end(), kIntMax), 10);
  CandidateCheckArgs a;
  a.k = k;
  a.page_size = 8;
  row.got_blocks = b.data();
  row.got_pages = p.data();
  a.rows.push_back(row);
  EXPECT_ACCEPTED(check_candidates(a));
  std::vector<int32_t> kept_dups = in, kept_p(k);
  std::sort(kept_dups.begin(), kept_dups.end());
  for (int i = 0; i < k; ++i) kept_p[i] = table[kept_dups[i]];
  a.rows[0].got_blocks = kept_dups.data();
  a.rows[0].got_pages = kept_p.data();
  expect_rejected(check_candidates(a), "block id", "class 19: duplicates not collapsed");
  // Row error flag (code 1 / 3): all INT32_MAX.
  std::vector<int32_t> pad(k, kIntMax);
  a.rows[0] = {-8, in.data(), table.data(), nb, true, pad.data(), pad.data()};
  EXPECT_ACCEPTED(check_candidates(a));
  EXPECT_THROW(candidates_expected(row, k, 12, 131072, &b, &p), std::invalid_argument);
}
