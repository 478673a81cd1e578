// tests/kernels/indexer/cand_case.hpp -- one sort_candidate_blocks case on host memory: both
// outputs with guard columns pre-filled with -12345, the ABI call, the oracle verdict
// (oracle::check_candidates), the exact status-code set and bitwise repeatability.
#pragma once
#include <algorithm>

#include "indexer_test_util.hpp"
#include "oracle/oracle.hpp"

namespace idxtest {

struct CandCase {
  int64_t B, K, stride, page_size, bpp, W, table_stride;
  std::vector<int32_t> blocks, lens, table, out;
  std::vector<uint8_t> row_error;

  // W defaults to the pages covering the longest row; tables are random permutations.
  CandCase(int64_t B_, int64_t K_, int64_t page_size_, const std::vector<int32_t>& lens_, Rng& rng,
           int64_t W_ = -1, int64_t guard = 3)
      : B(B_), K(K_), stride(K_ + guard), page_size(page_size_), bpp(page_size_ / 8), lens(lens_) {
    int64_t max_nb = 1;
    for (int32_t n : lens) max_nb = std::max<int64_t>(max_nb, (int64_t{n} + 7) / 8);
    W = W_ >= 0 ? W_ : (max_nb + bpp - 1) / bpp;
    table_stride = std::max<int64_t>(W, 1);
    table.resize(static_cast<size_t>(B * table_stride));
    for (int64_t b = 0; b < B; ++b) {
      auto perm = permutation(table_stride, rng);
      std::copy(perm.begin(), perm.end(), table.begin() + b * table_stride);
    }
    blocks.assign(static_cast<size_t>(B * stride), kGuardI32);
    out.assign(static_cast<size_t>(B * stride), kGuardI32);
    row_error.assign(static_cast<size_t>(B), 0);
  }
  int32_t* brow(int64_t b) { return blocks.data() + b * stride; }
  int32_t* orow(int64_t b) { return out.data() + b * stride; }
  int64_t nb(int64_t b) const { return (int64_t{lens[b]} + 7) / 8; }
  int64_t capacity() const { return W * bpp > 131072 ? 262144 : 131072; }

  // Id distributions of the upstream tests (spec §8) for a sort-path row.
  void fill_ids(int64_t b, int dist, Rng& rng) {
    const int64_t n_b = nb(b);
    std::vector<int32_t> ids;
    if (dist == 0) {  // uniform distinct, newest included
      std::vector<uint8_t> used(static_cast<size_t>(n_b), 0);
      used[n_b - 1] = 1;
      ids.push_back(static_cast<int32_t>(n_b - 1));
      while (static_cast<int64_t>(ids.size()) < std::min(K, n_b)) {
        const int64_t x = rng.uniform(0, n_b - 1);
        if (!used[x]) { used[x] = 1; ids.push_back(static_cast<int32_t>(x)); }
      }
    } else if (dist == 1) {  // clustered: runs of 64 plus scattered
      std::vector<uint8_t> used(static_cast<size_t>(n_b), 0);
      while (static_cast<int64_t>(ids.size()) < std::min(K, n_b)) {
        const bool run = rng.next() % 2;
        const int64_t s = rng.uniform(0, n_b - 1);
        for (int64_t j = 0; j < (run ? 64 : 1) && static_cast<int64_t>(ids.size()) < K && s + j < n_b; ++j)
          if (!used[s + j]) { used[s + j] = 1; ids.push_back(static_cast<int32_t>(s + j)); }
      }
    } else if (dist == 2) {  // newest: the last K blocks (every word full)
      for (int64_t j = 0; j < K; ++j) ids.push_back(static_cast<int32_t>(n_b - K + j));
    } else {  // queue-only: K consecutive ids aligned to 32
      const int64_t s = (rng.uniform(0, n_b - K) / 32) * 32;
      for (int64_t j = 0; j < K; ++j) ids.push_back(static_cast<int32_t>(s + j));
    }
    ids.resize(static_cast<size_t>(K), -1);  // rows with nb < K: -1 padding
    rng.shuffle(ids);
    std::copy(ids.begin(), ids.end(), brow(b));
  }

  dsv4_result run(bool validate, dsv4_message* m) {
    dsv4_tensor bl = t2(blocks.data(), DSV4_INT32, B, K, stride);
    dsv4_tensor l = t1(lens.data(), DSV4_INT32, B);
    dsv4_tensor t = t2(table.data(), DSV4_INT32, B, W, table_stride);
    dsv4_tensor o = t2(out.data(), DSV4_INT32, B, K, stride);
    return dsv4_sort_candidate_blocks(&bl, &l, &t, page_size, &o, nullptr, validate ? 1 : 0, m);
  }

  // Runs, checks every slot against the oracle, the guard columns, the table snapshot, the exact
  // status-code set, and (repeat) a second run on the same input for bitwise repeatability.
  dsv4_device_status run_and_check(bool validate = true, bool repeat = true) {
    const auto in = blocks;
    const auto snap_table = table;
    take_status();
    dsv4_message m{};
    EXPECT_EQ(run(validate, &m), DSV4_OK) << m.text;
    const auto st = take_status();
    EXPECT_TRUE(table == snap_table) << "page table modified";
    dsv4::oracle::CandidateCheckArgs a;
    a.k = K;
    a.page_size = static_cast<int32_t>(page_size);
    a.capacity = capacity();
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t c = K; c < stride; ++c) {
        EXPECT_EQ(brow(b)[c], kGuardI32) << "blocks guard column " << c << " row " << b;
        EXPECT_EQ(orow(b)[c], kGuardI32) << "out_pages guard column " << c << " row " << b;
      }
      dsv4::oracle::CandidateRow r;
      r.n = lens[b];
      r.blocks_in = in.data() + b * stride;
      r.table = table.data() + b * table_stride;
      r.table_width = W;
      r.row_error = row_error[b];
      r.got_blocks = brow(b);
      r.got_pages = orow(b);
      a.rows.push_back(r);
    }
    uint32_t codes = 0;
    const auto res = dsv4::oracle::check_candidates(a, &codes);
    std::string why;
    for (const auto& mm : res.first)
      why += "\n row " + std::to_string(mm.row) + " slot " + std::to_string(mm.slot) + ": " +
             mm.what + " got " + mm.got + " want " + mm.want;
    EXPECT_TRUE(res.ok) << res.mismatch_count << " mismatches" << why;
    EXPECT_EQ(st.code_mask, codes) << "status codes differ from the oracle's (code " << st.code
                                   << " row " << st.row << " value " << st.value << ")";
    if (repeat) {
      const auto first_blocks = blocks, first_out = out;
      blocks = in;
      out.assign(out.size(), kGuardI32);
      EXPECT_EQ(run(validate, &m), DSV4_OK) << m.text;
      take_status();
      EXPECT_TRUE(blocks == first_blocks && out == first_out) << "not bitwise repeatable";
    }
    return st;
  }
};

}  // namespace idxtest
