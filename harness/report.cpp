// harness/report.cpp -- the one report format (see report.hpp).
#include "report.hpp"

#include <cstdio>
#include <map>
#include <sstream>

#include "codec.hpp"
#include "runner.hpp"

namespace dsv4::harness {
namespace {

const char* path_name(int32_t p) {
  switch (p) {
    case DSV4_PATH_AUTO: return "auto";
    case DSV4_PATH_TRIVIAL: return "trivial";
    case DSV4_PATH_REGISTER2: return "register2";
    case DSV4_PATH_REGISTER4: return "register4";
    case DSV4_PATH_STREAMING: return "streaming";
    case DSV4_PATH_CLUSTER8: return "cluster8";
    case DSV4_PATH_CLUSTER16: return "cluster16";
    case DSV4_PATH_POOL: return "pool";
    case DSV4_PATH_ROW_ERROR: return "row_error";
    case DSV4_PATH_CLUSTER4: return "cluster4";
    case DSV4_PATH_CLUSTER2: return "cluster2";
    default: return "?";
  }
}

std::string codes(uint32_t mask) {
  if (!mask) return "none";
  std::string s;
  for (int b = 1; b < 32; ++b)
    if (mask & (1u << b)) s += (s.empty() ? "" : ",") + std::to_string(b);
  return s;
}

}  // namespace

std::string repro_command(const ReportContext& ctx) {
  const int32_t occ = bf16_ctas_override();
  const int32_t split = bf16_split_override();
  std::string cmd = std::string(occ > 0 ? "DSV4_BF16_CTAS_PER_SM=" + std::to_string(occ) + " " : "") +
                    std::string(split > 0 ? "DSV4_BF16_SPLIT=" + std::to_string(split) + " " : "") +
                    "dsv4-harness repro " + (ctx.case_file.empty() ? std::string("<case file not written>") : ctx.case_file);
  if (!ctx.impl_spec.empty()) cmd += " --impl " + ctx.impl_spec;
  return cmd;
}

std::string format_report(const Case& c, const Outcome& o, const Impl& impl, const Backend& be,
                          const ReportContext& ctx) {
  std::ostringstream r;
  r << "==== dsv4-harness report: " << verdict_name(o.verdict);
  if (!o.reason.empty()) r << " (" << o.reason << ")";
  r << "\n";
  r << "case             " << summarize_case(c) << "\n";
  if (ctx.full_case) {
    std::istringstream lines(show_case(c));
    std::string line;
    while (std::getline(lines, line)) r << "  | " << line << "\n";
  }
  r << "implementation   " << impl.describe() << "\n";
  r << "backend          " << be.name() << " on " << be.device_name() << "\n";
  if (!ctx.recorded.empty()) {
    const Provenance now = make_provenance(impl, be);
    r << "recorded with:   " << provenance_line(ctx.recorded) << "\n";
    r << "replayed with:   " << provenance_line(now)
      << (same_origin(ctx.recorded, now) ? "" : "   <-- differs from the recording") << "\n";
  }
  if (!o.row_paths.empty()) {
    std::map<int32_t, int64_t> hist;
    for (int32_t p : o.row_paths) ++hist[p];
    r << "dispatch paths   ";
    for (auto& [p, n] : hist) r << path_name(p) << " x" << n << "  ";
    r << "\n                 per row:";
    for (size_t i = 0; i < o.row_paths.size() && i < 32; ++i) r << " " << path_name(o.row_paths[i]);
    if (o.row_paths.size() > 32) r << " ...";
    r << "\n";
  } else {
    r << "dispatch paths   (not reported)\n";
  }
  r << "entry result     " << int(o.result) << (o.entry_message.empty() ? "" : ": " + o.entry_message) << "\n";
  if (o.host_error_expected) r << "expected         host error: " << o.host_error_why << "\n";
  if (o.status_read) {
    r << "status block     codes {" << codes(o.status.code_mask) << "} count " << o.status.count << " record (code "
      << o.status.code << ", kernel " << o.status.kernel << ", row " << o.status.row << ", value " << o.status.value
      << "); expected codes {" << codes(o.codes_expected) << "}\n";
  } else {
    r << "status block     (not read)\n";
  }
  r << "oracle           " << (o.check.ok ? "ok" : "MISMATCH") << ", " << o.check.mismatch_count << " mismatch(es), "
    << o.check.rows_checked << " row(s) checked\n";
  for (const auto& m : o.check.first) {
    r << "  row " << m.row;
    if (m.slot >= 0) r << " slot " << m.slot;
    r << ": " << m.what << "\n      got:  " << m.got << "\n      want: " << m.want << "\n";
  }
  if (!o.check.bad_rows.empty()) {
    r << "  failing rows:";
    for (size_t i = 0; i < o.check.bad_rows.size() && i < 32; ++i) r << " " << o.check.bad_rows[i];
    if (o.check.bad_rows.size() > 32) r << " ... (" << o.check.bad_rows.size() << ")";
    r << "\n";
  }
  r << o.guard.text();
  for (const auto& n : o.notes) r << "note             " << n << "\n";
  char t[64];
  std::snprintf(t, sizeof t, "%.3f ms", o.millis);
  r << "time             " << t << "\n";
  r << "replay           " << repro_command(ctx) << "\n";
  if (!ctx.rc_params.empty()) r << "rapidcheck       " << ctx.rc_params << "\n";
  return r.str();
}

}  // namespace dsv4::harness
