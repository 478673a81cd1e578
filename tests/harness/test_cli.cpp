// tests/harness/test_cli.cpp -- the dsv4-harness CLI end to end against the fake plugin .so:
// exit codes of repro (0 pass, 1 failure, 2 unreadable file), show, minimize.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "harness/codec.hpp"

using namespace dsv4::harness;
namespace fs = std::filesystem;

namespace {

int run(const std::string& args, const std::string& env = "", std::string* output = nullptr) {
  const fs::path log = fs::temp_directory_path() / "dsv4_cli_test.log";
  const std::string cmd = env + " " + DSV4_HARNESS_CLI + " " + args + " > " + log.string() + " 2>&1";
  const int st = std::system(cmd.c_str());
  if (output) {
    std::ifstream f(log);
    output->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

struct Cli : ::testing::Test {
  fs::path dir = fs::temp_directory_path() / "dsv4_cli_test";
  std::string file;
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
    Case c = make_topk_paged(4, 300, 16, Dist::Randn, 5);
    c.rows[0].injections.push_back({InjKind::Shuffle, 0, 0, 0, 0, 0});
    file = (dir / "case.bin").string();
    write_case_file(file, c);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string impl() const { return std::string(" --impl ") + FAKE_PLUGIN_OK; }
};

}  // namespace

TEST_F(Cli, ReproExitCodesFollowTheVerdict) {
  std::string out;
  EXPECT_EQ(run("repro " + file + impl(), "", &out), 0) << out;
  EXPECT_NE(out.find("report: pass"), std::string::npos) << out;
  EXPECT_NE(out.find("fake-host test"), std::string::npos) << out;  // self-reported name / version
  EXPECT_EQ(run("repro " + file + impl(), "DSV4_FAKE_FAULT=1", &out), 1) << out;  // write past k
  EXPECT_NE(out.find("guard_breach"), std::string::npos) << out;
  EXPECT_NE(out.find("dsv4-harness repro " + file), std::string::npos) << out;
  std::ofstream(dir / "junk.bin") << "not a case";
  EXPECT_EQ(run("repro " + (dir / "junk.bin").string() + impl(), "", &out), 2);
  EXPECT_NE(out.find("junk.bin: bad magic"), std::string::npos) << out;
  EXPECT_EQ(run("repro " + file + " --impl /nonexistent.so", "", &out), 2);
  EXPECT_NE(out.find("cannot load plugin"), std::string::npos) << out;
}

TEST_F(Cli, ShowAndMinimize) {
  std::string out;
  EXPECT_EQ(run("show " + file, "", &out), 0);
  EXPECT_NE(out.find("topk_v2_paged"), std::string::npos) << out;
  const std::string small = (dir / "small.bin").string();
  EXPECT_EQ(run("minimize " + file + " -o " + small + impl(), "DSV4_FAKE_FAULT=5", &out), 0) << out;
  const Case m = read_case_file(small);
  EXPECT_EQ(m.shape.batch, 1) << out;
  EXPECT_LT(m.shape.width, 300) << out;
  EXPECT_EQ(run("repro " + small + impl(), "DSV4_FAKE_FAULT=5", &out), 1);  // still fails the same way
  // minimize records who found it; repro prints it next to the replaying implementation
  EXPECT_NE(out.find(std::string("recorded with:   fake-host test (") + FAKE_PLUGIN_OK), std::string::npos) << out;
  EXPECT_NE(out.find("replayed with:   fake-host test"), std::string::npos) << out;
  EXPECT_EQ(run("show " + small, "", &out), 0);
  EXPECT_NE(out.find("recorded with    fake-host test"), std::string::npos) << out;
  EXPECT_NE(out.find("device         cpu (simt)"), std::string::npos) << out;
  EXPECT_EQ(run("show " + file, "", &out), 0);
  EXPECT_NE(out.find("no provenance"), std::string::npos) << out;
  EXPECT_EQ(run("minimize " + file + " -o " + small + impl(), "", &out), 2);  // passing: nothing to do
  EXPECT_EQ(run("nonsense", "", &out), 2);
}

// `fuzz` counts the failures of THIS run: files an earlier campaign left in the failure dir are
// listed as such, not reported again (a nightly job would otherwise fail forever after one find).
// The target is a stand-in for a libFuzzer binary: it prints libFuzzer's stats lines and, with
// FAKE_FUZZ_CRASH set, writes a crash input under -artifact_prefix.
TEST_F(Cli, FuzzCountsOnlyThisRunsFailures) {
  const fs::path build = dir / "build", fails = dir / "fails" / "fuzz_fake";
  fs::create_directories(build / "fuzz");
  fs::create_directories(fails);
  const fs::path bin = build / "fuzz" / "fuzz_fake";
  std::ofstream(bin) << "#!/bin/sh\n"
                        "# INFO: Seed: (what dsv4-harness fuzz looks for in a libFuzzer binary)\n"
                        "for a in \"$@\"; do case \"$a\" in -artifact_prefix=*) P=\"${a#-artifact_prefix=}\";; esac; done\n"
                        "echo 'INFO: Seed: 1'\n"
                        "echo '#5\tDONE   cov: 3 ft: 4 corp: 1/1b exec/s: 5 rss: 1Mb'\n"
                        "echo 'stat::number_of_executed_units: 5'\n"
                        "[ -n \"$FAKE_FUZZ_CRASH\" ] && printf x > \"${P}crash-thisrun\"\n"
                        "exit 0\n";
  fs::permissions(bin, fs::perms::owner_all);
  std::ofstream(fails / "crash-earlier") << "x";
  const std::string args = "fuzz --build-dir " + build.string() + " --total-seconds 1 --corpus-root " +
                           (dir / "corpus").string() + " --failure-dir " + (dir / "fails").string();
  std::string out;
  EXPECT_EQ(run(args, "", &out), 0) << out;
  EXPECT_NE(out.find("fuzz_fake: 1 file(s) from earlier runs"), std::string::npos) << out;
  EXPECT_EQ(out.find("crash-earlier   (raw input"), std::string::npos) << out;
  EXPECT_EQ(run(args, "FAKE_FUZZ_CRASH=1", &out), 1) << out;
  EXPECT_NE(out.find("crash-thisrun   (raw input: replays through the target)"), std::string::npos) << out;
}

// A --targets name that is not a target of the build is an error naming it and the targets there
// (a space instead of a comma used to end in "no fuzz_* targets", as if nothing were built).
TEST_F(Cli, FuzzRejectsAnUnknownTargetName) {
  const fs::path build = dir / "build";
  fs::create_directories(build / "fuzz");
  const fs::path bin = build / "fuzz" / "fuzz_fake";
  std::ofstream(bin) << "#!/bin/sh\necho 'INFO: Seed: 1'\nexit 0\n";
  fs::permissions(bin, fs::perms::owner_all);
  const std::string base = "fuzz --build-dir " + build.string() + " --total-seconds 1 --corpus-root " +
                           (dir / "corpus").string() + " --failure-dir " + (dir / "fails").string();
  std::string out;
  EXPECT_EQ(run(base + " --targets 'fuzz_fake fuzz_other'", "", &out), 2) << out;
  EXPECT_NE(out.find("no target 'fuzz_fake fuzz_other'"), std::string::npos) << out;
  EXPECT_NE(out.find("comma-separated list of: fuzz_fake"), std::string::npos) << out;
  EXPECT_EQ(run(base + " --targets fuzz_fake,fuzz_nope", "", &out), 2) << out;
  EXPECT_NE(out.find("no target 'fuzz_nope'"), std::string::npos) << out;
}
