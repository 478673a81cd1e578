// tests/simt/mailbox_misuse_test.cpp -- reports of the cluster mailbox (simt/src/mailbox.cpp):
// deadlocks naming the barrier and what is still pending, extra arrivals, waits on a remote
// barrier, remote operations before any cluster barrier, blocks exiting mid-phase, bad inits.
#include <gtest/gtest.h>

#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

#include "simt/portable.h"

namespace {

enum Mode {
  kMissingArrival,
  kMissingBytes,
  kExtraArrival,
  kWaitRemote,
  kRemoteBeforeSync,
  kExitMidPhase,
  kUseBeforeVisible,
  kRemoteWithoutFence,
  kReinitMidPhase,
  kCountZero,
  kMisaligned,
  kRankOutOfRange,
  kStAsyncNotShared,
  kUseAfterExit,
  kOutOfBounds,
  kClean,  // the same kernel used correctly: 64 bytes expected and sent
};

// One 2-rank cluster of 32 threads; rank 0 owns `bar` (count 2 for kMissingArrival, else 1).
SIMT_KERNEL void misuse(int mode, unsigned* out) {
  SIMT_SHARED(unsigned long long, bar, );
  SIMT_SHARED(unsigned, words, [16]);
  auto cl = simt_cg::this_cluster();
  const unsigned r = cl.block_rank(), t = threadIdx.x;
  if (mode == kRemoteBeforeSync && r == 1 && t == 0) simt::mbar_arrive_tx(&bar, 0, 0);
  if (t == 0) {
    if (mode == kCountZero) simt::mbar_init(&bar, 0);
    if (mode == kMisaligned) simt::mbar_init(reinterpret_cast<unsigned long long*>(&words[1]), 1);
    simt::mbar_init(&bar, mode == kMissingArrival ? 2 : 1);
    if (mode != kRemoteWithoutFence) simt::mbar_init_fence();
  }
  if (mode == kUseBeforeVisible && r == 0 && t == 1) simt::mbar_arrive_tx(&bar, 0, 0);
  cl.sync();
  if (r == 0) {
    switch (mode) {
      case kMissingArrival:
        if (t == 0) simt::mbar_arrive_tx(&bar, 0, 0);
        break;
      case kExtraArrival:
        if (t < 2) simt::mbar_arrive_tx(&bar, 0, 4);  // both think they are the one arrival
        break;
      case kWaitRemote:
        simt::mbar_wait(cl.map_shared_rank(&bar, 1), 0);
        break;
      case kExitMidPhase:
        if (t == 0) simt::mbar_arrive_tx(&bar, 0, 8);
        return;
      case kReinitMidPhase:
        if (t == 0) {
          simt::mbar_arrive_tx(&bar, 0, 4);
          simt::mbar_init(&bar, 1);
        }
        break;
      case kRankOutOfRange:
        if (t == 0) simt::mbar_arrive_tx(&bar, 2, 0);
        break;
      case kUseAfterExit:  // rank 1 exits without a final cluster barrier; rank 0 keeps poking it
        if (t == 0)
          for (int i = 0; i < 1000000; ++i) simt::dsmem_atomic_add(reinterpret_cast<int*>(&words[0]), 1, 0);
        return;
      case kOutOfBounds:  // one vector past the end of words[16]
        if (t == 0) simt::st_async4(&words[16], 0, 1, 2, 3, 4, &bar);
        break;
      case kStAsyncNotShared:
        if (t == 0) simt::st_async(out, 0, 1, &bar);
        break;
      default:
        if (t == 0) simt::mbar_arrive_tx(&bar, 0, 64);
        break;
    }
    simt::mbar_wait(&bar, 0);
    out[t] = words[t % 16];
  } else {
    if ((mode == kMissingBytes && t < 3) || (mode == kClean && t < 4))  // 48 (or all 64) bytes
      simt::st_async4(&words[4 * t], 0, 4 * t, 4 * t + 1, 4 * t + 2, 4 * t + 3, &bar);
    if (mode == kRemoteWithoutFence && t == 0) simt::mbar_arrive_tx(&bar, 0, 0);
  }
  if (mode != kExitMidPhase && mode != kUseAfterExit) cl.sync();
}

std::string run(int mode, const char* sched) {
  simt::set_quiet(true);
  simt::set_schedule_from_string(sched);
  simt::rt::LaunchConfig c;
  c.grid = dim3(2);
  c.block = dim3(32);
  c.cluster = dim3(2);
  std::vector<unsigned> out(32);
  const simt::rt::error_t e = simt::rt::launch(c, misuse, mode, out.data());
  const std::string rep = e == simt::rt::kSuccess ? "" : simt::last_report();
  simt::set_quiet(false);
  simt::set_schedule_from_string("rr");
  return rep;
}

void expect_report(int mode, std::initializer_list<const char*> parts) {
  for (const char* s : {"rr", "random:3", "pct:2:3"}) {
    const std::string rep = run(mode, s);
    EXPECT_FALSE(rep.empty()) << "mode " << mode << " under " << s << ": no report";
    for (const char* p : parts) EXPECT_NE(rep.find(p), std::string::npos) << "missing '" << p << "' in:\n" << rep;
  }
}

TEST(Mailbox, MissingArrivalIsADeadlockNamingTheBarrier) {
  expect_report(kMissingArrival, {"deadlock", "mbar_wait(parity 0) on mbarrier 'bar'", "cluster rank 0",
                                  "phase 0: 1 arrival and 0 transaction bytes still pending",
                                  "mailbox_misuse_test.cpp:"});
}

TEST(Mailbox, MissingBytesIsADeadlockNamingThePendingBytes) {
  expect_report(kMissingBytes, {"deadlock", "mbarrier 'bar' (static shared offset",
                                "0 arrivals and 16 transaction bytes still pending"});
  std::printf("example report:\n%s", run(kMissingBytes, "rr").c_str());
}

TEST(Mailbox, ExtraArrivalIsMisuse) { expect_report(kExtraArrival, {"mbarrier arrival overflow", "'bar'"}); }

TEST(Mailbox, WaitOnARemoteBarrierIsAnError) {
  expect_report(kWaitRemote, {"mbar_wait on a barrier outside the own block"});
}

TEST(Mailbox, RemoteOperationBeforeAnyClusterBarrierIsAnError) {
  expect_report(kRemoteBeforeSync, {"DSMEM access before cluster.sync", "mbar_arrive_tx"});
}

TEST(Mailbox, RemoteOperationOnAnExitedBlockIsAnError) {
  expect_report(kUseAfterExit, {"cluster shared-memory use after exit", "dsmem_atomic_add targets block (1,0,0)"});
}

TEST(Mailbox, BlockExitWithIncompletePhaseIsAnError) {
  expect_report(kExitMidPhase, {"exited with mbarrier 'bar'", "phase 0 incomplete",
                                "0 arrivals and 8 transaction bytes still pending"});
}

TEST(Mailbox, UseBeforeInitVisibleIsMisuse) {
  for (const char* s : {"rr", "random:3", "random:4", "pct:2:3"}) {
    const std::string rep = run(kUseBeforeVisible, s);
    EXPECT_TRUE(rep.find("mbarrier used before its initialisation is visible") != std::string::npos ||
                rep.find("mbarrier not initialised") != std::string::npos)
        << s << ":\n" << rep;
  }
}

TEST(Mailbox, RemoteUseWithoutInitFenceIsMisuse) {
  expect_report(kRemoteWithoutFence, {"before mbar_init_fence", "without mbar_init_fence()"});
}

TEST(Mailbox, BadInitsAreErrors) {
  expect_report(kReinitMidPhase, {"mbarrier re-initialised during a phase"});
  expect_report(kCountZero, {"mbar_init count out of range"});
  expect_report(kMisaligned, {"mbar_init on a misaligned address"});
  expect_report(kRankOutOfRange, {"mbar_arrive_tx rank out of range"});
  expect_report(kStAsyncNotShared, {"st_async on a non-shared address"});
  expect_report(kOutOfBounds, {"st_async outside any SIMT_SHARED variable"});
}

TEST(Mailbox, CorrectUseOfTheMisuseKernelIsClean) {
  for (const char* s : {"rr", "random:3", "pct:2:3"}) EXPECT_EQ(run(kClean, s), "") << s;
}

}  // namespace
