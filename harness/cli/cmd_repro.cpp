// harness/cli/cmd_repro.cpp -- `dsv4-harness repro FILE...`: replay case files, print reports.
// Exit status: 0 all passed (or were skipped), 1 some case failed, 2 usage / file / load error.
#include <cstdio>

#include "cli_common.hpp"
#include "codec.hpp"
#include "report.hpp"
#include "runner.hpp"

int cmd_repro(int argc, char** argv) {
  using namespace dsv4::harness;
  cli::CommonArgs a;
  const std::string err = cli::parse_common(argc, argv, 2, &a);
  if (!err.empty() || a.files.empty()) {
    std::fprintf(stderr, "repro: %s\nusage: dsv4-harness repro FILE... [--impl P] [--backend B] [--quiet]\n",
                 err.empty() ? "no file given" : err.c_str());
    return 2;
  }
  std::shared_ptr<Impl> impl;
  std::unique_ptr<Backend> be;
  if (!cli::open_impl(a, &impl, &be)) return 2;
  int failed = 0, skipped = 0, passed = 0, bad_files = 0;
  for (const auto& f : a.files) {
    Case c;
    try {
      c = read_case_file(f);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "repro: %s\n", e.what());
      ++bad_files;
      continue;
    }
    const Outcome o = run_case(c, *impl, *be);
    ReportContext ctx;
    ctx.case_file = f;
    ctx.impl_spec = a.impl;
    ctx.rc_params = a.rc_params;
    if (o.verdict == Verdict::Pass) ++passed;
    else if (o.verdict == Verdict::Skipped) ++skipped;
    else ++failed;
    if (a.quiet)
      std::printf("%-12s %s  %s%s\n", verdict_name(o.verdict), f.c_str(), summarize_case(c).c_str(),
                  o.reason.empty() ? "" : ("  -- " + o.reason).c_str());
    else
      std::printf("%s\n", format_report(c, o, *impl, *be, ctx).c_str());
  }
  std::printf("repro: %d passed, %d failed, %d skipped, %d unreadable\n", passed, failed, skipped, bad_files);
  if (bad_files) return 2;
  return failed ? 1 : 0;
}
