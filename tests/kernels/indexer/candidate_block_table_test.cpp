// tests/kernels/indexer/candidate_block_table_test.cpp -- sort_candidate_blocks through the ABI
// on the simt build, checked slot by slot by oracle::check_candidates plus the exact status-code
// set (spec candidate_block_table.md §8; bug classes 3, 11, 12, 19, 22).
#include "cand_case.hpp"

using namespace idxtest;

namespace {

// Upstream grid (§8): lengths with K = 2048 and K = 256, page sizes 64 and 128, permutation
// tables, id distributions uniform / clustered / newest / queue-only, identity <-> sort switch.
TEST(CandidateTable, UpstreamGrid) {
  struct Group { int64_t K; std::vector<int32_t> lens; };
  const std::vector<Group> groups = {{2048, {1, 8, 16384, 16385, 16392}},
                                     {2048, {40000, 131072, 65537, 1048576}},
                                     {2048, {1048576, 1048571, 300000}},
                                     {256, {2049, 9000, 20000}}};
  Rng rng(0xCB7);
  for (int64_t ps : {int64_t{64}, int64_t{128}}) {
    for (const auto& g : groups) {
      for (int dist = 0; dist < 4; ++dist) {
        if (dist != 0 && ps == 128) continue;  // CPU time: every distribution once
        CandCase c(static_cast<int64_t>(g.lens.size()), g.K, ps, g.lens, rng);
        for (int64_t b = 0; b < c.B; ++b)
          if (c.nb(b) > c.K) c.fill_ids(b, dist, rng);
        SCOPED_TRACE("ps " + std::to_string(ps) + " K " + std::to_string(g.K) + " dist " + std::to_string(dist));
        c.run_and_check(dist == 0, dist == 0);
      }
    }
  }
}

// Class 12 minimal triggers: K = 4, n = 40 (nb = 5, sort path), page_size 64. An id at the bitmap
// capacity and an id >= nb are dropped with code 6 (and warning 17: m = 3 < 4).
TEST(CandidateTable, IdsPastNbAndCapacity) {
  Rng rng(12);
  for (int32_t bad : {131072, 7, 5, INT32_MAX, -2, INT32_MIN, 262144, 131071}) {
    CandCase c(1, 4, 64, {40}, rng);
    const int32_t ids[4] = {0, 1, 2, bad};
    std::copy(ids, ids + 4, c.brow(0));
    SCOPED_TRACE("bad id " + std::to_string(bad));
    const auto st = c.run_and_check();
    EXPECT_EQ(st.code_mask, bit(6) | bit(17));
    EXPECT_EQ(c.brow(0)[3], INT32_MAX);
  }
  CandCase c(1, 4, 64, {40}, rng);  // ids at nb - 1 and -1 padding: no code 6
  const int32_t ids[4] = {4, -1, 0, 4};
  std::copy(ids, ids + 4, c.brow(0));
  EXPECT_EQ(c.run_and_check().code_mask, bit(17));
  EXPECT_EQ(c.brow(0)[0], 0);
  EXPECT_EQ(c.brow(0)[1], 4);
}

// Duplicates collapse; -1 padding; K not a multiple of 32; single- and multi-bit words. m < K
// raises warning 17 (class 19 detector), m == K raises nothing.
TEST(CandidateTable, DuplicatesPaddingAndWarning17) {
  Rng rng(19);
  for (int64_t K : {int64_t{37}, int64_t{100}, int64_t{2048}}) {
    CandCase c(3, K, 128, {int32_t(8 * 3000), int32_t(8 * 3000 - 3), int32_t(8 * 70000)}, rng);
    for (int64_t b = 0; b < 3; ++b) c.fill_ids(b, static_cast<int>(b), rng);
    for (int64_t j = 0; j < K / 4; ++j) c.brow(1)[j] = c.brow(1)[K - 1 - j];  // duplicates
    for (int64_t j = 0; j < K / 3; ++j) c.brow(2)[j] = -1;                     // padding
    const auto st = c.run_and_check();
    EXPECT_EQ(st.code_mask, bit(17));
    EXPECT_EQ(st.count, 2u) << "one count per incomplete row";
  }
}

// Class 3: negative lengths give an all INT32_MAX row and code 1 (checked: host error naming the
// row); nb > capacity on the base bitmap gives code 3 (checked mode rejects the table width).
TEST(CandidateTableGuards, NegativeLengthAndCapacity) {
  Rng rng(3);
  for (int32_t bad : {-1, -7, -8, INT32_MIN}) {
    CandCase c(2, 64, 64, {bad, 9000}, rng);
    c.fill_ids(1, 0, rng);
    for (int j = 0; j < 64; ++j) c.brow(0)[j] = j;
    c.row_error[0] = 1;
    dsv4_message m{};
    ASSERT_EQ(c.run(true, &m), DSV4_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(m.text).find("seq_lens[0] = " + std::to_string(bad)), std::string::npos) << m.text;
    const auto st = c.run_and_check(false, false);
    EXPECT_EQ(st.code_mask, bit(1));
    EXPECT_EQ(c.brow(0)[0], INT32_MAX);
  }
  const int32_t n = 8 * 131073;  // nb = 131073 > 131072 with a base-variant table (W*bpp = 131072)
  CandCase c(1, 64, 64, {n}, rng, 131072 / 8);
  c.fill_ids(0, 0, rng);
  dsv4_message m{};
  ASSERT_EQ(c.run(true, &m), DSV4_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(m.text).find("page_table width"), std::string::npos) << m.text;
  EXPECT_EQ(c.run_and_check(false, false).code_mask, bit(3));  // the oracle derives code 3
}

// The 8-word (2M-token) variant is chosen when W * bpp > 131072 and sorts rows past 131072
// blocks; W * bpp > 262144 is rejected.
TEST(CandidateTable, WideVariant) {
  Rng rng(262144);
  CandCase c(2, 2048, 64, {8 * 200000, 8 * 262144}, rng, 262144 / 8);
  c.fill_ids(0, 0, rng);
  c.fill_ids(1, 2, rng);
  ASSERT_EQ(c.capacity(), 262144);
  EXPECT_EQ(c.run_and_check(true, false).code_mask, 0u);
  EXPECT_EQ(c.brow(1)[2047], 262143);
  CandCase d(1, 64, 64, {64}, rng, 262144 / 8 + 1);
  dsv4_message m{};
  EXPECT_EQ(d.run(true, &m), DSV4_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(m.text).find("262144"), std::string::npos) << m.text;
}

// Class 11: entries at INT32_MAX >> log2(page_size) are legal, one above / -1 give INT32_MIN +
// code 5 in exactly those slots; a table column past W (unchecked) likewise. Page sizes 8, 2^20.
TEST(CandidateTable, PoolSlotMappingRange) {
  Rng rng(11);
  for (int64_t ps : {int64_t{8}, int64_t{64}, int64_t{1} << 20}) {
    int lg = 0;
    while ((int64_t{1} << lg) < ps) ++lg;
    const int64_t bpp = ps / 8;
    const int32_t n = static_cast<int32_t>(std::min<int64_t>(8 * 4 * bpp, 8 * 5000));
    for (bool identity : {true, false}) {
      const int64_t K = identity ? 2048 : 16;
      CandCase c(1, K, ps, {identity ? std::min<int32_t>(n, 8 * 2048) : n}, rng);
      if (!identity) c.fill_ids(0, 0, rng);
      c.table[0] = INT32_MAX >> lg;  // legal maximum
      if (c.W > 1) c.table[1] = (INT32_MAX >> lg) + 1;
      if (c.W > 2) c.table[2] = -1;
      SCOPED_TRACE("ps " + std::to_string(ps) + (identity ? " identity" : " sort"));
      c.run_and_check();
    }
  }
  CandCase c(1, 32, 64, {8 * 100}, rng, 5);  // nb = 100 needs 13 pages; W = 5 (unchecked)
  c.fill_ids(0, 0, rng);
  dsv4_message m{};
  ASSERT_EQ(c.run(true, &m), DSV4_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(c.run_and_check(false).code_mask & bit(5));
}

// Class 22 and every metadata contract: InvalidArgument, nothing written (both modes).
TEST(CandidateTableArgs, MetadataErrors) {
  Rng rng(22);
  CandCase c(2, 64, 64, {9000, 100}, rng);
  c.fill_ids(0, 0, rng);
  struct Bad { const char* what; std::function<void(dsv4_tensor&, dsv4_tensor&, dsv4_tensor&, dsv4_tensor*&, int64_t&)> edit; };
  const std::vector<Bad> bads = {
      {"out_pages aliases blocks", [](auto& b, auto&, auto&, auto*& o, auto&) { o->data = b.data; }},
      {"out_pages NULL", [](auto&, auto&, auto&, auto*& o, auto&) { o = nullptr; }},
      {"page_size 4", [](auto&, auto&, auto&, auto*&, auto& ps) { ps = 4; }},
      {"page_size 48", [](auto&, auto&, auto&, auto*&, auto& ps) { ps = 48; }},
      {"page_size 0", [](auto&, auto&, auto&, auto*&, auto& ps) { ps = 0; }},
      {"K = 0", [](auto& b, auto&, auto&, auto*& o, auto&) { b.sizes[1] = 0; o->sizes[1] = 0; }},
      {"K = 2049", [](auto& b, auto&, auto&, auto*& o, auto&) { b.sizes[1] = 2049; o->sizes[1] = 2049; }},
      {"out width != K", [](auto&, auto&, auto&, auto*& o, auto&) { o->sizes[1] = 32; }},
      {"blocks stride < K", [](auto& b, auto&, auto&, auto*&, auto&) { b.strides[0] = 60; }},
      {"seq_lens length", [](auto&, auto& l, auto&, auto*&, auto&) { l.sizes[0] = 3; }},
      {"table dtype", [](auto&, auto&, auto& t, auto*&, auto&) { t.dtype = DSV4_FLOAT32; }},
      {"blocks aliases table", [](auto& b, auto&, auto& t, auto*&, auto&) { t.data = b.data; }},
  };
  for (const auto& bad : bads)
    for (int validate : {1, 0}) {
      dsv4_tensor b = t2(c.blocks.data(), DSV4_INT32, 2, 64, c.stride), l = t1(c.lens.data(), DSV4_INT32, 2);
      dsv4_tensor t = t2(c.table.data(), DSV4_INT32, 2, c.W, c.table_stride);
      dsv4_tensor ob = t2(c.out.data(), DSV4_INT32, 2, 64, c.stride);
      dsv4_tensor* o = &ob;
      int64_t ps = 64;
      bad.edit(b, l, t, o, ps);
      const auto sb = c.blocks, so = c.out;
      dsv4_message m{};
      EXPECT_EQ(dsv4_sort_candidate_blocks(&b, &l, &t, ps, o, nullptr, validate, &m), DSV4_ERR_INVALID_ARGUMENT) << bad.what;
      EXPECT_NE(std::string(m.text).find("sort_candidate_blocks"), std::string::npos) << m.text;
      EXPECT_TRUE(c.blocks == sb && c.out == so) << bad.what << ": written after a host error";
    }
  dsv4_tensor b = t2(nullptr, DSV4_INT32, 0, 64, 64), l = t1(nullptr, DSV4_INT32, 0);
  dsv4_tensor t = t2(nullptr, DSV4_INT32, 0, 4, 4), o = t2(nullptr, DSV4_INT32, 0, 64, 64);
  dsv4_message m{};
  EXPECT_EQ(dsv4_sort_candidate_blocks(&b, &l, &t, 64, &o, nullptr, 1, &m), DSV4_OK) << "B = 0: " << m.text;
}

}  // namespace
