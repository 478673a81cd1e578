// harness/runner_misc.cpp -- drivers of the bf16 small top-k, block amax and candidate table.
#include <climits>

#include "runner_detail.hpp"

namespace dsv4::harness::detail {
namespace {

const int32_t* table_row(const HostBuf& table, int64_t b) {
  if (!table.present || table.cols == 0) return nullptr;
  return table.ptr<int32_t>(table.stride == 0 ? 0 : b, 0);
}

uint32_t row_code_mask(const Case& c, int64_t batch, int64_t capacity) {
  uint32_t mask = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const int32_t code = expected_row_code(c, b, capacity);
    if (code) mask |= 1u << code;
  }
  return mask;
}

std::string expected_host_error(Ctx& x) {
  std::string why = metadata_violation(x.c, x.m, x.impl.caps());
  if (why.empty() && x.c.knobs.validate) why = checked_violation(x.c, x.m, x.impl.caps());
  return why;
}

bool either_ok(Ctx& x) {
  return metadata_ambiguous(x.c) || (x.m.batch == 0 && !metadata_violation(x.c, x.m, x.impl.caps()).empty());
}

}  // namespace

void drive_bf16(Ctx& x) {
  const Case& c = x.c;
  Materialized& m = x.m;
  const ImplTable& f = x.impl.fn();
  const int64_t B = m.batch, K = m.k;
  auto* scores = x.add("scores", BufRole::Input, m.scores);
  auto* lens = x.add("seq_lens", BufRole::Input, m.seq_lens);
  auto* table = x.add("page_table", BufRole::Input, m.page_table);
  auto* out = x.add("out_page_indices", BufRole::Output,
                    make_output_image(DSV4_INT32, B, std::max<int64_t>(K, 0), m.out_stride, uint32_t(kOutputSentinelI32)));
  const dsv4_tensor ts = scores->view(), tl = lens->view(), tt = table->view();
  dsv4_tensor to = out->view();
  x.call([&](dsv4_message* msg) {
    return f.topk_bf16_small_transform(&ts, &tl, &tt, &to, c.shape.page_size, x.be.stream(),
                                       c.knobs.validate ? 1 : 0, msg);
  });
  x.finish(false);
  if (!x.judge_host_result(expected_host_error(x), either_ok(x))) {
    x.judge_status(0);
    return;
  }
  oracle::TopkCheckArgs args;
  args.k = K;
  const HostBuf& got = x.got(out);
  for (int64_t b = 0; b < B; ++b) {
    oracle::TopkRow r;
    r.n = seq_len_of(c, b);
    r.expect = expected_row_code(c, b) ? oracle::RowExpect::RowError : oracle::RowExpect::Normal;
    if (r.expect == oracle::RowExpect::Normal) r.values_bf16 = m.scores.ptr<uint16_t>(b, 0);
    r.transform.kind = oracle::Transform::PageTable;
    r.transform.table = table_row(m.page_table, b);
    r.transform.table_width = m.page_table.cols;
    r.transform.page_bits = m.page_bits;
    r.got = got.ptr<int32_t>(b, 0);
    args.rows.push_back(r);
  }
  uint32_t codes_seen = 0;
  merge_check(x.out, oracle::check_topk(args, &codes_seen));
  x.judge_status(row_code_mask(c, B, 0) | (codes_seen & (1u << 5)));
}

void drive_amax8(Ctx& x) {
  const Case& c = x.c;
  Materialized& m = x.m;
  const ImplTable& f = x.impl.fn();
  const int64_t B = m.batch, KK = m.k;
  auto* scores = x.add("scores", BufRole::Input, m.scores);
  auto* lens = x.add("seq_lens", BufRole::Input, m.seq_lens);
  auto* out = x.add("out_keys", BufRole::Output,
                    make_output_image(DSV4_FLOAT32, B, std::max<int64_t>(KK, 0), m.out_stride, kOutputSentinelF32));
  const dsv4_tensor ts = scores->view(), tl = lens->view();
  dsv4_tensor to = out->view();
  x.call([&](dsv4_message* msg) {
    return f.amax8_varlen(&ts, &tl, &to, c.knobs.amax_topk, x.be.stream(), c.knobs.validate ? 1 : 0, msg);
  });
  x.finish(false);
  if (!x.judge_host_result(expected_host_error(x), either_ok(x))) {
    x.judge_status(0);
    return;
  }
  oracle::Amax8CheckArgs args;
  args.key_width = KK;
  args.topk = c.knobs.amax_topk;
  const HostBuf& got = x.got(out);
  std::vector<uint32_t> sentinel(size_t(std::max<int64_t>(KK, 0)), kOutputSentinelF32);
  for (int64_t b = 0; b < B; ++b) {
    oracle::Amax8Row r;
    r.n = seq_len_of(c, b);
    r.row_error = expected_row_code(c, b) != 0;
    if (!r.row_error) r.scores = m.scores.ptr<float>(b, 0);
    r.got = got.ptr<float>(b, 0);
    r.sentinel = sentinel.data();
    args.rows.push_back(r);
  }
  merge_check(x.out, oracle::check_amax8(args));
  x.judge_status(row_code_mask(c, B, 0));
}

void drive_candidates(Ctx& x) {
  const Case& c = x.c;
  Materialized& m = x.m;
  const ImplTable& f = x.impl.fn();
  const int64_t B = m.batch, K = m.k;
  const int64_t capacity = effective_candidate_capacity(x.impl.caps(), m.page_table.cols, c.shape.page_size);
  auto* blocks = x.add("blocks", BufRole::InOut, m.blocks_in);
  auto* lens = x.add("seq_lens", BufRole::Input, m.seq_lens);
  auto* table = x.add("page_table", BufRole::Input, m.page_table);
  auto* pages = x.add("out_pages", BufRole::Output,
                      make_output_image(DSV4_INT32, B, std::max<int64_t>(K, 0), m.out_stride, uint32_t(kOutputSentinelI32)));
  dsv4_tensor tb = blocks->view(), to = pages->view();
  const dsv4_tensor tl = lens->view(), tt = table->view();
  x.call([&](dsv4_message* msg) {
    return f.sort_candidate_blocks(&tb, &tl, &tt, c.shape.page_size, &to, x.be.stream(),
                                   c.knobs.validate ? 1 : 0, msg);
  });
  x.finish(false);
  if (!x.judge_host_result(expected_host_error(x), either_ok(x))) {
    x.judge_status(0);
    return;
  }
  oracle::CandidateCheckArgs args;
  args.k = K;
  args.page_size = int32_t(c.shape.page_size);
  args.capacity = capacity;
  const HostBuf& gb = x.got(blocks);
  const HostBuf& gp = x.got(pages);
  for (int64_t b = 0; b < B; ++b) {
    oracle::CandidateRow r;
    r.n = seq_len_of(c, b);
    r.blocks_in = m.blocks_in.ptr<int32_t>(b, 0);
    r.table = table_row(m.page_table, b);
    r.table_width = m.page_table.cols;
    r.row_error = expected_row_code(c, b, capacity) != 0;
    r.got_blocks = gb.ptr<int32_t>(b, 0);
    r.got_pages = gp.ptr<int32_t>(b, 0);
    args.rows.push_back(r);
  }
  uint32_t codes_seen = 0;
  merge_check(x.out, oracle::check_candidates(args, &codes_seen));
  x.judge_status(row_code_mask(c, B, capacity) | codes_seen);
}

}  // namespace dsv4::harness::detail
