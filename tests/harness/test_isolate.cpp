// tests/harness/test_isolate.cpp -- crash / hang isolation of `dsv4-harness repro` and the loader
// errors, against tiny fake host-memory plugins (segfault, spin forever, wrong ABI version,
// missing required symbol); plus the library pieces (run_in_child, failure wording).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/codec.hpp"
#include "harness/impl.hpp"
#include "harness/isolate.hpp"

using namespace dsv4::harness;
namespace fs = std::filesystem;

namespace {

struct CliRun {
  int status = 0;  // raw system() status
  std::string out;
  double seconds = 0;
  int exit_code() const { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }
};

CliRun cli(const std::string& args) {
  const fs::path log = fs::temp_directory_path() / "dsv4_isolate_test.log";
  const std::string cmd = std::string(DSV4_HARNESS_CLI) + " " + args + " > " + log.string() + " 2>&1";
  const auto t0 = std::chrono::steady_clock::now();
  CliRun r;
  r.status = std::system(cmd.c_str());
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::ifstream f(log);
  r.out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return r;
}

int count_lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

std::string line_with(const std::string& out, const std::string& needle) {
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);)
    if (l.find(needle) != std::string::npos) return l;
  return "";
}

struct Isolate : ::testing::Test {
  fs::path dir = fs::temp_directory_path() / "dsv4_isolate_test";
  std::string big, small;  // batch 4 (the faulty plugins misbehave) and batch 1 (they do not)
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
    big = (dir / "a_big.case").string();
    small = (dir / "b_small.case").string();
    write_case_file(big, make_topk_paged(4, 300, 16, Dist::Randn, 5));
    write_case_file(small, make_topk_paged(1, 300, 16, Dist::Randn, 6));
  }
  void TearDown() override { fs::remove_all(dir); }
};

}  // namespace

TEST(RunInChild, ReportsExitSignalAndTimeout) {
  ChildResult r = run_in_child([](int fd) { write_all(fd, "hello"); return 5; }, 5);
  EXPECT_EQ(r.end, ChildResult::End::Exited);
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_EQ(r.output, "hello");
  r = run_in_child([](int) { raise(SIGSEGV); return 0; }, 5);
  EXPECT_EQ(r.end, ChildResult::End::Signaled);
  EXPECT_EQ(describe_child_end(r, 5), "implementation crashed with SIGSEGV");
  r = run_in_child([](int) { for (volatile int i = 0;; i = i + 1) {} return 0; }, 0.3);
  EXPECT_EQ(r.end, ChildResult::End::TimedOut);
  EXPECT_LT(r.seconds, 3.0);
  EXPECT_EQ(describe_child_end(r, 0.3), "hung for more than 0.3 s, killed");
  r = run_in_child([](int fd) { close(fd); for (volatile int i = 0;; i = i + 1) {} return 0; }, 0.3);
  EXPECT_EQ(r.end, ChildResult::End::TimedOut);  // closing the pipe is not an answer
}

TEST(RunInChild, FramingAndPoisonedContextWording) {
  std::vector<std::string> f;
  ASSERT_TRUE(unframe_fields(frame_fields({"pass", "", "a:b\n12:x"}), &f));
  EXPECT_EQ(f, (std::vector<std::string>{"pass", "", "a:b\n12:x"}));
  EXPECT_FALSE(unframe_fields(frame_fields({"pass", "reason"}).substr(0, 9), &f));  // cut short
  EXPECT_FALSE(unframe_fields("x:abc", &f));
  EXPECT_EQ(poisoned_context_line("cuda: cudaDeviceSynchronize failed: cudaErrorIllegalAddress: an illegal "
                                  "memory access was encountered"),
            "CUDA context poisoned: an illegal memory access was encountered");
}

TEST_F(Isolate, SegfaultIsOneLineAndTheNextFileStillRuns) {
  const CliRun r = cli("repro " + big + " " + small + " --isolate --impl " + FAKE_PLUGIN_SEGV);
  EXPECT_EQ(r.exit_code(), 1) << r.out;
  const std::string l = line_with(r.out, "implementation crashed with SIGSEGV");
  EXPECT_NE(l.find(big), std::string::npos) << r.out;                 // names the file
  EXPECT_NE(l.find("fake-host test"), std::string::npos) << r.out;    // and the implementation
  EXPECT_NE(l.find(FAKE_PLUGIN_SEGV), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("report: pass"), std::string::npos) << r.out;  // the small case ran after it
  EXPECT_NE(r.out.find("1 passed, 1 failed"), std::string::npos) << r.out;
}

TEST_F(Isolate, HostBackendDefaultsToInProcess) {
  // Without --isolate (host backend) the crash takes the harness down: isolation is opt-in there.
  const CliRun r = cli("repro " + big + " --impl " + FAKE_PLUGIN_SEGV);
  EXPECT_NE(r.exit_code(), 0);
  EXPECT_EQ(line_with(r.out, "implementation crashed"), "") << r.out;
  EXPECT_EQ(cli("repro " + small + " --impl " + FAKE_PLUGIN_SEGV).exit_code(), 0);
}

TEST_F(Isolate, HangIsKilledAfterTheTimeout) {
  const CliRun r = cli("repro " + big + " " + small + " --quiet --timeout 2 --impl " + FAKE_PLUGIN_SPIN);
  EXPECT_EQ(r.exit_code(), 1) << r.out;  // --timeout implies --isolate
  const std::string l = line_with(r.out, "hung for more than 2 s, killed");
  EXPECT_NE(l.find(big), std::string::npos) << r.out;
  EXPECT_NE(l.find(FAKE_PLUGIN_SPIN), std::string::npos) << r.out;
  EXPECT_NE(line_with(r.out, "pass").find(small), std::string::npos) << r.out;
  EXPECT_GE(r.seconds, 2.0);
  EXPECT_LT(r.seconds, 10.0);
}

TEST_F(Isolate, LoaderErrorsAreOneClearLineThroughTheCli) {
  for (const bool isolate : {false, true}) {
    for (auto [path, want] : {std::pair<std::string, std::string>{FAKE_PLUGIN_BADABI, "ABI version 7 but this harness speaks ABI version 1"},
                              {FAKE_PLUGIN_NOCAPS, "missing required symbol dsv4_query_capabilities"},
                              {"/nonexistent/plugin.so", "cannot load plugin"}}) {
      const CliRun r = cli("repro " + small + " --impl " + path + (isolate ? " --isolate" : ""));
      EXPECT_EQ(r.exit_code(), 2) << r.out;
      EXPECT_EQ(count_lines(r.out), 1) << r.out;
      EXPECT_NE(r.out.find(want), std::string::npos) << r.out;
      EXPECT_NE(r.out.find(path), std::string::npos) << r.out;
    }
  }
}

TEST_F(Isolate, LoaderErrorsThroughTheLibrary) {
  for (auto [path, want] : {std::pair<std::string, std::string>{FAKE_PLUGIN_BADABI, "ABI version 7"},
                            {FAKE_PLUGIN_NOCAPS, "missing required symbol dsv4_query_capabilities"}}) {
    try {
      select_impl(path, "simt");
      FAIL() << path;
    } catch (const ImplError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
  // The crashing plugin loads fine: its fault is in the entry, which isolation contains.
  EXPECT_TRUE(Impl::load_plugin(FAKE_PLUGIN_SEGV)->host_memory());
}

TEST_F(Isolate, BadTimeoutIsAUsageError) {
  EXPECT_EQ(cli("repro " + small + " --timeout 0").exit_code(), 2);
  EXPECT_EQ(cli("repro " + small + " --timeout abc").exit_code(), 2);
}
