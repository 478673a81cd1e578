// tests/simt/mailbox_test.cpp -- the cluster mailbox on the emulator (simt/src/mailbox.cpp):
// folds by red.async, broadcasts by st.async, reservation lists, phase parity in loops,
// bytes completing before they are expected, and stale data for a reader that skips the wait.
// Misuse and deadlock reports: mailbox_misuse_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "simt/portable.h"
#include "tests/simt/mailbox_setup.hpp"

namespace {

const char* const kScheds[] = {"rr", "random:1", "random:7", "pct:3:3", "pct:5:1"};

struct Quiet {
  Quiet() { simt::set_quiet(true); }
  ~Quiet() {
    simt::set_quiet(false);
    simt::set_schedule_from_string("rr");
  }
};

simt::rt::LaunchConfig ccfg(unsigned grid, unsigned block, unsigned cluster) {
  simt::rt::LaunchConfig c;
  c.grid = dim3(grid);
  c.block = dim3(block);
  c.cluster = dim3(cluster);
  return c;
}

unsigned value(unsigned rank, unsigned t) { return rank * 1000u + t * 7u + 1u; }

// Every warp of every rank adds its lanes' values into rank 0's acc[32]; lane 0 arrives with
// the warp's 128 bytes (count = warps x ranks). Rank 0 reads after the wait.
SIMT_KERNEL void fold(unsigned* out) {
  SIMT_SHARED(unsigned long long, bar, );
  SIMT_SHARED(unsigned, acc, [32]);
  auto cl = simt_cg::this_cluster();
  const unsigned r = cl.block_rank(), t = threadIdx.x, lane = t % 32, nw = blockDim.x / 32;
  if (t < 32) acc[t] = 0;
  mbox_setup(&bar, nw * cl.num_blocks());
  if (lane == 0) simt::mbar_arrive_tx(&bar, 0, 32 * 4);
  simt::red_async_add(&acc[lane], 0, value(r, t), &bar);
  if (r == 0) {
    simt::mbar_wait(&bar, 0);
    if (t < 32) out[blockIdx.x / cl.num_blocks() * 32 + t] = acc[t];
  }
}

TEST(Mailbox, FoldByRedAsyncIntoRankZero) {
  Quiet q;
  for (unsigned ranks : {2u, 4u})
    for (const char* s : kScheds) {
      simt::set_schedule_from_string(s);
      std::vector<unsigned> out(2 * 32, 0);
      ASSERT_EQ(simt::rt::launch(ccfg(2 * ranks, 128, ranks), fold, out.data()), simt::rt::kSuccess)
          << s << "\n" << simt::last_report();
      for (unsigned l = 0; l < 32; ++l) {
        unsigned want = 0;
        for (unsigned r = 0; r < ranks; ++r)
          for (unsigned w = 0; w < 4; ++w) want += value(r, w * 32 + l);
        EXPECT_EQ(out[l], want) << ranks << " ranks, " << s << ", lane " << l;
        EXPECT_EQ(out[32 + l], want);
      }
    }
}

// Rank 0 sends 16-byte vectors to every rank (itself included); each rank's thread 0 expects them.
SIMT_KERNEL void broadcast(unsigned* out) {
  SIMT_SHARED(unsigned long long, bar, );
  SIMT_SHARED(unsigned, buf, [64]);
  auto cl = simt_cg::this_cluster();
  const unsigned r = cl.block_rank(), t = threadIdx.x, n = cl.num_blocks();
  buf[t] = 0xDEADu;
  mbox_setup(&bar);
  if (t == 0) simt::mbar_arrive_tx(&bar, r, 64 * 4);
  if (r == 0 && t < 16)
    for (unsigned d = 0; d < n; ++d)
      simt::st_async4(&buf[4 * t], d, value(d, 4 * t), value(d, 4 * t + 1), value(d, 4 * t + 2),
                      value(d, 4 * t + 3), &bar);
  simt::mbar_wait(&bar, 0);
  out[blockIdx.x * 64 + t] = buf[t];
  cl.sync();  // rank 0 must not exit while its stores to peers may be outstanding
}

TEST(Mailbox, BroadcastByStAsync4ToEveryRank) {
  Quiet q;
  for (unsigned ranks : {2u, 4u})
    for (const char* s : kScheds) {
      simt::set_schedule_from_string(s);
      std::vector<unsigned> out(ranks * 64, 0);
      ASSERT_EQ(simt::rt::launch(ccfg(ranks, 64, ranks), broadcast, out.data()), simt::rt::kSuccess)
          << s << "\n" << simt::last_report();
      for (unsigned r = 0; r < ranks; ++r)
        for (unsigned i = 0; i < 64; ++i) EXPECT_EQ(out[r * 64 + i], value(r, i)) << s << " rank " << r;
    }
}

// Every thread of every rank reserves a slot in rank 0's list and stores its value there.
SIMT_KERNEL void reserve(unsigned* out) {
  SIMT_SHARED(unsigned long long, bar, );
  SIMT_SHARED(int, count, );
  SIMT_SHARED(unsigned, list, [4 * 64]);
  auto cl = simt_cg::this_cluster();
  const unsigned r = cl.block_rank(), t = threadIdx.x, n = cl.num_blocks();
  if (t == 0) count = 0;
  mbox_setup(&bar);
  if (r == 0 && t == 0) simt::mbar_arrive_tx(&bar, 0, n * blockDim.x * 4);
  const int slot = simt::dsmem_atomic_add(&count, 0, 1);
  simt::st_async(&list[slot], 0, value(r, t), &bar);
  if (r == 0) {
    simt::mbar_wait(&bar, 0);
    for (unsigned i = t; i < n * blockDim.x; i += blockDim.x) out[i] = list[i];
    if (t == 0) out[n * blockDim.x] = static_cast<unsigned>(count);
  }
}

TEST(Mailbox, ReservationByDsmemAtomicAddAndStAsync) {
  Quiet q;
  for (unsigned ranks : {2u, 4u})
    for (const char* s : kScheds) {
      simt::set_schedule_from_string(s);
      std::vector<unsigned> out(ranks * 64 + 1, 0);
      ASSERT_EQ(simt::rt::launch(ccfg(ranks, 64, ranks), reserve, out.data()), simt::rt::kSuccess)
          << s << "\n" << simt::last_report();
      EXPECT_EQ(out[ranks * 64], ranks * 64);
      std::vector<unsigned> got(out.begin(), out.begin() + ranks * 64), want;
      for (unsigned r = 0; r < ranks; ++r)
        for (unsigned t = 0; t < 64; ++t) want.push_back(value(r, t));
      std::sort(got.begin(), got.end());
      std::sort(want.begin(), want.end());
      EXPECT_EQ(got, want) << s;
    }
}

// A ping-pong over one slot array: `full` on rank 0 (data), `empty` on rank 1 (slot free again);
// the parity alternates with the iteration.
constexpr int kRounds = 5;
SIMT_KERNEL void ping_pong(unsigned* out) {
  SIMT_SHARED(unsigned long long, full, );
  SIMT_SHARED(unsigned long long, empty, );
  SIMT_SHARED(unsigned, slot, [32]);
  auto cl = simt_cg::this_cluster();
  const unsigned r = cl.block_rank(), lane = threadIdx.x;
  if (lane == 0) {
    simt::mbar_init(&full, 1);
    simt::mbar_init(&empty, 1);
    simt::mbar_init_fence();
  }
  cl.sync();
  unsigned sum = 0;
  for (int it = 0; it < kRounds; ++it) {
    const unsigned parity = static_cast<unsigned>(it) & 1u;
    if (r == 1) {
      if (it > 0) simt::mbar_wait(&empty, parity ^ 1u);
      simt::st_async(&slot[lane], 0, value(static_cast<unsigned>(it), lane), &full);
    } else {
      if (lane == 0) simt::mbar_arrive_tx(&full, 0, 32 * 4);
      simt::mbar_wait(&full, parity);
      sum += slot[lane];
      __syncwarp();
      if (lane == 0 && it + 1 < kRounds) simt::mbar_arrive_tx(&empty, 1, 0);
    }
  }
  if (r == 0) out[lane] = sum;
  cl.sync();
}

TEST(Mailbox, PhasesAlternateParityInALoop) {
  Quiet q;
  for (const char* s : kScheds) {
    simt::set_schedule_from_string(s);
    std::vector<unsigned> out(32, 0);
    ASSERT_EQ(simt::rt::launch(ccfg(2, 32, 2), ping_pong, out.data()), simt::rt::kSuccess)
        << s << "\n" << simt::last_report();
    for (unsigned l = 0; l < 32; ++l) {
      unsigned want = 0;
      for (unsigned it = 0; it < kRounds; ++it) want += value(it, l);
      EXPECT_EQ(out[l], want) << s;
    }
  }
}

// Rank 1's bytes complete before rank 0 expects them (the tx-count goes negative), and a read
// before the wait sees the old value on every schedule: the store lands at the phase completion.
SIMT_KERNEL void early_bytes(unsigned* out) {
  SIMT_SHARED(unsigned long long, bar, );
  SIMT_SHARED(unsigned, slot, [4]);
  auto cl = simt_cg::this_cluster();
  const unsigned r = cl.block_rank(), t = threadIdx.x;
  if (t < 4) slot[t] = 7;
  mbox_setup(&bar);
  if (r == 1 && t < 2) simt::st_async2(&slot[2 * t], 0, 40 + 2 * t, 41 + 2 * t, &bar);
  cl.sync();  // both stores issued before rank 0 expects them
  if (r == 0) {
    if (t < 4) out[t] = slot[t];  // before the phase completed: stale
    __syncthreads();
    if (t == 0) simt::mbar_arrive_tx(&bar, 0, 16);
    simt::mbar_wait(&bar, 0);
    if (t < 4) out[4 + t] = slot[t];
  }
}

TEST(Mailbox, BytesBeforeExpectAndStaleReadBeforeWait) {
  Quiet q;
  for (const char* s : kScheds) {
    simt::set_schedule_from_string(s);
    std::vector<unsigned> out(8, 0);
    ASSERT_EQ(simt::rt::launch(ccfg(2, 32, 2), early_bytes, out.data()), simt::rt::kSuccess)
        << s << "\n" << simt::last_report();
    for (unsigned i = 0; i < 4; ++i) {
      EXPECT_EQ(out[i], 7u) << s << ": a read before mbar_wait must see the old value";
      EXPECT_EQ(out[4 + i], 40u + i) << s;
    }
  }
}

}  // namespace
