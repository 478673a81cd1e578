// tests/simt/asan_bugs_test.cpp -- known bugs that only AddressSanitizer catches (asan build
// only, label cpu;asan): a shared-memory off-by-one into the next __shared__ array (redzones
// between SIMT_SHARED slots), dynamic shared memory overflow, and a stale DSMEM pointer used
// after the peer block exited (arena poisoned on exit). Each buggy kernel runs in a forked
// child whose stderr must hold the ASan report with this file's line; the fixed twin runs clean.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "simt/portable.h"

namespace {

template <int kOffset>
SIMT_KERNEL void off_by_one(int* out) {
  SIMT_SHARED(int, a, [32]);
  SIMT_SHARED(int, b, [32]);
  const int t = static_cast<int>(threadIdx.x);
  a[t] = t;
  b[t] = -t;
  __syncthreads();
  const int* pa = a;                // through a pointer, as helpers do: UBSan's bounds check is blind
  out[t] = pa[t + kOffset] + b[t];  // kOffset = 1: thread 31 reads a[32] (BUG LINE off_by_one)
}

template <unsigned kExtra>
SIMT_KERNEL void dyn_overflow(int* out) {
  SIMT_DYN_SHARED(int, d);
  const unsigned t = threadIdx.x;
  d[t] = static_cast<int>(t);
  __syncthreads();
  out[t] = d[t + kExtra];  // kExtra = 1: reads one past the dynamic allocation (BUG LINE dyn_overflow)
}

template <bool kBug>
SIMT_KERNEL void stale_dsmem(int* out) {
  SIMT_SHARED(int, s, [32]);
  auto cl = simt_cg::this_cluster();
  const unsigned r = cl.block_rank();
  s[threadIdx.x] = static_cast<int>(r);
  cl.sync();
  const int* peer = cl.map_shared_rank(&s[0], 1 - r);
  if (kBug && r == 0) return;  // block 0 leaves; block 1 still reads it below
  int v = peer[threadIdx.x];   // (BUG LINE stale_dsmem)
  out[blockIdx.x * 32 + threadIdx.x] = v;
  if (!kBug) cl.sync();
}

// Runs f in a child; returns (exit status, stderr).
template <typename F>
std::pair<int, std::string> in_child(F f) {
  int fds[2];
  if (pipe(fds) != 0) return {-1, ""};
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    f();
    _exit(0);
  }
  close(fds[1]);
  std::string err;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) err.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {status, err};
}

void expect_asan(const std::pair<int, std::string>& r, const char* what) {
  EXPECT_NE(r.first, 0) << what;
  EXPECT_NE(r.second.find("AddressSanitizer"), std::string::npos) << what << "\n" << r.second;
  EXPECT_NE(r.second.find("asan_bugs_test.cpp"), std::string::npos) << what << "\n" << r.second;
}

TEST(AsanBugs, SharedOffByOneIntoNextArray) {
  for (const char* s : {"rr", "random:3", "pct:2:3"}) {
    simt::set_schedule_from_string(s);
    std::vector<int> out(32);
    simt::rt::LaunchConfig c;
    c.block = dim3(32);
    expect_asan(in_child([&] { simt::rt::launch(c, off_by_one<1>, out.data()); }), s);
    EXPECT_EQ(simt::rt::launch(c, off_by_one<0>, out.data()), simt::rt::kSuccess);
  }
  simt::set_schedule_from_string("rr");
}

TEST(AsanBugs, DynamicSharedOverflow) {
  std::vector<int> out(64);
  simt::rt::LaunchConfig c;
  c.block = dim3(64);
  c.dynamic_smem = 64 * sizeof(int);
  expect_asan(in_child([&] { simt::rt::launch(c, dyn_overflow<1>, out.data()); }), "dyn");
  EXPECT_EQ(simt::rt::launch(c, dyn_overflow<0>, out.data()), simt::rt::kSuccess);
}

TEST(AsanBugs, StaleDsmemPointerAfterPeerExit) {
  for (const char* s : {"rr", "random:8"}) {
    simt::set_schedule_from_string(s);
    std::vector<int> out(64);
    simt::rt::LaunchConfig c;
    c.grid = dim3(2);
    c.block = dim3(32);
    c.cluster = dim3(2);
    // ASan reports the realised stale read (block 0 exited first); the lifetime check reports
    // the other orders at block 0's exit.
    auto r = in_child([&] {
      simt::set_quiet(false);
      simt::rt::launch(c, stale_dsmem<true>, out.data());
      std::fprintf(stderr, "%s", simt::last_report().c_str());
      _exit(simt::last_report().empty() ? 0 : 3);
    });
    EXPECT_NE(r.first, 0) << s;
    EXPECT_TRUE(r.second.find("AddressSanitizer") != std::string::npos ||
                r.second.find("cluster shared-memory") != std::string::npos)
        << r.second;
    EXPECT_EQ(simt::rt::launch(c, stale_dsmem<false>, out.data()), simt::rt::kSuccess) << simt::last_report();
  }
  simt::set_schedule_from_string("rr");
}

}  // namespace
