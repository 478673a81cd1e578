// tests/kernels/topk_v2/topk_v2_test_util.cpp -- see topk_v2_test_util.hpp.
#include "tests/kernels/topk_v2/topk_v2_test_util.hpp"

#include <algorithm>
#include <sstream>

namespace tk {

Result run(Case& c, int validate, bool skip_plan) {
  Result r;
  const int OS = c.K + kGuard;
  r.out.assign(static_cast<size_t>(c.B) * OS, kFill);
  r.raw.assign(static_cast<size_t>(c.B) * OS, kFill);
  const std::vector<float> before = c.scores;
  dsv4_tensor scores = t2(c.scores.data(), DSV4_FLOAT32, c.B, c.L, c.S);
  dsv4_tensor lens = t1(c.lens.data(), DSV4_INT32, c.B);
  dsv4_tensor out = t2(r.out.data(), DSV4_INT32, c.B, c.K, OS);
  dsv4_message m{};
  if (c.ragged) {
    dsv4_tensor offs = t1(c.offsets.data(), DSV4_INT32, c.B);
    dsv4_tensor rs = t1(c.starts.data(), DSV4_INT32, c.B);
    r.rc = dsv4_topk_v2_transform_ragged(&scores, &lens, &offs, c.with_starts ? &rs : nullptr, &out,
                                         nullptr, validate, &m);
  } else {
    r.meta.assign(static_cast<size_t>(c.B + 1) * 2, -777);
    dsv4_tensor meta = t2(r.meta.data(), DSV4_INT32, c.B + 1, 2, 2);
    EXPECT_EQ(dsv4_topk_v2_plan_is_written(c.B, &r.plan_written, &m), DSV4_OK) << m.text;
    if (r.plan_written && !skip_plan) {
      r.rc = dsv4_topk_v2_plan(&lens, &meta, c.static_threshold, nullptr, validate, &m);
      if (r.rc != DSV4_OK) { r.msg = m.text; r.st = take_status(); return r; }
    }
    dsv4_tensor pt = t2(c.pt.data(), DSV4_INT32, c.B, c.W, c.W);
    dsv4_tensor raw = t2(r.raw.data(), DSV4_INT32, c.B, c.K, OS);
    r.rc = dsv4_topk_v2_transform_paged(&scores, &lens, c.table ? &pt : nullptr, &out, c.page_size,
                                        &meta, c.dual ? &raw : nullptr, nullptr, validate, &m);
  }
  r.msg = m.text;
  r.st = take_status();
  if (r.rc == DSV4_OK && c.B > 0) {
    r.paths.assign(c.B, -1);
    EXPECT_EQ(dsv4_read_row_paths(nullptr, r.paths.data(), c.B, &m), DSV4_OK) << m.text;
  }
  for (int b = 0; b < c.B; ++b)
    for (int g = 0; g < kGuard; ++g) {
      if (r.out[b * OS + c.K + g] != kFill) r.guards_ok = false;
      if (r.raw[b * OS + c.K + g] != kFill) r.guards_ok = false;
    }
  r.scores_unchanged = std::memcmp(before.data(), c.scores.data(), before.size() * 4) == 0;
  return r;
}

dsv4::oracle::CheckResult check(const Case& c, const Result& r, const std::vector<bool>& row_error) {
  using namespace dsv4::oracle;
  const int OS = c.K + kGuard;
  TopkCheckArgs args;
  args.k = c.K;
  for (int b = 0; b < c.B; ++b) {
    TopkRow row;
    const int n = c.lens[b];
    const bool err = !row_error.empty() && row_error[b];
    row.expect = err ? RowExpect::RowError : RowExpect::Normal;
    row.n = err ? 0 : n;
    const int start = c.ragged ? c.starts[b] : 0;
    row.values_f32 = c.scores.data() + static_cast<size_t>(b) * c.S + (err ? 0 : start);
    if (c.ragged) {
      row.transform.kind = Transform::Identity;
      row.transform.offset = c.offsets[b];
    } else if (c.table) {
      row.transform.kind = Transform::PageTable;
      row.transform.table = c.pt.data() + static_cast<size_t>(b) * c.W;
      row.transform.table_width = c.W;
      int bitsz = 0;
      while ((1 << bitsz) < c.page_size) ++bitsz;
      row.transform.page_bits = bitsz;
    }
    row.got = r.out.data() + static_cast<size_t>(b) * OS;
    row.got_raw = c.dual ? r.raw.data() + static_cast<size_t>(b) * OS : nullptr;
    args.rows.push_back(row);
  }
  return check_topk(args);
}

std::string describe(const dsv4::oracle::CheckResult& cr) {
  std::ostringstream o;
  o << cr.mismatch_count << " mismatches";
  for (const auto& m : cr.first)
    o << "\n  row " << m.row << " slot " << m.slot << ": " << m.what << " got " << m.got << " want " << m.want;
  return o.str();
}

std::vector<uint32_t> selected_keys(const Case& c, const Result& r, int b) {
  const int OS = c.K + kGuard;
  std::vector<uint32_t> keys;
  const int start = c.ragged ? c.starts[b] : 0;
  const int32_t* got = (c.dual ? r.raw.data() : r.out.data()) + static_cast<size_t>(b) * OS;
  for (int s = 0; s < c.K; ++s) {
    int64_t p = got[s];
    if (p < 0) { keys.push_back(0xFFFFFFFFu); continue; }
    if (c.ragged) p -= c.offsets[b];
    float x = c.scores[static_cast<size_t>(b) * c.S + start + p];
    uint32_t u;
    std::memcpy(&u, &x, 4);
    if (x == 0.0f) u = 0;  // +-0 equal
    keys.push_back(u);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace tk
