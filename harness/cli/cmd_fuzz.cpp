// harness/cli/cmd_fuzz.cpp -- `dsv4-harness fuzz`: the time-boxed campaign over every fuzz target.
//
//   dsv4-harness fuzz [--build-dir build/fuzz] [--total-seconds 600 | --minutes M] [--jobs J]
//                     [--targets a,b] [--corpus-root corpus] [--work-dir DIR] [--failure-dir DIR]
//
// For every fuzz target binary in BUILD/fuzz/ (fuzz_*, built with libFuzzer): copy its seed corpus
// (corpus/<target>/) into a working corpus dir, run it for its share of the time on the default
// backend (CPU/simt when no GPU is present; CUDA when one is, one process per GPU sharing the corpus
// dir when several), with -fork=J when J > 1, parse libFuzzer's output and print a summary: target,
// backend, execs, exec/s, cov, ft, corpus size, failures, where the failure files are and the
// replay command of each. Exit status: 0 = no failure, 1 = failures, 2 = usage / setup error.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "impl.hpp"

namespace fs = std::filesystem;

namespace {

struct FuzzArgs {
  std::string build_dir = "build/fuzz";
  long total_seconds = 600;
  int jobs = 1;
  std::vector<std::string> targets;
  std::string corpus_root = "corpus";
  std::string work_dir, failure_dir;
};

struct Stats {
  long long execs = 0, exec_per_s = 0, crashes = 0;
  long cov = 0, ft = 0, corpus = 0;
};

struct TargetResult {
  std::string target, backend, log;
  Stats st;
  std::vector<std::string> failure_files;  // case files (repro) and raw crash inputs of THIS run
  long earlier_files = 0;                   // files an earlier run left in the failure dir
};

bool file_contains(const fs::path& p, const std::string& needle) {
  std::ifstream f(p, std::ios::binary);
  const std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return s.find(needle) != std::string::npos;
}

// Start argv with extra environment, stdout+stderr appended to `log`.
pid_t spawn_logged(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& log) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) { dup2(fd, 1); dup2(fd, 2); close(fd); }
  for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
  std::vector<char*> a;
  for (const std::string& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  execv(a[0], a.data());
  _exit(127);
}

int wait_status(pid_t pid) {
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// libFuzzer status lines (plain and -fork formats) and final stats; the last value wins.
Stats parse_log(const std::string& log) {
  Stats st;
  std::ifstream f(log);
  const std::regex num(R"(^#(\d+))"), cov(R"(cov: (\d+))"), ft(R"(ft: (\d+))"), corp(R"(corp: (\d+))"),
      eps(R"(exec/s: (\d+))"), units(R"(stat::number_of_executed_units: (\d+))"),
      avg(R"(stat::average_exec_per_sec: (\d+))"), fork_crash(R"(oom/timeout/crash: \d+/\d+/(\d+))");
  std::smatch m;
  long long fork_crashes = 0, total_units = 0;
  for (std::string line; std::getline(f, line);) {
    if (std::regex_search(line, m, num)) st.execs = std::max(st.execs, std::stoll(m[1]));
    if (std::regex_search(line, m, cov)) st.cov = std::stol(m[1]);
    if (std::regex_search(line, m, ft)) st.ft = std::stol(m[1]);
    if (std::regex_search(line, m, corp)) st.corpus = std::stol(m[1]);
    if (std::regex_search(line, m, eps)) st.exec_per_s = std::stoll(m[1]);
    if (std::regex_search(line, m, units)) total_units += std::stoll(m[1]);  // one per (re)start
    if (std::regex_search(line, m, avg)) st.exec_per_s = std::stoll(m[1]);
    if (std::regex_search(line, m, fork_crash)) fork_crashes = std::stoll(m[1]);
    if (line.find("ERROR: libFuzzer: deadly signal") != std::string::npos ||
        line.find("ERROR: AddressSanitizer") != std::string::npos ||
        line.find("ERROR: libFuzzer: timeout") != std::string::npos)
      ++st.crashes;
  }
  st.execs = std::max(st.execs, total_units);
  st.crashes = std::max(st.crashes, fork_crashes);
  return st;
}

int gpu_count() {
  if (!dsv4::harness::gpu_present()) return 0;
  int n = 0;
  if (FILE* p = popen("nvidia-smi -L 2>/dev/null", "r")) {
    char buf[512];
    while (fgets(buf, sizeof buf, p))
      if (std::string(buf).rfind("GPU ", 0) == 0) ++n;
    pclose(p);
  }
  return std::max(n, 1);
}

TargetResult run_target(const FuzzArgs& a, const fs::path& bin, long seconds, int gpus) {
  TargetResult r;
  r.target = bin.filename().string();
  r.backend = gpus > 0 ? (gpus > 1 ? "cuda x" + std::to_string(gpus) : "cuda") : "simt (CPU)";
  const fs::path work = fs::path(a.work_dir) / r.target, fails = fs::path(a.failure_dir) / r.target;
  fs::create_directories(work);
  fs::create_directories(fails);
  std::set<std::string> before;  // failure files of earlier runs: reported, not counted
  for (const auto& e : fs::directory_iterator(fails))
    if (e.is_regular_file()) before.insert(e.path().filename().string());
  const fs::path seeds = fs::path(a.corpus_root) / r.target;
  if (fs::is_directory(seeds))
    for (const auto& e : fs::directory_iterator(seeds))
      if (e.is_regular_file()) fs::copy_file(e.path(), work / e.path().filename(), fs::copy_options::skip_existing);
  r.log = (fs::path(a.work_dir) / (r.target + ".log")).string();
  std::ofstream(r.log, std::ios::trunc).close();
  const fs::path dict = bin.parent_path() / (r.target + ".dict");
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return long(std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - t0).count());
  };
  // Without -fork libFuzzer stops at the first crash: restart (same corpus) while time is left.
  for (int attempt = 0; attempt < 4; ++attempt) {
    const long left = seconds - elapsed();
    if (attempt > 0 && left < 5) break;
    std::vector<std::string> argv = {fs::absolute(bin).string(), "-max_total_time=" + std::to_string(std::max(left, 1L)),
                                     "-print_final_stats=1", "-artifact_prefix=" + fs::absolute(fails).string() + "/",
                                     "-timeout=30", "-rss_limit_mb=4096"};
    if (fs::exists(dict)) argv.push_back("-dict=" + fs::absolute(dict).string());
    if (a.jobs > 1) {
      argv.push_back("-fork=" + std::to_string(a.jobs));
      argv.push_back("-ignore_crashes=1");
    }
    argv.push_back(fs::absolute(work).string());
    const std::vector<std::string> env = {"DSV4_FAILURE_DIR=" + fs::absolute(fails).string()};
    int worst = 0;
    if (gpus <= 1) {
      std::vector<std::string> e = env;
      e.push_back(gpus == 1 ? "DSV4_BACKEND=cuda" : "DSV4_BACKEND=simt");
      worst = wait_status(spawn_logged(argv, e, r.log));
    } else {  // one process per GPU, sharing the working corpus dir
      std::vector<pid_t> pids;
      for (int g = 0; g < gpus; ++g) {
        std::vector<std::string> e = env;
        e.push_back("DSV4_BACKEND=cuda");
        e.push_back("CUDA_VISIBLE_DEVICES=" + std::to_string(g));
        pids.push_back(spawn_logged(argv, e, r.log));
      }
      for (pid_t p : pids) worst = std::max(worst, wait_status(p));
    }
    if (worst == 0 || a.jobs > 1) break;
  }
  r.st = parse_log(r.log);
  r.st.corpus = std::max<long>(r.st.corpus, long(std::distance(fs::directory_iterator(work), fs::directory_iterator{})));
  for (const auto& e : fs::directory_iterator(fails)) {
    if (!e.is_regular_file()) continue;
    if (before.count(e.path().filename().string())) ++r.earlier_files;
    else r.failure_files.push_back(e.path().string());
  }
  std::sort(r.failure_files.begin(), r.failure_files.end());
  return r;
}

bool is_raw_artifact(const std::string& base) {
  for (const char* p : {"crash-", "timeout-", "oom-", "leak-", "slow-unit-"})
    if (base.rfind(p, 0) == 0) return true;
  return false;
}

int usage() {
  std::fprintf(stderr,
               "usage: dsv4-harness fuzz [--build-dir DIR] [--total-seconds S | --minutes M] [--jobs J]\n"
               "                         [--targets a,b] [--corpus-root DIR] [--work-dir DIR] [--failure-dir DIR]\n");
  return 2;
}

}  // namespace

int cmd_fuzz(int argc, char** argv) {
  FuzzArgs a;
  for (int i = 2; i < argc; ++i) {
    const std::string s = argv[i];
    auto val = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (s == "--build-dir") a.build_dir = val();
    else if (s == "--total-seconds") a.total_seconds = std::atol(val().c_str());
    else if (s == "--minutes") a.total_seconds = 60 * std::atol(val().c_str());
    else if (s == "--jobs") a.jobs = std::max(1, std::atoi(val().c_str()));
    else if (s == "--corpus-root") a.corpus_root = val();
    else if (s == "--work-dir") a.work_dir = val();
    else if (s == "--failure-dir") a.failure_dir = val();
    else if (s == "--targets") {
      std::stringstream ss(val());
      for (std::string t; std::getline(ss, t, ',');)
        if (!t.empty()) a.targets.push_back(t);
    } else if (s == "-h" || s == "--help") {
      usage();
      return 0;
    } else {
      std::fprintf(stderr, "fuzz: unknown argument '%s'\n", s.c_str());
      return usage();
    }
  }
  if (a.total_seconds <= 0) {
    std::fprintf(stderr, "fuzz: --total-seconds must be > 0\n");
    return 2;
  }
  if (a.work_dir.empty()) a.work_dir = (fs::path(a.build_dir) / "fuzz-work").string();
  if (a.failure_dir.empty()) a.failure_dir = (fs::path(a.build_dir) / "fuzz-failures").string();
  const fs::path bin_dir = fs::path(a.build_dir) / "fuzz";
  std::vector<fs::path> found;  // every target binary of the build
  if (fs::is_directory(bin_dir))
    for (const auto& e : fs::directory_iterator(bin_dir)) {
      const std::string n = e.path().filename().string();
      if (!e.is_regular_file() || n.rfind("fuzz_", 0) != 0 || e.path().has_extension()) continue;
      if (n.size() > 5 && n.compare(n.size() - 5, 5, "_test") == 0) continue;  // unit tests, not targets
      if (access(e.path().c_str(), X_OK) != 0) continue;
      found.push_back(e.path());
    }
  std::sort(found.begin(), found.end());
  if (found.empty()) {
    std::fprintf(stderr, "fuzz: no fuzz_* targets in %s (build the 'fuzz' preset first)\n", bin_dir.c_str());
    return 2;
  }
  std::vector<fs::path> bins;
  for (const std::string& t : a.targets) {  // each named target must exist
    const auto it = std::find_if(found.begin(), found.end(),
                                 [&](const fs::path& p) { return p.filename().string() == t; });
    if (it == found.end()) {
      std::string names;
      for (const fs::path& p : found) names += (names.empty() ? "" : ", ") + p.filename().string();
      std::fprintf(stderr,
                   "fuzz: no target '%s' in %s (--targets takes a comma-separated list of: %s)\n",
                   t.c_str(), bin_dir.c_str(), names.c_str());
      return 2;
    }
    if (std::find(bins.begin(), bins.end(), *it) == bins.end()) bins.push_back(*it);
  }
  if (a.targets.empty()) bins = found;
  std::sort(bins.begin(), bins.end());
  for (const fs::path& b : bins)
    if (!file_contains(b, "INFO: Seed:")) {
      std::fprintf(stderr, "fuzz: %s is not a libFuzzer binary (a replay-only g++ build; use the clang 'fuzz' preset)\n",
                   b.c_str());
      return 2;
    }
  const int gpus = gpu_count();
  const long share = std::max(10L, a.total_seconds / long(bins.size()));
  std::printf("dsv4-harness fuzz: %zu target(s), %ld s each, backend %s, jobs %d\n", bins.size(), share,
              gpus ? "cuda" : "simt (CPU)", a.jobs);
  std::fflush(stdout);
  std::vector<TargetResult> results;
  for (const fs::path& b : bins) {
    std::printf("  running %s ...\n", b.filename().c_str());
    std::fflush(stdout);
    results.push_back(run_target(a, b, share, gpus));
  }
  std::printf("\n%-28s %-11s %10s %7s %6s %7s %7s %8s\n", "target", "backend", "execs", "exec/s", "cov", "ft",
              "corpus", "failures");
  int failures = 0;
  for (const TargetResult& r : results) {
    const long long nf = std::max<long long>(r.st.crashes, r.failure_files.empty() ? 0 : 1);
    failures += int(nf);
    std::printf("%-28s %-11s %10lld %7lld %6ld %7ld %7ld %8lld\n", r.target.c_str(), r.backend.c_str(), r.st.execs,
                r.st.exec_per_s, r.st.cov, r.st.ft, r.st.corpus, nf);
  }
  for (const TargetResult& r : results) {
    if (r.failure_files.empty()) continue;
    std::printf("\n%s: failure files in %s (log %s)\n", r.target.c_str(), (fs::path(a.failure_dir) / r.target).c_str(),
                r.log.c_str());
    for (const std::string& f : r.failure_files) {
      if (is_raw_artifact(fs::path(f).filename().string()))
        std::printf("  %s %s   (raw input: replays through the target)\n",
                    (fs::path(a.build_dir) / "fuzz" / r.target).c_str(), f.c_str());
      else
        std::printf("  dsv4-harness repro %s\n", f.c_str());
    }
  }
  for (const TargetResult& r : results)
    if (r.earlier_files > 0)
      std::printf("\n%s: %ld file(s) from earlier runs in %s (not counted above)\n", r.target.c_str(),
                  r.earlier_files, (fs::path(a.failure_dir) / r.target).c_str());
  std::printf("\nworking corpora and logs: %s\n", a.work_dir.c_str());
  return failures ? 1 : 0;
}
