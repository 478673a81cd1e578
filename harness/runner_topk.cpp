// harness/runner_topk.cpp -- drivers of the Top-K v2 entries: paged transform (+ plan), ragged
// transform, plan alone.
#include <climits>

#include "runner_detail.hpp"

namespace dsv4::harness::detail {
namespace {

constexpr int32_t kPlanPrefill = -777;  // metadata pre-fill (rows N+1..B must keep it)

HostBuf metadata_image(int64_t batch) {
  HostBuf b = make_output_image(DSV4_INT32, batch + 1, 2, 2, uint32_t(kPlanPrefill));
  return b;
}

const int32_t* table_row(const Materialized& m, const HostBuf& table, int64_t b) {
  if (!table.present || table.cols == 0) return nullptr;
  return table.ptr<int32_t>(table.stride == 0 ? 0 : b, 0);
}

// Whole-row expectation shared by the paged and ragged checks.
oracle::RowExpect row_expect(const Case& c, int64_t b) {
  return expected_row_code(c, b) != 0 ? oracle::RowExpect::RowError : oracle::RowExpect::Normal;
}

uint32_t row_code_mask(const Case& c, int64_t batch) {
  uint32_t mask = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const int32_t code = expected_row_code(c, b);
    if (code) mask |= 1u << code;
  }
  return mask;
}

}  // namespace

void drive_topk_paged(Ctx& x) {
  const Case& c = x.c;
  Materialized& m = x.m;
  const ImplTable& f = x.impl.fn();
  const int64_t B = m.batch, K = m.k;
  const bool validate = c.knobs.validate;
  auto* scores = x.add("scores", BufRole::Input, m.scores);
  auto* lens = x.add("seq_lens", BufRole::Input, m.seq_lens);
  GuardedBuffer* table = m.page_table.present ? x.add("page_table", BufRole::Input, m.page_table) : nullptr;
  auto* out = x.add("out_page_indices", BufRole::Output,
                    make_output_image(DSV4_INT32, B, std::max<int64_t>(K, 0), m.out_stride, uint32_t(kOutputSentinelI32)));
  GuardedBuffer* raw = c.mode == PagedMode::Dual
                           ? x.add("out_raw_indices", BufRole::Output,
                                   make_output_image(DSV4_INT32, B, std::max<int64_t>(K, 0), m.out_stride,
                                                     uint32_t(kOutputSentinelI32)))
                           : nullptr;
  // Plan first when this implementation writes one for B (topk_v2.md §6.3).
  int32_t written = 0;
  uint32_t plan_codes = 0;  // codes the plan kernel itself records (unchecked: negative lengths)
  GuardedBuffer* meta = nullptr;
  if (f.topk_v2_plan_is_written && f.topk_v2_plan) {
    dsv4_message pm{};
    if (f.topk_v2_plan_is_written(B, &written, &pm) != DSV4_OK) written = 0;
  }
  if (written) {
    meta = x.add("metadata", BufRole::InOut, metadata_image(B));
    const dsv4_tensor tl = lens->view();
    dsv4_tensor tm = meta->view();
    const dsv4_result pr = x.call([&](dsv4_message* msg) {
      return f.topk_v2_plan(&tl, &tm, c.knobs.static_threshold, x.be.stream(), validate ? 1 : 0, msg);
    });
    x.out.notes.push_back("plan written for B = " + std::to_string(B) + " (result " + std::to_string(int(pr)) + ")");
    if (pr == DSV4_OK)
      for (int64_t b = 0; b < B; ++b)
        if (seq_len_of(c, b) < 0) plan_codes |= 1u << DSV4_CODE_NEGATIVE_LENGTH;
  }
  const dsv4_tensor ts = scores->view(), tl = lens->view();
  dsv4_tensor tt{}, to = out->view(), tr{}, tm{};
  if (table) tt = table->view();
  if (raw) tr = raw->view();
  if (meta) tm = meta->view();
  x.call([&](dsv4_message* msg) {
    return f.topk_v2_transform_paged(&ts, &tl, table ? &tt : nullptr, &to, c.shape.page_size,
                                     meta ? &tm : nullptr, raw ? &tr : nullptr, x.be.stream(),
                                     validate ? 1 : 0, msg);
  });
  x.finish(true);

  std::string why = metadata_violation(c, m, x.impl.caps());
  if (why.empty() && validate) why = checked_violation(c, m, x.impl.caps());
  if (meta) x.exempt.push_back("metadata");  // written by the plan call, not by the transform
  if (!x.judge_host_result(why, metadata_ambiguous(c) || (B == 0 && !metadata_violation(c, m, x.impl.caps()).empty()))) {
    x.judge_status(plan_codes);  // the transform launched nothing; the plan may have run
    return;
  }
  oracle::TopkCheckArgs args;
  args.k = K;
  const HostBuf& got = x.got(out);
  const HostBuf* got_raw = raw ? &x.got(raw) : nullptr;
  for (int64_t b = 0; b < B; ++b) {
    oracle::TopkRow r;
    r.n = seq_len_of(c, b);
    r.expect = row_expect(c, b);
    if (r.expect == oracle::RowExpect::Normal) r.values_f32 = m.scores.ptr<float>(b, 0);
    if (table) {
      r.transform.kind = oracle::Transform::PageTable;
      r.transform.table = table_row(m, m.page_table, b);
      r.transform.table_width = m.page_table.cols;
      r.transform.page_bits = m.page_bits;
    }
    r.got = got.ptr<int32_t>(b, 0);
    if (got_raw) r.got_raw = got_raw->ptr<int32_t>(b, 0);
    args.rows.push_back(r);
  }
  uint32_t codes_seen = 0;
  oracle::CheckResult cr = oracle::check_topk(args, &codes_seen);
  merge_check(x.out, cr);
  x.judge_status(row_code_mask(c, B) | plan_codes | (codes_seen & (1u << 5)));
}

void drive_topk_ragged(Ctx& x) {
  const Case& c = x.c;
  Materialized& m = x.m;
  const ImplTable& f = x.impl.fn();
  const int64_t B = m.batch, K = m.k;
  const bool validate = c.knobs.validate;
  auto* scores = x.add("scores", BufRole::Input, m.scores);
  auto* lens = x.add("seq_lens", BufRole::Input, m.seq_lens);
  auto* offs = x.add("out_offsets", BufRole::Input, m.out_offsets);
  GuardedBuffer* starts = m.row_starts.present ? x.add("row_starts", BufRole::Input, m.row_starts) : nullptr;
  auto* out = x.add("out_indices", BufRole::Output,
                    make_output_image(DSV4_INT32, B, std::max<int64_t>(K, 0), m.out_stride, uint32_t(kOutputSentinelI32)));
  const dsv4_tensor ts = scores->view(), tl = lens->view(), tof = offs->view();
  dsv4_tensor trs{}, to = out->view();
  if (starts) trs = starts->view();
  x.call([&](dsv4_message* msg) {
    return f.topk_v2_transform_ragged(&ts, &tl, &tof, starts ? &trs : nullptr, &to, x.be.stream(),
                                      validate ? 1 : 0, msg);
  });
  // Compatibility mode (topk_v2.md §8): the rs mod 4 head columns of rows with n > K may change.
  const bool head = x.impl.caps().writes_ragged_head != 0;
  x.finish(true, [&](const std::string& name, int64_t row, int64_t col) {
    if (!head || name != "scores" || row >= B) return false;
    const int64_t rs = row_start_of(c, row), n = seq_len_of(c, row);
    return expected_row_code(c, row) == 0 && n > K && col >= rs - rs % 4 && col < rs;
  });
  std::string why = metadata_violation(c, m, x.impl.caps());
  if (why.empty() && validate) why = checked_violation(c, m, x.impl.caps());
  if (!x.judge_host_result(why, metadata_ambiguous(c) || (B == 0 && !metadata_violation(c, m, x.impl.caps()).empty()))) {
    x.judge_status(0);
    return;
  }
  oracle::TopkCheckArgs args;
  args.k = K;
  const HostBuf& got = x.got(out);
  for (int64_t b = 0; b < B; ++b) {
    oracle::TopkRow r;
    r.n = seq_len_of(c, b);
    r.expect = row_expect(c, b);
    if (r.expect == oracle::RowExpect::Normal) r.values_f32 = m.scores.ptr<float>(b, row_start_of(c, b));
    r.transform.kind = oracle::Transform::Identity;
    r.transform.offset = out_offset_of(c, b);
    r.got = got.ptr<int32_t>(b, 0);
    args.rows.push_back(r);
  }
  uint32_t codes_seen = 0;
  oracle::CheckResult cr = oracle::check_topk(args, &codes_seen);
  merge_check(x.out, cr);
  x.judge_status(row_code_mask(c, B));
}

void drive_plan(Ctx& x) {
  const Case& c = x.c;
  Materialized& m = x.m;
  const ImplTable& f = x.impl.fn();
  const int64_t B = m.batch;
  const bool validate = c.knobs.validate;
  auto* lens = x.add("seq_lens", BufRole::Input, m.seq_lens);
  auto* meta = x.add("metadata", BufRole::InOut, metadata_image(B));
  int32_t written = -1;
  dsv4_message wm{};
  const dsv4_result wr = f.topk_v2_plan_is_written(B, &written, &wm);
  const dsv4_tensor tl = lens->view();
  dsv4_tensor tm = meta->view();
  x.call([&](dsv4_message* msg) {
    return f.topk_v2_plan(&tl, &tm, c.knobs.static_threshold, x.be.stream(), validate ? 1 : 0, msg);
  });
  x.finish(false);
  std::string why = validate ? checked_violation(c, m, x.impl.caps()) : "";
  if (!x.judge_host_result(why)) {
    x.judge_status(0);
    return;
  }
  if (wr != DSV4_OK) {
    add_mismatch(x.out, -1, -1, "plan_is_written failed", wm.text, "DSV4_OK");
    return;
  }
  const HostBuf& got = x.got(meta);
  const HostBuf& img = meta->image();
  // Cross-check plan_is_written (topk_v2.md §2.2): written iff row 0 changed.
  const bool changed = got.bytes != img.bytes;
  x.out.notes.push_back(std::string("plan_is_written(") + std::to_string(B) + ") = " + std::to_string(written));
  if (!written && changed)
    add_mismatch(x.out, 0, -1, "plan written although plan_is_written is false", "metadata changed", "untouched");
  if (written) {
    std::vector<int32_t> lv(static_cast<size_t>(B));
    for (int64_t b = 0; b < B; ++b) lv[size_t(b)] = seq_len_of(c, b);
    const int32_t tmin = c.knobs.plan_t_min >= 0 ? c.knobs.plan_t_min : 32768;
    const bool sm100 = gpu_name().find("sm_10") != std::string::npos;
    const oracle::PlanTable table = sm100 ? oracle::plan_table_sm100() : oracle::plan_table_sm90();
    std::vector<int32_t> pre(size_t((B + 1) * 2), kPlanPrefill);
    // force_path = pool: T = 0 listing every row with n > 0 (topk_v2.md §5.4) = literal 0, T_min 0
    const bool pool = c.knobs.force_path == DSV4_PATH_POOL;
    oracle::CheckResult cr = oracle::check_plan(lv, pool ? 0 : c.knobs.static_threshold, table, pool ? 0 : tmin,
                                                got.data<int32_t>(), pre.data(), B);
    merge_check(x.out, cr);
  }
  uint32_t mask = 0;
  for (int64_t b = 0; b < B; ++b) if (seq_len_of(c, b) < 0) mask |= 1u << 1;
  // negative lengths are recorded only when the plan kernel runs (nothing launched otherwise)
  x.judge_status(written ? mask : 0);
}

}  // namespace dsv4::harness::detail
