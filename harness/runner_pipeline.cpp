// harness/runner_pipeline.cpp -- the Pipeline kernel id (spec README §2, decode chain):
//   (2) amax8_varlen(logits, len, topk 0) -> keys
//   (3) Top-K v2 paged, INDICES, K = k2, lengths nblk = ceil(len/8) (+ plan)   -> blocks
//   (4) sort_candidate_blocks(blocks, len, index page table, page_size)        -> blocks, phys
//   (5) bf16 small top-k over the gathered consumer row, page table phys, page size 8
// Each stage runs in its own guarded buffers and is checked by its own oracle against the ACTUAL
// output of the stage before it; plus the composition contracts of README §2 and an end-to-end
// inversion of the final slots through the index page table (injective tables).
#include <algorithm>
#include <climits>
#include <set>

#include "fpbits.hpp"
#include "runner_detail.hpp"

namespace dsv4::harness::detail {
namespace {

void merge_stage(Outcome& into, Outcome& st, const std::string& stage) {
  for (auto mm : st.check.first) {
    mm.what = "[" + stage + "] " + mm.what;
    into.check.add(mm);
  }
  into.check.mismatch_count += st.check.mismatch_count - int64_t(st.check.first.size());
  into.check.rows_checked += st.check.rows_checked;
  for (auto b : st.guard.first) {
    b.buffer = stage + "." + b.buffer;
    into.guard.add(b);
  }
  into.guard.count += st.guard.count - int64_t(st.guard.first.size());
  for (auto& n : st.notes) into.notes.push_back("[" + stage + "] " + n);
  into.millis += st.millis;
  if (st.status_read) {
    into.status_read = true;
    into.status.code_mask |= st.status.code_mask;
    into.status.count += st.status.count;
    if (st.status.code_mask) {
      into.status.code = st.status.code;
      into.status.kernel = st.status.kernel;
      into.status.row = st.status.row;
      into.status.value = st.status.value;
    }
  }
  into.codes_expected |= st.codes_expected;
  if (into.result == DSV4_OK && st.result != DSV4_OK) {
    into.result = st.result;
    into.entry_message = "[" + stage + "] " + st.entry_message;
  }
}

HostBuf vec_buf(const std::vector<int32_t>& v) {
  HostBuf b;
  b.dtype = DSV4_INT32;
  b.ndim = 1;
  b.rows = 1;
  b.cols = int64_t(v.size());
  b.stride = b.cols;
  b.present = true;
  b.bytes.resize(v.size() * 4);
  for (size_t i = 0; i < v.size(); ++i) reinterpret_cast<int32_t*>(b.bytes.data())[i] = v[i];
  return b;
}

uint16_t bf16_poison(Poison p, int64_t cell) {
  switch (p) {
    case Poison::PosInf: return 0x7F80;
    case Poison::Huge: return fp::f32_to_bf16_rne(fp::kHuge1e30);
    case Poison::NaN: return 0x7FC0;
    case Poison::Mixed: { static const uint16_t v[3] = {0x7F80, 0x7149, 0x7FC0}; return v[cell % 3]; }
  }
  return 0x7F80;
}

}  // namespace

void drive_pipeline(Ctx& x) {
  const Case& c = x.c;
  Materialized& m = x.m;
  const ImplTable& f = x.impl.fn();
  const dsv4_capabilities& caps = x.impl.caps();
  const int64_t B = m.batch, L = c.shape.width, K = c.shape.k, K2 = c.shape.k2 > 0 ? c.shape.k2 : 2048;
  const int32_t validate = c.knobs.validate ? 1 : 0;
  std::string bad = metadata_violation(c, m, caps);
  if (bad.empty()) bad = checked_violation(c, m, caps);
  if (!bad.empty()) {
    x.out.verdict = Verdict::Skipped;
    x.out.reason = "pipeline needs an in-contract chain: " + bad;
    return;
  }
  if (K2 * 8 > caps.bf16_len_max) {
    x.out.verdict = Verdict::Skipped;
    x.out.reason = "consumer width k2*8 = " + std::to_string(K2 * 8) + " above bf16_len_max";
    return;
  }
  const size_t nrows = static_cast<size_t>(B);
  std::vector<int32_t> len(nrows), nblk(nrows), vlen(nrows);
  for (int64_t b = 0; b < B; ++b) {
    len[size_t(b)] = seq_len_of(c, b);
    nblk[size_t(b)] = (len[size_t(b)] + 7) / 8;
    const int64_t n = len[size_t(b)];
    vlen[size_t(b)] = n == 0 ? 0 : int32_t(8 * (std::min<int64_t>(nblk[size_t(b)], K2) - 1) + ((n - 1) % 8) + 1);
  }
  const int64_t Kk = ((((L + 7) / 8) + 3) / 4) * 4;
  std::vector<char> contract_holds(nrows, 0);  // README §2 contract 1 conditions, per row
  const int64_t key_stride = std::max<int64_t>(Kk + 4, 4);

  // (2) block amax
  Outcome sa;
  Ctx a(c, x.impl, x.be, x.opt, sa);
  a.m.batch = B;
  auto* logits = a.add("logits", BufRole::Input, m.scores);
  auto* lens = a.add("seq_lens", BufRole::Input, m.seq_lens);
  auto* keys = a.add("keys", BufRole::Output, make_output_image(DSV4_FLOAT32, B, Kk, key_stride, kOutputSentinelF32));
  {
    const dsv4_tensor tl = logits->view(), tn = lens->view();
    dsv4_tensor tk = keys->view();
    a.call([&](dsv4_message* msg) { return f.amax8_varlen(&tl, &tn, &tk, 0, x.be.stream(), validate, msg); });
    a.finish(false);
    if (a.judge_host_result("")) {
      oracle::Amax8CheckArgs args;
      args.key_width = Kk;
      args.topk = 0;
      std::vector<uint32_t> sentinel(size_t(Kk), kOutputSentinelF32);
      const HostBuf& got = a.got(keys);
      for (int64_t b = 0; b < B; ++b) {
        oracle::Amax8Row r;
        r.n = len[size_t(b)];
        r.scores = m.scores.ptr<float>(b, 0);
        r.got = got.ptr<float>(b, 0);
        r.sentinel = sentinel.data();
        args.rows.push_back(r);
      }
      merge_check(sa, oracle::check_amax8(args));
    }
    a.judge_status(0);
  }
  merge_stage(x.out, sa, "amax8");
  if (sa.result != DSV4_OK) return;
  HostBuf keys_host = a.got(keys);

  // (3) block selection: Top-K v2 paged, INDICES, K = k2, lengths nblk (+ plan)
  Outcome sb;
  Ctx s3(c, x.impl, x.be, x.opt, sb);
  s3.m.batch = B;
  auto* kin = s3.add("keys", BufRole::Input, keys_host);
  auto* nl = s3.add("nblk", BufRole::Input, vec_buf(nblk));
  auto* blocks = s3.add("blocks", BufRole::Output,
                        make_output_image(DSV4_INT32, B, K2, K2 + 3, uint32_t(kOutputSentinelI32)));
  {
    int32_t written = 0;
    GuardedBuffer* meta = nullptr;
    if (f.topk_v2_plan_is_written && f.topk_v2_plan) {
      dsv4_message pm{};
      if (f.topk_v2_plan_is_written(B, &written, &pm) != DSV4_OK) written = 0;
    }
    const dsv4_tensor tk = kin->view(), tn = nl->view();
    dsv4_tensor tb = blocks->view(), tm{};
    if (written) {
      meta = s3.add("metadata", BufRole::InOut, make_output_image(DSV4_INT32, B + 1, 2, 2, uint32_t(-777)));
      tm = meta->view();
      s3.call([&](dsv4_message* msg) {
        return f.topk_v2_plan(&tn, &tm, c.knobs.static_threshold, x.be.stream(), validate, msg);
      });
    }
    s3.call([&](dsv4_message* msg) {
      return f.topk_v2_transform_paged(&tk, &tn, nullptr, &tb, 1, meta ? &tm : nullptr, nullptr, x.be.stream(),
                                       validate, msg);
    });
    s3.finish(true);
    x.out.row_paths = sb.row_paths;
    if (s3.judge_host_result("")) {
      oracle::TopkCheckArgs args;
      args.k = K2;
      const HostBuf& got = s3.got(blocks);
      for (int64_t b = 0; b < B; ++b) {
        oracle::TopkRow r;
        r.n = nblk[size_t(b)];
        r.values_f32 = keys_host.ptr<float>(b, 0);
        r.got = got.ptr<int32_t>(b, 0);
        args.rows.push_back(r);
      }
      merge_check(sb, oracle::check_topk(args));
      // Composition contract 1: min(k2, nblk) distinct ids in [0, nblk) including nblk - 1.
      for (int64_t b = 0; b < B; ++b) {
        const int64_t nb = nblk[size_t(b)];
        int64_t pos_inf = 0, non_nan = 0;
        for (int64_t i = 0; i < nb; ++i) {
          const uint32_t u = keys_host.at<uint32_t>(b, i);
          if (u == fp::kPosInf) ++pos_inf;
          if (!fp::is_nan(u)) ++non_nan;
        }
        const bool holds = nb <= K2 || (pos_inf - 1 <= K2 - 1 && non_nan >= K2);
        contract_holds[size_t(b)] = holds;
        if (!holds || nb == 0) continue;
        std::set<int32_t> ids;
        for (int64_t t = 0; t < K2; ++t) {
          const int32_t id = got.at<int32_t>(b, t);
          if (id >= 0 && id < nb) ids.insert(id);
        }
        if (int64_t(ids.size()) != std::min(K2, nb) || !ids.count(int32_t(nb - 1)))
          add_mismatch(sb, b, -1, "composition contract: block selection must hold min(k2, nblk) distinct ids incl. the newest",
                       std::to_string(ids.size()) + " ids" + (ids.count(int32_t(nb - 1)) ? "" : ", newest missing"),
                       std::to_string(std::min(K2, nb)) + " ids incl. " + std::to_string(nb - 1));
      }
    }
    s3.judge_status(0);
  }
  merge_stage(x.out, sb, "block-topk");
  if (sb.result != DSV4_OK) return;
  HostBuf blocks_host = s3.got(blocks);

  // (4) candidate table
  Outcome sc;
  Ctx s4(c, x.impl, x.be, x.opt, sc);
  s4.m.batch = B;
  HostBuf blocks_in = blocks_host;
  auto* bl = s4.add("blocks", BufRole::InOut, blocks_in);
  auto* tl4 = s4.add("seq_lens", BufRole::Input, m.seq_lens);
  auto* tab = s4.add("index_page_table", BufRole::Input, m.page_table);
  auto* phys = s4.add("phys_blocks", BufRole::Output,
                      make_output_image(DSV4_INT32, B, K2, K2 + 3, uint32_t(kOutputSentinelI32)));
  const int64_t capacity = effective_candidate_capacity(caps, m.page_table.cols, c.shape.page_size);
  {
    dsv4_tensor tb = bl->view(), tp = phys->view();
    const dsv4_tensor tn = tl4->view(), tt = tab->view();
    s4.call([&](dsv4_message* msg) {
      return f.sort_candidate_blocks(&tb, &tn, &tt, c.shape.page_size, &tp, x.be.stream(), validate, msg);
    });
    s4.finish(false);
    uint32_t codes = 0;
    if (s4.judge_host_result("")) {
      oracle::CandidateCheckArgs args;
      args.k = K2;
      args.page_size = int32_t(c.shape.page_size);
      args.capacity = capacity;
      const HostBuf& gb = s4.got(bl);
      const HostBuf& gp = s4.got(phys);
      for (int64_t b = 0; b < B; ++b) {
        oracle::CandidateRow r;
        r.n = len[size_t(b)];
        r.blocks_in = blocks_host.ptr<int32_t>(b, 0);
        r.table = m.page_table.cols ? m.page_table.ptr<int32_t>(m.page_table.stride ? b : 0, 0) : nullptr;
        r.table_width = m.page_table.cols;
        r.row_error = (nblk[size_t(b)] > K2 && nblk[size_t(b)] > capacity);
        r.got_blocks = gb.ptr<int32_t>(b, 0);
        r.got_pages = gp.ptr<int32_t>(b, 0);
        args.rows.push_back(r);
      }
      merge_check(sc, oracle::check_candidates(args, &codes));
    }
    s4.judge_status(codes);
  }
  merge_stage(x.out, sc, "candidates");
  if (sc.result != DSV4_OK) return;
  const HostBuf sorted = s4.got(bl);
  const HostBuf phys_host = s4.got(phys);

  // (5) consumer: gather C through the sorted blocks, bf16 top-k with page table phys, page size 8
  const int64_t W5 = K2 * 8;
  HostBuf cons;
  cons.dtype = DSV4_BFLOAT16;
  cons.rows = B;
  cons.cols = W5;
  cons.stride = W5;
  cons.present = true;
  cons.bytes.assign(size_t(B * W5) * 2, 0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t j = 0; j < W5; ++j) {
      uint16_t v = bf16_poison(c.poison, b * W5 + j);
      if (j < vlen[size_t(b)]) {
        const int64_t id = sorted.at<int32_t>(b, j >> 3);
        const int64_t p = id * 8 + (j & 7);
        if (id >= 0 && id < nblk[size_t(b)] && p < len[size_t(b)]) v = m.source_bf16.at<uint16_t>(b, p);
      }
      cons.at<uint16_t>(b, j) = v;
    }
  Outcome sd;
  Ctx s5(c, x.impl, x.be, x.opt, sd);
  s5.m.batch = B;
  auto* cs = s5.add("consumer_scores", BufRole::Input, cons);
  auto* vl = s5.add("valid_len", BufRole::Input, vec_buf(vlen));
  auto* ph = s5.add("phys_blocks", BufRole::Input, phys_host);
  auto* fin = s5.add("final", BufRole::Output, make_output_image(DSV4_INT32, B, K, K + 3, uint32_t(kOutputSentinelI32)));
  {
    const dsv4_tensor ts = cs->view(), tn = vl->view(), tp = ph->view();
    dsv4_tensor to = fin->view();
    s5.call([&](dsv4_message* msg) {
      return f.topk_bf16_small_transform(&ts, &tn, &tp, &to, 8, x.be.stream(), validate, msg);
    });
    s5.finish(false);
    uint32_t codes = 0;
    if (s5.judge_host_result("")) {
      oracle::TopkCheckArgs args;
      args.k = K;
      const HostBuf& got = s5.got(fin);
      for (int64_t b = 0; b < B; ++b) {
        oracle::TopkRow r;
        r.n = vlen[size_t(b)];
        r.values_bf16 = cons.ptr<uint16_t>(b, 0);
        r.transform.kind = oracle::Transform::PageTable;
        r.transform.table = phys_host.ptr<int32_t>(b, 0);
        r.transform.table_width = K2;
        r.transform.page_bits = 3;
        r.got = got.ptr<int32_t>(b, 0);
        args.rows.push_back(r);
      }
      merge_check(sd, oracle::check_topk(args, &codes));
      // End to end (injective index tables, rows where the composition contract holds): every
      // final slot inverts to a real position of a selected block.
      const bool injective = c.table_kind != TableKind::Random && c.table_injections.empty();
      const int32_t pbits = page_bits_of(c.shape.page_size);
      for (int64_t b = 0; injective && b < B; ++b) {
        if (!contract_holds[size_t(b)]) continue;
        const int32_t* trow = m.page_table.cols ? m.page_table.ptr<int32_t>(m.page_table.stride ? b : 0, 0) : nullptr;
        std::set<int64_t> selected;
        for (int64_t t = 0; t < K2; ++t) selected.insert(sorted.at<int32_t>(b, t));
        for (int64_t t = 0; t < K; ++t) {
          const int64_t s = got.at<int32_t>(b, t);
          if (s == -1 || s == INT32_MIN || !trow) continue;
          const int64_t page = s >> pbits;
          int64_t col = -1;
          for (int64_t w = 0; w < m.page_table.cols; ++w) if (trow[w] == page) { col = w; break; }
          const int64_t p = col < 0 ? -1 : (col << pbits) | (s & (c.shape.page_size - 1));
          if (p < 0 || p >= len[size_t(b)] || !selected.count(p / 8))
            add_mismatch(sd, b, t, "end to end: final slot does not invert to a real position of a selected block",
                         std::to_string(s) + " -> position " + std::to_string(p), "position < len of a selected block");
        }
      }
    }
    s5.judge_status(codes & (1u << 5));
  }
  merge_stage(x.out, sd, "consumer");
}

}  // namespace dsv4::harness::detail
