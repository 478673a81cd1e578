// harness/cli/main.cpp -- `dsv4-harness SUBCOMMAND ...`: one binary, one file per subcommand.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli_common.hpp"

namespace dsv4::harness::cli {

std::string parse_common(int argc, char** argv, int first, CommonArgs* a) {
  for (int i = first; i < argc; ++i) {
    const std::string s = argv[i];
    auto value = [&](std::string* dst) -> bool {
      if (i + 1 >= argc) return false;
      *dst = argv[++i];
      return true;
    };
    if (s == "--impl") { if (!value(&a->impl)) return "--impl needs a value"; }
    else if (s == "--backend") { if (!value(&a->backend)) return "--backend needs a value"; }
    else if (s == "--rc-params") { if (!value(&a->rc_params)) return "--rc-params needs a value"; }
    else if (s == "-o" || s == "--output") { if (!value(&a->output)) return s + " needs a value"; }
    else if (s == "--max-runs") {
      std::string v;
      if (!value(&v)) return "--max-runs needs a value";
      a->max_runs = std::atoi(v.c_str());
      if (a->max_runs <= 0) return "--max-runs must be positive";
    } else if (s == "--timeout") {
      std::string v;
      if (!value(&v)) return "--timeout needs a value";
      char* end = nullptr;
      a->timeout_s = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end || !(a->timeout_s > 0) || a->timeout_s > 1e6)
        return "--timeout must be a number of seconds in (0, 1e6]";
      a->timeout_given = true;
    } else if (s == "--isolate") a->isolate = 1;
    else if (s == "--no-isolate") a->isolate = 0;
    else if (s == "--quiet" || s == "-q") a->quiet = true;
    else if (s.size() > 1 && s[0] == '-') return "unknown option " + s;
    else a->files.push_back(s);
  }
  return "";
}

bool open_impl(const CommonArgs& a, std::shared_ptr<Impl>* impl, std::unique_ptr<Backend>* be) {
  try {
    const char* env = std::getenv("DSV4_IMPL");
    const std::string spec = !a.impl.empty() ? a.impl : (env && *env ? env : "ours");
    *impl = select_impl(spec, a.backend);
    *be = make_backend_for(**impl);
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dsv4-harness: %s\n", e.what());
    return false;
  }
}

}  // namespace dsv4::harness::cli

static void usage() {
  std::fprintf(stderr,
               "usage: dsv4-harness COMMAND [ARGS]\n"
               "  repro FILE... [--impl P.so|ours|ours-simt|ours-cuda] [--backend auto|cuda|simt] [--quiet]\n"
               "                [--isolate | --no-isolate] [--timeout SECONDS]\n"
               "                replay case files, print the report; exit 1 if any case fails.\n"
               "                --isolate: each case in a fresh child process (default on the cuda\n"
               "                backend); a crash, a poisoned CUDA context or a hang (no answer in\n"
               "                --timeout seconds, default 60; giving --timeout implies --isolate)\n"
               "                is reported in one line and the next file still runs\n"
               "  show FILE     print a case file as text (and its provenance, if recorded)\n"
               "  minimize FILE -o OUT [--impl P] [--backend B] [--max-runs N]\n"
               "                shrink a failing case keeping its verdict kind and path\n"
               "  fuzz ...      time-boxed fuzz campaign\n");
}

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "help")) {
    usage();
    return argc < 2 ? 2 : 0;
  }
  const std::string cmd = argv[1];
  if (cmd == "repro") return cmd_repro(argc, argv);
  if (cmd == "show") return cmd_show(argc, argv);
  if (cmd == "minimize") return cmd_minimize(argc, argv);
  if (cmd == "fuzz") return cmd_fuzz(argc, argv);
  std::fprintf(stderr, "dsv4-harness: unknown command '%s'\n", cmd.c_str());
  usage();
  return 2;
}
