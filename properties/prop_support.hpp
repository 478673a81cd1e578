// properties/prop_support.hpp -- the glue between RapidCheck/GoogleTest and the harness runner.
//
//   DSV4_PROP(Suite, Name, max_success) { const Case c = *gen::topkV2Paged(); props::check_case(c); }
//   DSV4_PROPS_MAIN()   -- main(): loads the implementation once, sizes the generators from its
//                          capabilities, exits 77 (CTest SKIP) with a reason when DSV4_BACKEND=cuda
//                          and no GPU is present.
//
// check_case: case -> run_case -> RC_ASSERT pass. Skipped outcomes (capabilities) are tagged and
// counted; a property whose cases were mostly skipped fails. On failure the message carries the
// report, the case file (DSV4_FAILURE_DIR, default <build>/failures; written for the final,
// shrunk counterexample), the `dsv4-harness repro FILE` line and the RC_PARAMS seed.
// Scale: env DSV4_PROP_SCALE multiplies every max_success (nightly); an explicit RC_PARAMS
// max_success wins.
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "harness/backend.hpp"
#include "harness/codec.hpp"
#include "harness/impl.hpp"
#include "harness/runner.hpp"
#include "properties/failure_report.hpp"
#include "properties/generators.hpp"

namespace rc::detail {
TestListener& globalTestListener();  // librapidcheck (prints the RC_PARAMS reproduce line)
}

#ifndef DSV4_DEFAULT_FAILURE_DIR
#define DSV4_DEFAULT_FAILURE_DIR "build/failures"
#endif

namespace dsv4::props {

using harness::Case;
using harness::Outcome;
using harness::Verdict;

struct Env {
  std::shared_ptr<harness::Impl> impl;
  std::unique_ptr<harness::Backend> backend;
};
inline Env& env() {
  static Env e;
  return e;
}

struct Counters {
  long ran = 0, skipped = 0;
  std::optional<Case> last_failure;
  std::string last_failure_file;
  std::string last_skip_reason;
  uint64_t seed = 0;
};
inline Counters& counters() {
  static Counters c;
  return c;
}

// True when the implementation declares every entry point, every paged mode, forced paths and NaN
// support (ours does). Then an all-skipped property means the generators are broken.
inline bool implements_everything() {
  const dsv4_capabilities& k = env().impl->caps();
  const uint32_t all_entries = DSV4_ENTRY_TOPK_V2_PLAN | DSV4_ENTRY_TOPK_V2_PLAN_IS_WRITTEN |
                               DSV4_ENTRY_TOPK_V2_PAGED | DSV4_ENTRY_TOPK_V2_RAGGED |
                               DSV4_ENTRY_TOPK_BF16_SMALL | DSV4_ENTRY_AMAX8_VARLEN |
                               DSV4_ENTRY_SORT_CANDIDATE_BLOCKS | DSV4_ENTRY_MAX_ACTIVE_CLUSTERS;
  const uint32_t all_modes = DSV4_MODE_INDICES | DSV4_MODE_PAGE_TABLE | DSV4_MODE_DUAL;
  return (k.entries & all_entries) == all_entries && (k.topk_v2_modes & all_modes) == all_modes &&
         k.can_force_path && k.nan_supported;
}

inline std::string failure_dir() {
  const char* d = std::getenv("DSV4_FAILURE_DIR");
  return d && *d ? d : DSV4_DEFAULT_FAILURE_DIR;
}

inline std::string test_prefix() {
  const auto* ti = ::testing::UnitTest::GetInstance()->current_test_info();
  return ti ? std::string(ti->test_suite_name()) + "." + ti->name() : "property";
}

// Run one case; returns the outcome (no assertion), counting skips.
inline Outcome run(const Case& c) {
  Outcome o = harness::run_case(c, *env().impl, *env().backend);
  if (o.verdict == Verdict::Skipped) {
    ++counters().skipped;
    counters().last_skip_reason = o.reason;
  } else {
    ++counters().ran;
  }
  return o;
}

inline std::string failure_message(const Case& c, const Outcome& o, const std::string& what) {
  const std::string file = failure_case_path(c, failure_dir());
  counters().last_failure = c;
  counters().last_failure_file = file;
  const std::string rc_params = "RC_PARAMS=\"seed=" + std::to_string(counters().seed) +
                                "\" (" + test_prefix() + "; the reproduce=... line printed at exit replays the exact case)";
  std::ostringstream s;
  s << test_prefix() << ": " << what << "\n"
    << failure_text(c, o, *env().impl, *env().backend, file, rc_params) << "\ncase file: " << file
    << "\nrepro: dsv4-harness repro " << file << "\n" << rc_params << "\n";
  return s.str();
}

// The property body: the case must pass (skips are counted, not failed).
inline void check_case(const Case& c) {
  const Outcome o = run(c);
  RC_TAG(harness::verdict_name(o.verdict));
  if (o.verdict == Verdict::Skipped || o.verdict == Verdict::Pass) return;
  RC_FAIL(failure_message(c, o, "case did not pass"));
}

// Fixed example (a named trigger): a plain GoogleTest assertion with the same report.
inline void expect_pass(const Case& c, const std::string& name) {
  const Outcome o = run(c);
  if (o.verdict == Verdict::Pass || o.verdict == Verdict::Skipped) {
    if (o.verdict == Verdict::Skipped) std::printf("[ skipped ] %s: %s\n", name.c_str(), o.reason.c_str());
    return;
  }
  const std::string msg = failure_message(c, o, name + ": did not pass");
  write_failure_case(c, failure_dir(), *env().impl, *env().backend);
  ADD_FAILURE() << msg;
}

inline int scaled(int max_success) {
  const char* s = std::getenv("DSV4_PROP_SCALE");
  const double f = s && *s ? std::atof(s) : 1.0;
  return std::max(1, int(max_success * (f > 0 ? f : 1.0)));
}

template <class F>
void check_property(int max_success, F&& body) {
  const auto* ti = ::testing::UnitTest::GetInstance()->current_test_info();
  rc::detail::TestMetadata md;
  md.id = std::string(ti->test_suite_name()) + "/" + ti->name();
  md.description = ti->name();
  const rc::detail::Configuration& cfg = rc::detail::configuration();
  rc::detail::TestParams p = cfg.testParams;
  if (p.maxSuccess == rc::detail::TestParams().maxSuccess) p.maxSuccess = scaled(max_success);
  counters() = Counters{};
  counters().seed = p.seed;
  const auto result = rc::detail::checkProperty(rc::detail::toProperty(std::forward<F>(body)), md, p,
                                                rc::detail::globalTestListener(), cfg.reproduce);
  std::ostringstream ss;
  rc::detail::printResultMessage(result, ss);
  if (!result.template is<rc::detail::SuccessResult>()) {
    if (counters().last_failure)
      write_failure_case(*counters().last_failure, failure_dir(), *env().impl, *env().backend);
    FAIL() << ss.str();
  }
  std::printf("%s\n  ran %ld, skipped %ld\n", ss.str().c_str(), counters().ran, counters().skipped);
  if (!implements_everything()) {
    // A plugin that declares only part of the ABI (e.g. the simple example: paged INDICES only):
    // a property wholly outside its capabilities is a reported skip, never a pass.
    if (counters().ran == 0)
      GTEST_SKIP() << "all " << counters().skipped << " cases are outside the capabilities of "
                   << env().impl->describe() << " (last reason: " << counters().last_skip_reason << ")";
    return;
  }
  // Our own implementation declares everything: an all-skipped property is a generator bug.
  EXPECT_GT(counters().ran, 0) << "every case was skipped: the property tested nothing";
  EXPECT_LT(counters().skipped, counters().ran + 1) << "skipped cases are the majority";
}

// Loads the implementation (once) and sizes the generators; returns 77 to skip the binary.
// (before InitGoogleTest: parameterized fixed examples are sized from the limits at registration)
inline int init(int argc, char** argv) {
  const char* be = std::getenv("DSV4_BACKEND");
  if (be && std::string(be) == "cuda" && !harness::gpu_present()) {
    std::printf("SKIP: DSV4_BACKEND=cuda but no CUDA device is present\n");
    return 77;
  }
  try {
    env().impl = harness::select_impl_from_env();
    env().backend = harness::make_backend_for(*env().impl);
  } catch (const std::exception& e) {
    std::printf("cannot load the implementation under test: %s\n", e.what());
    return 1;
  }
  gen::set_limits_from(env().impl->caps());
  std::printf("implementation: %s (backend %s); Top-K v2 threads %d: Register2 <= %d, Register4 <= %d\n",
              env().impl->describe().c_str(), env().backend->name(), gen::limits().block_threads,
              gen::limits().register2_max(), gen::limits().register4_max());
  ::testing::InitGoogleTest(&argc, argv);
  return -1;
}

// Test-name-safe version of a seed name.
inline std::string param_name(std::string s) {
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

}  // namespace dsv4::props

#define DSV4_PROP(Suite, Name, MaxSuccess)                                      \
  static void dsv4_prop_body_##Suite##_##Name();                                \
  TEST(Suite, Name) { ::dsv4::props::check_property(MaxSuccess, &dsv4_prop_body_##Suite##_##Name); } \
  static void dsv4_prop_body_##Suite##_##Name()

#define DSV4_PROPS_MAIN()                                      \
  int main(int argc, char** argv) {                            \
    const int rc_ = ::dsv4::props::init(argc, argv);           \
    if (rc_ >= 0) return rc_;                                  \
    return RUN_ALL_TESTS();                                    \
  }
