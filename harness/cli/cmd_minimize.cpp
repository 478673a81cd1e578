// harness/cli/cmd_minimize.cpp -- `dsv4-harness minimize FILE -o OUT`: shrink a failing case.
#include <cstdio>

#include "cli_common.hpp"
#include "codec.hpp"
#include "minimize.hpp"
#include "report.hpp"
#include "runner.hpp"

int cmd_minimize(int argc, char** argv) {
  using namespace dsv4::harness;
  cli::CommonArgs a;
  const std::string err = cli::parse_common(argc, argv, 2, &a);
  if (!err.empty() || a.files.size() != 1 || a.output.empty()) {
    std::fprintf(stderr, "minimize: %s\nusage: dsv4-harness minimize FILE -o OUT [--impl P] [--backend B] [--max-runs N]\n",
                 !err.empty() ? err.c_str() : "need exactly one FILE and -o OUT");
    return 2;
  }
  Case c;
  try {
    c = read_case_file(a.files[0]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "minimize: %s\n", e.what());
    return 2;
  }
  std::shared_ptr<Impl> impl;
  std::unique_ptr<Backend> be;
  if (!cli::open_impl(a, &impl, &be)) return 2;
  const Outcome first = run_case(c, *impl, *be);
  if (first.verdict == Verdict::Pass || first.verdict == Verdict::Skipped) {
    std::fprintf(stderr, "minimize: %s does not fail (%s); nothing to minimize\n", a.files[0].c_str(),
                 verdict_name(first.verdict));
    return 2;
  }
  const FailureClass cls = failure_class(first);
  MinimizeStats st;
  const Case small = minimize_case(
      c, [&](const Case& cand) { return same_failure(cls, run_case(cand, *impl, *be)); }, a.max_runs, &st);
  try {
    write_case_file(a.output, small, make_provenance(*impl, *be));  // who found it, where
  } catch (const std::exception& e) {
    std::fprintf(stderr, "minimize: %s\n", e.what());
    return 2;
  }
  const Outcome last = run_case(small, *impl, *be);
  ReportContext ctx;
  ctx.case_file = a.output;
  ctx.impl_spec = a.impl;
  std::printf("minimize: %d runs, %d accepted steps: %s -> %s\n", st.runs, st.accepted,
              summarize_case(c).c_str(), summarize_case(small).c_str());
  std::printf("%s\n", format_report(small, last, *impl, *be, ctx).c_str());
  return 0;
}
