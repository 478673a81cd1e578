// tests/kernels/indexer/bf16_case.hpp -- one bf16 small top-k case on host memory: buffers with
// poison past seq_len, a column-padded output pre-filled with -12345 (guard columns), byte
// snapshots of the inputs, the ABI call and the oracle verdict (oracle::check_topk).
#pragma once
#include <algorithm>

#include "indexer_test_util.hpp"
#include "oracle/oracle.hpp"

namespace idxtest {

constexpr int kBf16Cap = DSV4_BF16_BLOCK_THREADS * 32;  // row capacity of this instantiation

struct Bf16Case {
  int64_t B, L, stride, k, out_stride, page_size, W, table_stride;
  std::vector<uint16_t> scores;
  std::vector<int32_t> lens, table, out;
  std::vector<uint8_t> row_error;  // expected device row error (codes 1-3)

  // Identity page table by default (table[b][p] = p); scores zero; poison 1e4 past each n.
  Bf16Case(int64_t B_, int64_t L_, int64_t k_, int64_t page_size_ = 8, int64_t guard_cols = 5)
      : B(B_), L(L_), stride((L_ + 7) / 8 * 8 + 8), k(k_), out_stride(k_ + guard_cols),
        page_size(page_size_) {
    W = (L + page_size - 1) / page_size + 1;
    table_stride = W;
    scores.assign(static_cast<size_t>(std::max<int64_t>(B * stride, 1)), bf16(1e4f));
    lens.assign(static_cast<size_t>(B), static_cast<int32_t>(L));
    table.resize(static_cast<size_t>(std::max<int64_t>(B * W, 1)));
    for (int64_t b = 0; b < B; ++b)
      for (int64_t p = 0; p < W; ++p) table[b * W + p] = static_cast<int32_t>(p);
    out.assign(static_cast<size_t>(std::max<int64_t>(B * out_stride, 1)), kGuardI32);
    row_error.assign(static_cast<size_t>(B), 0);
  }
  uint16_t* row(int64_t b) { return scores.data() + b * stride; }
  int32_t* trow(int64_t b) { return table.data() + b * table_stride; }
  int32_t* orow(int64_t b) { return out.data() + b * out_stride; }
  void permute_tables(Rng& rng) {  // distinct random entries per row (unique inversion)
    for (int64_t b = 0; b < B; ++b) {
      auto perm = permutation(W * 3, rng);
      for (int64_t p = 0; p < W; ++p) trow(b)[p] = perm[static_cast<size_t>(p)];
    }
  }
  void fill_normal(Rng& rng) {  // every in-window cell random normal, poison kept past n
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 0; i < std::min<int64_t>(lens[b], L); ++i) row(b)[i] = bf16(rng.normal());
  }

  dsv4_result run(bool validate, dsv4_message* m) {
    dsv4_tensor s = t2(scores.data(), DSV4_BFLOAT16, B, L, stride);
    dsv4_tensor l = t1(lens.data(), DSV4_INT32, B);
    dsv4_tensor t = t2(table.data(), DSV4_INT32, B, W, table_stride);
    dsv4_tensor o = t2(out.data(), DSV4_INT32, B, k, out_stride);
    return dsv4_topk_bf16_small_transform(&s, &l, &t, &o, page_size, nullptr, validate ? 1 : 0, m);
  }

  // Runs (checked or unchecked), then checks outputs, guard columns, input snapshots and status.
  // Returns the status block so callers can assert codes.
  dsv4_device_status run_and_check(bool validate = true, uint32_t allowed_codes = 0) {
    const auto snap_scores = scores;
    const auto snap_table = table;
    const auto snap_lens = lens;
    take_status();
    dsv4_message m{};
    const dsv4_result r = run(validate, &m);
    EXPECT_EQ(r, DSV4_OK) << m.text;
    const dsv4_device_status st = take_status();
    EXPECT_EQ(st.code_mask & ~allowed_codes, 0u) << "unexpected status codes, code " << st.code
                                                  << " row " << st.row << " value " << st.value;
    EXPECT_TRUE(scores == snap_scores) << "scores modified";
    EXPECT_TRUE(table == snap_table) << "page table modified";
    EXPECT_TRUE(lens == snap_lens) << "seq_lens modified";
    for (int64_t b = 0; b < B; ++b)
      for (int64_t c = k; c < out_stride; ++c)
        EXPECT_EQ(orow(b)[c], kGuardI32) << "guard column " << c << " of row " << b << " written";
    uint32_t codes = 0;
    const auto res = dsv4::oracle::check_topk(oracle_args(), &codes);
    EXPECT_TRUE(res.ok) << describe(res);
    EXPECT_EQ((codes & bit(5)) != 0, (st.code_mask & bit(5)) != 0)
        << "INT32_MIN slots and code 5 must come together";
    return st;
  }

  dsv4::oracle::TopkCheckArgs oracle_args() {
    dsv4::oracle::TopkCheckArgs a;
    a.k = k;
    for (int64_t b = 0; b < B; ++b) {
      dsv4::oracle::TopkRow r;
      r.n = lens[b];
      r.values_bf16 = row(b);
      r.transform.kind = dsv4::oracle::Transform::PageTable;
      r.transform.table = trow(b);
      r.transform.table_width = W;
      int bits = 0;
      while ((int64_t{1} << bits) < page_size) ++bits;
      r.transform.page_bits = bits;
      r.expect = row_error[b] || lens[b] < 0 || lens[b] > L ? dsv4::oracle::RowExpect::RowError
                                                             : dsv4::oracle::RowExpect::Normal;
      r.got = orow(b);
      a.rows.push_back(r);
    }
    return a;
  }

  static std::string describe(const dsv4::oracle::CheckResult& res) {
    std::string s = std::to_string(res.mismatch_count) + " mismatches";
    for (const auto& m : res.first)
      s += "\n  row " + std::to_string(m.row) + " slot " + std::to_string(m.slot) + ": " + m.what +
           " got " + m.got + " want " + m.want;
    return s;
  }
};

}  // namespace idxtest
