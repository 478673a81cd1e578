// harness/cli/cli_common.hpp -- argument helpers shared by the subcommands.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend.hpp"
#include "impl.hpp"

namespace dsv4::harness::cli {

struct CommonArgs {
  std::string impl;                 // --impl P ("" = env DSV4_IMPL or ours)
  std::string backend;              // --backend auto|cuda|simt ("" = env DSV4_BACKEND or auto)
  std::string rc_params;            // --rc-params STR (RapidCheck callers)
  std::vector<std::string> files;   // positional
  std::string output;               // -o OUT
  int max_runs = 400;               // --max-runs N (minimize)
  bool quiet = false;               // --quiet: one line per case
  int isolate = -1;                 // --isolate 1 / --no-isolate 0 / -1 = default (repro: on for cuda)
  double timeout_s = 60;            // --timeout SECONDS (repro, isolated runs; implies --isolate)
  bool timeout_given = false;
};

// Parses argv[first..]; returns "" or an error message.
std::string parse_common(int argc, char** argv, int first, CommonArgs* a);

// Loads the implementation and its backend; prints a one-line error and returns false on failure.
bool open_impl(const CommonArgs& a, std::shared_ptr<Impl>* impl, std::unique_ptr<Backend>* be);

}  // namespace dsv4::harness::cli

int cmd_repro(int argc, char** argv);
int cmd_show(int argc, char** argv);
int cmd_minimize(int argc, char** argv);
int cmd_fuzz(int argc, char** argv);
