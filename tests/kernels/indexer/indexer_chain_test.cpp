// tests/kernels/indexer/indexer_chain_test.cpp -- steps 4 and 5 of the two-level indexer chained
// (spec README §2): sort_candidate_blocks feeding the bf16 consumer through phys_blocks. Bug class
// 19: a short table (duplicate ids) raises warning 17 at step 4, and the consumer's selected columns
// that map through INT32_MAX entries become INT32_MIN + code 5; a complete table raises nothing.
#include "bf16_case.hpp"

using namespace idxtest;

namespace {

TEST(IndexerChain, ShortTableReachesConsumer) {
  const int64_t K = std::min<int64_t>(64, kBf16Cap / 8), nblk = 100, len = 8 * nblk - 3;
  const int64_t m_full = std::min(K, nblk);
  const int64_t valid_len = 8 * (m_full - 1) + ((len - 1) % 8) + 1;
  Rng rng(19);
  for (int dups : {0, 10}) {
    // Step 3 stand-in: K distinct ids in [0, nblk) including the newest, then `dups` duplicates.
    std::vector<int32_t> ids = {static_cast<int32_t>(nblk - 1)};
    std::vector<int32_t> rest;
    for (int64_t i = 0; i + 1 < nblk; ++i) rest.push_back(static_cast<int32_t>(i));
    rng.shuffle(rest);
    ids.insert(ids.end(), rest.begin(), rest.begin() + (K - 1));
    for (int d = 0; d < dups; ++d) ids[K - 1 - d] = ids[d];
    rng.shuffle(ids);
    // Step 4: index page table with page size 64 (bpp 8).
    const int64_t W = (nblk + 7) / 8;
    std::vector<int32_t> index_table = permutation(W, rng), lens = {static_cast<int32_t>(len)};
    std::vector<int32_t> phys(static_cast<size_t>(K), kGuardI32);
    dsv4_tensor bt = t2(ids.data(), DSV4_INT32, 1, K, K), lt = t1(lens.data(), DSV4_INT32, 1);
    dsv4_tensor it = t2(index_table.data(), DSV4_INT32, 1, W, W), pt = t2(phys.data(), DSV4_INT32, 1, K, K);
    dsv4_message m{};
    take_status();
    ASSERT_EQ(dsv4_sort_candidate_blocks(&bt, &lt, &it, 64, &pt, nullptr, 1, &m), DSV4_OK) << m.text;
    const auto st4 = take_status();
    EXPECT_EQ(st4.code_mask, dups ? bit(17) : 0u) << "warning 17 is the detector of a short table";
    if (!dups) EXPECT_EQ(ids[K - 1], nblk - 1) << "newest block last";
    // Step 5: consumer scores; the columns past the real blocks carry the largest values.
    const int64_t m_real = dups ? K - dups : K;
    Bf16Case c(1, 8 * K, 16);
    c.lens[0] = static_cast<int32_t>(valid_len);
    c.W = K;
    c.table_stride = K;
    c.table = phys;
    for (int64_t j = 0; j < valid_len; ++j) c.row(0)[j] = bf16(j >= 8 * m_real ? 100.0f + j : float(j % 29));
    const auto st5 = c.run_and_check(true, bit(5));
    EXPECT_EQ((st5.code_mask & bit(5)) != 0, dups != 0);
    int bad_slots = 0;
    for (int64_t s = 0; s < 16; ++s) bad_slots += c.orow(0)[s] == INT32_MIN;
    EXPECT_EQ(bad_slots, dups ? 16 : 0);
  }
}

}  // namespace
