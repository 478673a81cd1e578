// tests/harness/test_materialize.cpp -- the deterministic materializer and its float helpers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "harness/fpbits.hpp"
#include "harness/materialize.hpp"

using namespace dsv4::harness;

namespace {

Case fixed_paged() {
  Case c = make_topk_paged(3, 100, 16, Dist::Randn, 42);
  c.seq_lens = {100, 50, -1};
  c.shape.stride_pad = 4;
  c.shape.base_offset = 4;
  c.mode = PagedMode::Dual;
  c.shape.page_size = 8;
  c.table_kind = TableKind::PerRowPermutation;
  c.table_seed = 11;
  c.table_injections.push_back({1, -1, TableEntry::OneAbove, 0});
  c.rows[0].injections.push_back({InjKind::BinOverflow, 0, 30, 12, 0, 3008});
  c.rows[0].injections.push_back({InjKind::NaNSprinkle, 0, 3, 0, 0, 0});
  c.rows[0].injections.push_back({InjKind::LargestLast, 0, 0, 0, 0, 0});
  c.poison = Poison::Mixed;
  return c;
}

Case fixed_bf16() {
  Case c = make_bf16(2, 640, 64, Dist::SignedZeros, 7);
  c.rows.push_back(RowRecipe{Dist::Midpoints, 9, 10, {{InjKind::KthTie, 0, 5, 0, 0, 0}}, {0x7F80, 0xFF80}});
  return c;
}

Case fixed_candidates() {
  Case c = make_candidates(2, 40000, 256, 64, Dist::CandOutOfRange, 5);
  c.table_kind = TableKind::Random;
  return c;
}

uint32_t f32(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

}  // namespace

// The same description gives the same bits on every machine and compiler. If a deliberate change
// of the materializer moves these constants, every corpus file changes meaning: bump the codec
// version or keep the old behaviour.
TEST(Materialize, FixedCasesHashToCommittedConstants) {
  EXPECT_EQ(hash_materialized(materialize(fixed_paged())), 0x0603F10BA3F84FB5ull);
  EXPECT_EQ(hash_materialized(materialize(fixed_bf16())), 0x2BBF40E900A16A68ull);
  EXPECT_EQ(hash_materialized(materialize(fixed_candidates())), 0x2041240FF5440DE0ull);
}

TEST(Materialize, IsDeterministicAndSeedSensitive) {
  EXPECT_EQ(hash_materialized(materialize(fixed_paged())), hash_materialized(materialize(fixed_paged())));
  Case c = fixed_paged();
  c.rows[0].seed ^= 1;
  EXPECT_NE(hash_materialized(materialize(c)), hash_materialized(materialize(fixed_paged())));
}

TEST(Materialize, LayoutIsTightAndPoisonFillsEverythingOutsideTheWindows) {
  Case c = make_topk_ragged(3, 50, 8, Dist::Uniform, 3);
  c.has_row_starts = true;
  c.row_starts = {5, 0, 49};
  c.seq_lens = {20, 50, 1};
  c.shape.stride_pad = 2;
  c.shape.base_offset = 4;
  c.poison = Poison::Huge;
  const Materialized m = materialize(c);
  const int64_t S = 52;
  EXPECT_EQ(m.scores.stride, S);
  EXPECT_EQ(m.scores.offset, 4);
  EXPECT_EQ(m.scores.numel_alloc(), 4 + 2 * S + 50);  // ends at the last row's column L-1
  for (int64_t i = 0; i < m.scores.numel_alloc(); ++i) {
    const int64_t rel = i - 4;
    const int64_t row = rel < 0 ? -1 : rel / S, col = rel < 0 ? -1 : rel % S;
    const bool in_window = row >= 0 && col >= m.win_start[size_t(row)] &&
                           col < m.win_start[size_t(row)] + m.win_len[size_t(row)];
    const uint32_t v = reinterpret_cast<const uint32_t*>(m.scores.bytes.data())[i];
    if (in_window) EXPECT_NE(v, fp::kHuge1e30) << i;
    else EXPECT_EQ(v, fp::kHuge1e30) << "cell " << i << " row " << row << " col " << col;
  }
  EXPECT_EQ(m.win_start[0], 5);
  EXPECT_EQ(m.win_len[0], 20);
  EXPECT_EQ(m.win_len[2], 1);
  EXPECT_FALSE(m.page_table.present);
  EXPECT_TRUE(m.row_starts.present);
  EXPECT_EQ(m.out_stride, 8 + 3);
}

TEST(Materialize, DistributionsLandWhereTheSpecSays) {
  auto row = [](Dist d, uint32_t param, int64_t n, int32_t k = 16) {
    Case c = make_topk_paged(1, int32_t(n), k, d, 77);
    c.rows[0].param = param;
    return make_row_values(c, 0, n, 1234);
  };
  for (uint32_t v : row(Dist::Distinct12, 0, 4000)) EXPECT_EQ(fp::bin_w(v, 12), 3008);
  for (uint32_t v : row(Dist::Distinct10, 0, 4000)) EXPECT_EQ(fp::bin_w(v, 10), 752);
  for (uint32_t v : row(Dist::Tiny, 0, 1000)) EXPECT_EQ(fp::bin_w(v, 12), 2048);
  for (uint32_t v : row(Dist::Huge, 0, 1000)) EXPECT_EQ(fp::bin_w(v, 12), 4032);
  const auto ties = row(Dist::Ties, 0, 1000);
  for (uint32_t v : ties) EXPECT_TRUE(v == 0x3F800000u || v == 0x3F800001u);
  const auto ni = row(Dist::NegInf, 5, 100);
  EXPECT_LE(std::count_if(ni.begin(), ni.end(), [](uint32_t v) { return v != fp::kNegInf; }), 5);
  for (uint32_t v : row(Dist::Midpoints, 0, 500)) {  // exactly at an uncorrected negative-bin midpoint
    EXPECT_EQ(v >> 31, 1u);
    EXPECT_NE(fp::bin_w(v, 12), fp::bin_w(fp::step_ulps(v, 1), 12)) << std::hex << v;
  }
}

// A recipe's param is fuzzed: a distinct-id count past the row's length must not cost more than
// the row (corpus/fuzz_candidate_block_table/02499ff1…: param 654311424 allocated 2.6 GB and took
// 34 s). Capped at the row, 4x the row draws the same ids as the row itself.
TEST(Materialize, CandidateDuplicatesParamIsCappedAtTheRow) {
  auto ids = [](uint32_t param) {
    Case c = make_candidates(1, 40000, 64, 64, Dist::CandDuplicates, 9);
    c.rows[0].param = param;
    return make_row_values(c, 0, 64, 4321);
  };
  const auto at_row = ids(64);
  EXPECT_EQ(ids(256), at_row);
  EXPECT_EQ(ids(654311424u), at_row);
  EXPECT_NE(ids(8), at_row);  // below the cap the param still counts
}

TEST(Materialize, InjectionsDoWhatTheyName) {
  Case c = make_topk_paged(1, 5000, 512, Dist::Randn, 1);
  c.rows[0].injections = {{InjKind::BinOverflow, 0, 3000, 12, 0, 3008}, {InjKind::LargestLast, 0, 0, 0, 0, 0}};
  auto v = make_row_values(c, 0, 5000, 99);
  EXPECT_GE(std::count_if(v.begin(), v.end(), [](uint32_t x) { return fp::bin_w(x, 12) == 3008; }), 2049);
  for (uint32_t x : v) EXPECT_LE(fp::bin_w(x, 12), 3008);
  auto by_key = [](uint32_t a, uint32_t b) { return fp::key32(a) < fp::key32(b); };
  EXPECT_EQ(v.back(), *std::max_element(v.begin(), v.end(), by_key));  // largest placed last

  c.rows[0].injections = {{InjKind::BinEdge, 3, 2, 12, -1, 1024}, {InjKind::RneMidpoint, 0, 2, 12, 0, 1024},
                          {InjKind::Bits, -1, 1, 0, 0, 0x80000000u}};
  v = make_row_values(c, 0, 10, 5);
  EXPECT_EQ(v[0], 0xBFFFF000u);                       // the U3 midpoint of bin 1024
  EXPECT_EQ(v[3], fp::step_ulps(0xBFFFEFFFu, -1));    // one ulp below the corrected bound
  EXPECT_EQ(fp::bin_w(v[3], 12), 1023);
  EXPECT_EQ(v[9], 0x80000000u);                       // negative positions count from the end

  c.rows[0].injections = {{InjKind::NaNSprinkle, 0, 7, 0, 0, 0}};
  v = make_row_values(c, 0, 100, 5);
  EXPECT_EQ(std::count_if(v.begin(), v.end(), [](uint32_t x) { return fp::is_nan(x); }), 7);

  // largest-first: the k / 2 largest values lead the window, descending; the multiset is kept
  c.rows[0].injections = {};
  const auto plain = make_row_values(c, 0, 5000, 7);
  c.rows[0].injections = {{InjKind::LargestFirst, 0, 0, 0, 0, 0}};
  v = make_row_values(c, 0, 5000, 7);
  auto sorted_plain = plain, sorted_v = v;
  std::sort(sorted_plain.begin(), sorted_plain.end(), by_key);
  std::sort(sorted_v.begin(), sorted_v.end(), by_key);
  EXPECT_EQ(sorted_plain, sorted_v);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(v[size_t(i)], sorted_v[sorted_v.size() - 1 - size_t(i)]) << i;
  EXPECT_LE(fp::key32(v[256]), fp::key32(v[255]));
}

TEST(FpBits, Landmarks) {
  EXPECT_EQ(fp::bin_w(f32(1.0f), 12), 3008);
  EXPECT_EQ(fp::bin_w(f32(1.0f), 10), 752);
  EXPECT_EQ(fp::bin_w(0x80000000u, 12), 2047);
  EXPECT_EQ(fp::bin_w(0u, 12), 2048);
  EXPECT_EQ(fp::bin_w(fp::kPosInf, 12), 4032);
  EXPECT_EQ(fp::bin_w(fp::kNegInf, 12), 63);
  EXPECT_EQ(fp::bin_w(fp::kQNaN, 12), 4095);
  EXPECT_EQ(fp::bin_w(0xFFC00000u, 10), 1023);
  EXPECT_EQ(fp::lower_bound_bits(1024, 12), 0xBFFFEFFFu);
  EXPECT_EQ(fp::lower_bound_bits(64, 12), 0xC77FEFFFu);
  EXPECT_EQ(fp::lower_bound_bits(4032, 12), 0x477FF000u);
  EXPECT_EQ(fp::lower_bound_bits(2048, 12), 0u);
  EXPECT_EQ(fp::lower_bound_bits(4033, 12), fp::kPosInf);
  EXPECT_EQ(fp::f32_to_bf16_rne(f32(1.0f)), 0x3F80);
  EXPECT_EQ(fp::f32_to_bf16_rne(0x3F808000u), 0x3F80);  // tie to even
  EXPECT_EQ(fp::f32_to_bf16_rne(0x3F818000u), 0x3F82);
  EXPECT_EQ(fp::f16_to_f32(0x3C00), f32(1.0f));
  EXPECT_EQ(fp::f16_to_f32(0x0001), f32(5.9604644775390625e-8f));
}

TEST(FpBits, CorrectedLowerBoundIsExactForEveryBin) {
  for (int w : {10, 12}) {
    const int lo = fp::bin_w(fp::kNegInf, w) + 1, hi = fp::bin_w(fp::kPosInf, w);
    for (int b = lo; b <= hi; ++b) {
      const uint32_t lb = fp::lower_bound_bits(b, w);
      ASSERT_EQ(fp::bin_w(lb, w), b) << "w " << w << " bin " << b;
      ASSERT_EQ(fp::bin_w(fp::step_ulps(lb, -1), w), b - 1) << "w " << w << " bin " << b;
    }
  }
}

TEST(FpBits, Fp16RoundingMatchesAnExhaustiveWideningCheck) {
  // every fp16 value widens and rounds back to itself; midpoints round to the even code
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00) == 0x7C00) continue;
    ASSERT_EQ(fp::f32_to_f16_rne(fp::f16_to_f32(uint16_t(h))), h) << std::hex << h;
    const uint16_t next = uint16_t(h + 1);
    if ((next & 0x7C00) == 0x7C00 || (h & 0x7FFF) == 0x7FFF || h == 0x8000 - 1) continue;
    const uint32_t mid = fp::fp16_midpoint(uint16_t(h), next);
    const uint16_t even = (h & 1) ? next : uint16_t(h);
    ASSERT_EQ(fp::f32_to_f16_rne(mid), even) << std::hex << h;
  }
}
