// harness/runner.cpp -- run_case and the shared driver machinery (see runner.hpp).
#include "runner.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runner_detail.hpp"

namespace dsv4::harness {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Mismatch: return "mismatch";
    case Verdict::GuardBreach: return "guard_breach";
    case Verdict::Error: return "error";
    case Verdict::Skipped: return "skipped";
  }
  return "?";
}

int32_t expected_row_code(const Case& c, int64_t b, int64_t capacity) {
  const int64_t n = seq_len_of(c, b), L = c.shape.width;
  switch (c.kernel) {
    case KernelId::TopkV2Paged: case KernelId::Bf16Small:
      return n < 0 ? 1 : n > L ? 2 : 0;
    case KernelId::TopkV2Ragged: {
      const int64_t rs = row_start_of(c, b), off = out_offset_of(c, b);
      if (n < 0) return 1;
      if (rs + n > L) return 2;
      if (rs < 0 || off < 0 || off + n - 1 > INT32_MAX) return 4;
      return 0;
    }
    case KernelId::Amax8: {
      if (n < 0) return 1;
      if (n > L) return 2;
      const int64_t nk = (n + 7) / 8;
      if (nk <= c.knobs.amax_topk) return 0;
      const int64_t kk = ((((L + 7) / 8) + 3) / 4) * 4 + c.shape.width_delta;
      return nk > kk ? 3 : 0;
    }
    case KernelId::CandidateTable: {
      if (n < 0) return 1;
      const int64_t nb = (n + 7) / 8;
      return (nb > c.shape.k && nb > capacity) ? 3 : 0;
    }
    case KernelId::TopkV2Plan: return n < 0 ? 1 : 0;
    case KernelId::Pipeline: return n < 0 ? 1 : n > L ? 2 : 0;
  }
  return 0;
}

namespace detail {

void add_mismatch(Outcome& o, int64_t row, int64_t slot, const std::string& what, const std::string& got,
                  const std::string& want) {
  oracle::Mismatch mm;
  mm.row = row;
  mm.slot = slot;
  mm.what = what;
  mm.got = got;
  mm.want = want;
  o.check.add(std::move(mm));
}

void merge_check(Outcome& o, const oracle::CheckResult& cr) {
  for (const auto& mm : cr.first) o.check.add(mm);
  o.check.mismatch_count += cr.mismatch_count - int64_t(cr.first.size());
  if (!cr.ok) o.check.ok = false;
  for (int64_t r : cr.bad_rows)
    if (std::find(o.check.bad_rows.begin(), o.check.bad_rows.end(), r) == o.check.bad_rows.end())
      o.check.bad_rows.push_back(r);
  o.check.rows_checked += cr.rows_checked;
}

GuardedBuffer* Ctx::add(const std::string& name, BufRole role, const HostBuf& image) {
  bufs.push_back(std::make_unique<GuardedBuffer>(be, int(bufs.size()), name, role, image));
  return bufs.back().get();
}

dsv4_result Ctx::call(const std::function<dsv4_result(dsv4_message*)>& fn) {
  for (auto& b : bufs) b->arm();
  std::memset(&msg, 0, sizeof msg);
  const auto t0 = std::chrono::steady_clock::now();
  const dsv4_result r = fn(&msg);
  be.synchronize();
  const auto t1 = std::chrono::steady_clock::now();
  for (auto& b : bufs) b->disarm();
  msg.text[DSV4_MESSAGE_CAPACITY - 1] = 0;
  out.millis += std::chrono::duration<double, std::milli>(t1 - t0).count();
  out.result = r;  // the last call of a driver is its entry under test
  out.entry_message = msg.text;
  return r;
}

void Ctx::finish(bool topk_paths,
                 const std::function<bool(const std::string&, int64_t, int64_t)>& allowed) {
  const ImplTable& f = impl.fn();
  if (f.check_status) {
    dsv4_message sm{};
    if (f.check_status(be.stream(), &out.status, &sm) == DSV4_OK) out.status_read = true;
    else out.notes.push_back(std::string("dsv4_check_status failed: ") + sm.text);
  }
  if (topk_paths && opt.read_paths && f.read_row_paths && impl.caps().has_row_path_report &&
      out.result == DSV4_OK && m.batch > 0) {
    out.row_paths.assign(size_t(m.batch), -1);
    dsv4_message pm{};
    if (f.read_row_paths(be.stream(), out.row_paths.data(), m.batch, &pm) != DSV4_OK) {
      out.row_paths.clear();
      out.notes.push_back(std::string("dsv4_read_row_paths failed: ") + pm.text);
    }
  }
  fetched.clear();
  for (auto& b : bufs) {
    const std::string name = b->name();
    std::function<bool(int64_t, int64_t)> a;
    if (allowed) a = [&allowed, name](int64_t r, int64_t col) { return allowed(name, r, col); };
    if (opt.check_guards) fetched.push_back(b->fetch_and_check(out.guard, a));
    else fetched.push_back(b->fetch());
  }
}

const HostBuf& Ctx::got(const GuardedBuffer* b) const {
  for (size_t i = 0; i < bufs.size(); ++i)
    if (bufs[i].get() == b) return fetched[i];
  throw std::logic_error("Ctx::got: unknown buffer");
}

bool Ctx::judge_host_result(const std::string& why, bool either_ok) {
  out.host_error_expected = !why.empty();
  out.host_error_why = why;
  if (either_ok && out.result != DSV4_OK) {
    out.notes.push_back("host error accepted (the spec leaves this case open)");
    check_nothing_written();
    return false;
  }
  if (why.empty()) {
    if (out.result == DSV4_OK) return true;
    add_mismatch(out, -1, -1, "unexpected host error", std::to_string(int(out.result)) + ": " + out.entry_message,
                 "DSV4_OK");
    return false;
  }
  if (out.result == DSV4_OK) {
    if (either_ok) return true;
    add_mismatch(out, -1, -1, "host error expected but the call succeeded", "DSV4_OK",
                 "DSV4_ERR_INVALID_ARGUMENT (" + why + ")");
    return false;
  }
  if (out.result != DSV4_ERR_INVALID_ARGUMENT)
    add_mismatch(out, -1, -1, "wrong host error code", std::to_string(int(out.result)) + ": " + out.entry_message,
                 "DSV4_ERR_INVALID_ARGUMENT (" + why + ")");
  else if (out.entry_message.empty())
    add_mismatch(out, -1, -1, "host error without a message", "\"\"", "a message naming the rule");
  check_nothing_written();
  return false;
}

void Ctx::check_nothing_written() {
  // nothing may have been written: every output / in-out buffer equals its pre-fill image
  for (size_t i = 0; i < bufs.size(); ++i) {
    if (std::find(exempt.begin(), exempt.end(), bufs[i]->name()) != exempt.end()) continue;
    const HostBuf& img = bufs[i]->image();
    if (img.bytes != fetched[i].bytes)
      add_mismatch(out, -1, -1, "buffer " + bufs[i]->name() + " written despite a host error", "changed",
                   "unchanged");
  }
}

void Ctx::judge_status(uint32_t expected) {
  const uint32_t judged = 0x7Eu | (1u << 17);  // codes 1-6 and 17
  out.codes_expected = expected & judged;
  if (!out.status_read) return;
  const uint32_t got_mask = out.status.code_mask & judged;
  if (got_mask != out.codes_expected) {
    char g[32], w[32];
    std::snprintf(g, sizeof g, "0x%X", got_mask);
    std::snprintf(w, sizeof w, "0x%X", out.codes_expected);
    add_mismatch(out, out.status.row, -1, "status code bitmask", g, w);
  }
}

}  // namespace detail

int32_t bf16_split_override() {
  const char* e = std::getenv("DSV4_BF16_SPLIT");
  return e && (std::strcmp(e, "1") == 0 || std::strcmp(e, "2") == 0 || std::strcmp(e, "4") == 0) ? e[0] - '0' : -1;
}

int32_t bf16_ctas_override() {
  const char* e = std::getenv("DSV4_BF16_CTAS_PER_SM");
  return e && (std::strcmp(e, "3") == 0 || std::strcmp(e, "4") == 0) ? e[0] - '0' : -1;
}

Outcome run_case(const Case& c, const Impl& impl, Backend& be, const Options& opt) {
  Outcome out;
  detail::Ctx x(c, impl, be, opt, out);
  try {
    x.m = materialize(c);
  } catch (const std::exception& e) {
    out.verdict = Verdict::Error;
    out.reason = e.what();
    return out;
  }
  const std::string skip = detail::capability_skip(c, x.m, impl);
  if (!skip.empty()) {
    out.verdict = Verdict::Skipped;
    out.reason = skip;
    return out;
  }
  try {
    const ImplTable& f = impl.fn();
    if (f.set_config) {
      dsv4_config cfg{};
      cfg.struct_size = sizeof cfg;
      const Knobs& k = c.knobs;
      cfg.force_path = k.force_path;
      cfg.tie_capacity = k.tie_capacity;
      cfg.register2_max = k.register2_max;
      cfg.register4_max = k.register4_max;
      cfg.cluster_floor_small = k.cluster_floor_small;
      cfg.cluster_floor_large = k.cluster_floor_large;
      cfg.small_batch_cut = k.small_batch_cut;
      cfg.cluster_max_batch = k.cluster_max_batch;
      cfg.plan_t_min = k.plan_t_min;
      cfg.cluster_enable = k.cluster_enable;
      cfg.inject_probe_c8 = k.inject_probe_c8;
      cfg.inject_probe_c16 = k.inject_probe_c16;
      cfg.early_read = k.early_read;
      cfg.mid_cluster_enable = -1;  // fields carved out of reserved[]: the default, as before
      cfg.rest_ring_off = -1;
      cfg.bf16_ctas_per_sm = bf16_ctas_override();
      cfg.bf16_split_ranks = bf16_split_override();
      for (auto& r : cfg.reserved) r = -1;
      dsv4_message cm{};
      if (f.set_config(&cfg, &cm) != DSV4_OK) {
        out.verdict = Verdict::Skipped;
        out.reason = std::string("dsv4_set_config rejected the knobs: ") + cm.text;
        return out;
      }
    }
    if (opt.set_schedule) detail::apply_schedule(impl, c.schedule);
    switch (c.kernel) {
      case KernelId::TopkV2Paged: detail::drive_topk_paged(x); break;
      case KernelId::TopkV2Ragged: detail::drive_topk_ragged(x); break;
      case KernelId::TopkV2Plan: detail::drive_plan(x); break;
      case KernelId::Bf16Small: detail::drive_bf16(x); break;
      case KernelId::Amax8: detail::drive_amax8(x); break;
      case KernelId::CandidateTable: detail::drive_candidates(x); break;
      case KernelId::Pipeline: detail::drive_pipeline(x); break;
    }
  } catch (const std::exception& e) {
    out.verdict = Verdict::Error;
    out.reason = e.what();
    return out;
  }
  if (out.verdict == Verdict::Skipped || out.verdict == Verdict::Error) return out;
  if (!out.guard.ok()) {
    out.verdict = Verdict::GuardBreach;
    out.reason = out.guard.first.front().text();
  } else if (!out.check.ok) {
    out.verdict = Verdict::Mismatch;
    const auto& f0 = out.check.first.empty() ? oracle::Mismatch{} : out.check.first.front();
    out.reason = "row " + std::to_string(f0.row) + ": " + f0.what;
  } else {
    out.verdict = Verdict::Pass;
  }
  return out;
}

}  // namespace dsv4::harness
