// harness/cli/cmd_repro.cpp -- `dsv4-harness repro FILE...`: replay case files, print reports.
// Exit status: 0 all passed (or were skipped), 1 some case failed (a crash / poisoned context /
// hang counts as a failure), 2 usage / file / load error.
//
// Isolation (--isolate, default on the cuda backend): the parent never loads the implementation.
// A probe child loads it once (load errors, crashes and hangs while loading end the command with
// one line), then every case runs in its own fresh child; a child that dies by a signal, leaves a
// poisoned CUDA context or gives no answer within --timeout is reported in one line naming the
// file, the implementation and what happened, and the next file runs in a new process.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "codec.hpp"
#include "isolate.hpp"
#include "report.hpp"
#include "runner.hpp"

namespace {
using namespace dsv4::harness;

struct CaseRun {
  std::string verdict, reason, text, poisoned;  // poisoned: one line, "" when the context is fine
};

CaseRun replay(const cli::CommonArgs& a, const std::string& file, const Case& c, const Provenance& rec,
               const Impl& impl, Backend& be) {
  const Outcome o = run_case(c, impl, be);
  CaseRun r;
  r.verdict = verdict_name(o.verdict);
  r.reason = o.reason;
  if (o.verdict == Verdict::Error && !be.host_memory()) {
    try {  // a sticky CUDA error makes every later call fail: say so instead of a vague "error"
      be.synchronize();
    } catch (const std::exception& e) {
      r.poisoned = poisoned_context_line(e.what());
    }
  }
  if (a.quiet) {
    r.text = verdict_name(o.verdict);
    r.text.resize(std::max<size_t>(r.text.size(), 12), ' ');
    r.text += " " + file + "  " + summarize_case(c) + (o.reason.empty() ? "" : "  -- " + o.reason) + "\n";
    const Provenance now = make_provenance(impl, be);
    if (!rec.empty() && !same_origin(rec, now))
      r.text += "  recorded with: " + provenance_line(rec) + "\n  replayed with: " + provenance_line(now) + "\n";
  } else {
    ReportContext ctx;
    ctx.case_file = file;
    ctx.impl_spec = a.impl;
    ctx.rc_params = a.rc_params;
    ctx.recorded = rec;
    r.text = format_report(c, o, impl, be, ctx) + "\n";
  }
  return r;
}

struct Probe {
  bool ok = false;
  std::string line;      // error line, or the implementation's description
  std::string backend;   // "host" | "cuda"
};

// Loads the implementation in a child (the parent must stay free of CUDA state for fork()).
Probe probe_impl(const cli::CommonArgs& a) {
  const std::string spec = a.impl.empty() ? "$DSV4_IMPL or ours" : a.impl;
  const ChildResult r = run_in_child(
      [&](int fd) {
        std::shared_ptr<Impl> impl;
        std::unique_ptr<Backend> be;
        std::vector<std::string> f;
        try {
          const char* env = std::getenv("DSV4_IMPL");
          impl = select_impl(!a.impl.empty() ? a.impl : (env && *env ? env : "ours"), a.backend);
          be = make_backend_for(*impl);
          f = {"ok", impl->describe(), be->name()};
        } catch (const std::exception& e) {
          f = {"error", e.what(), ""};
        }
        return write_all(fd, frame_fields(f)) ? 0 : 4;
      },
      a.timeout_s);
  Probe p;
  std::vector<std::string> f;
  if (r.end != ChildResult::End::Exited || r.exit_code != 0 || !unframe_fields(r.output, &f) || f.size() != 3) {
    p.line = spec + ": " + describe_child_end(r, a.timeout_s) + " while loading the implementation";
    return p;
  }
  p.ok = f[0] == "ok";
  p.line = f[1];
  p.backend = f[2];
  return p;
}

}  // namespace

int cmd_repro(int argc, char** argv) {
  cli::CommonArgs a;
  const std::string err = cli::parse_common(argc, argv, 2, &a);
  if (!err.empty() || a.files.empty()) {
    std::fprintf(stderr,
                 "repro: %s\nusage: dsv4-harness repro FILE... [--impl P] [--backend B] [--quiet] "
                 "[--isolate | --no-isolate] [--timeout SECONDS]\n",
                 err.empty() ? "no file given" : err.c_str());
    return 2;
  }
  bool isolate = false;
  std::string impl_desc;
  std::shared_ptr<Impl> impl;
  std::unique_ptr<Backend> be;
  if (a.isolate != 0) {
    const Probe p = probe_impl(a);
    if (!p.ok) {
      std::fprintf(stderr, "dsv4-harness: %s\n", p.line.c_str());
      return 2;
    }
    impl_desc = p.line;
    isolate = a.isolate == 1 || a.timeout_given || p.backend == "cuda";
  }
  if (!isolate && !cli::open_impl(a, &impl, &be)) return 2;
  int failed = 0, skipped = 0, passed = 0, bad_files = 0;
  for (const auto& f : a.files) {
    Case c;
    Provenance rec;
    try {
      c = read_case_file(f, &rec);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "repro: %s\n", e.what());
      ++bad_files;
      continue;
    }
    CaseRun run;
    if (!isolate) {
      run = replay(a, f, c, rec, *impl, *be);
    } else {
      const ChildResult r = run_in_child(
          [&](int fd) {
            std::shared_ptr<Impl> ci;
            std::unique_ptr<Backend> cb;
            if (!cli::open_impl(a, &ci, &cb)) return 2;
            const CaseRun cr = replay(a, f, c, rec, *ci, *cb);
            return write_all(fd, frame_fields({cr.verdict, cr.reason, cr.text, cr.poisoned})) ? 0 : 4;
          },
          a.timeout_s);
      std::vector<std::string> fields;
      if (r.end == ChildResult::End::Exited && r.exit_code == 0 && unframe_fields(r.output, &fields) &&
          fields.size() == 4) {
        run = {fields[0], fields[1], fields[2], fields[3]};
      } else {
        run.verdict = "crashed";
        run.poisoned = describe_child_end(r, a.timeout_s);
      }
    }
    std::printf("%s", run.text.c_str());
    if (!run.poisoned.empty()) {
      std::printf("repro: %s: %s: %s\n", f.c_str(), isolate ? impl_desc.c_str() : impl->describe().c_str(),
                  run.poisoned.c_str());
      ++failed;
    } else if (run.verdict == "pass") {
      ++passed;
    } else if (run.verdict == "skipped") {
      ++skipped;
    } else {
      ++failed;
    }
    std::fflush(stdout);
  }
  std::printf("repro: %d passed, %d failed, %d skipped, %d unreadable\n", passed, failed, skipped, bad_files);
  if (bad_files) return 2;
  return failed ? 1 : 0;
}
