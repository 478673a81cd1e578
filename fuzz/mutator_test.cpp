// fuzz/mutator_test.cpp -- the structure-aware mutator keeps inputs valid: any bytes decode to a
// case of the target's kernel, a mutated case round-trips through the strict codec, outputs stay
// within the target's bounds, and the mutations actually change the case.
#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "fuzz/fuzz_input.hpp"
#include "harness/rng.hpp"

using namespace dsv4;
using namespace dsv4::harness;

static size_t no_byte_mutation(uint8_t*, size_t size, size_t) { return size; }

TEST(FuzzInput, AnyBytesDecodeToTheTargetKernel) {
  fuzz::InputLimits lim;
  Rng r(1);
  for (int k = 0; k < kKernelIdCount; ++k)
    for (int i = 0; i < 200; ++i) {
      std::vector<uint8_t> b(size_t(r.below(300)));
      for (auto& x : b) x = uint8_t(r.next());
      fuzz::InputKind kind;
      const Case c = fuzz::bytes_to_case(b.data(), b.size(), k, lim, &kind);
      EXPECT_EQ(int(c.kernel), k);
      EXPECT_EQ(kind, fuzz::InputKind::Total);
    }
}

TEST(FuzzInput, MutatedCasesRoundTripAndStayBounded) {
  fuzz::InputLimits lim;
  lim.total.max_width = 4096;
  Rng r(2);
  int changed = 0, encoded = 0;
  for (int k = 0; k < kKernelIdCount; ++k)
    for (int i = 0; i < 100; ++i) {
      std::vector<uint8_t> buf(65536);
      size_t n = size_t(r.below(200));
      for (size_t j = 0; j < n; ++j) buf[j] = uint8_t(r.next());
      const Case before = fuzz::bytes_to_case(buf.data(), n, k, lim, nullptr);
      const size_t m = fuzz::custom_mutate(buf.data(), n, buf.size(), unsigned(r.next() | 1), k, lim, &no_byte_mutation);
      fuzz::InputKind kind;
      const Case after = fuzz::bytes_to_case(buf.data(), m, k, lim, &kind);
      if (m >= 8 && std::memcmp(buf.data(), kCaseMagic, 8) == 0) {
        ++encoded;
        EXPECT_EQ(kind, fuzz::InputKind::Strict) << summarize_case(after);
        EXPECT_TRUE(fuzz::within_limits(after, lim));
      }
      if (!(before == after)) ++changed;
    }
  EXPECT_GT(encoded, 300);
  EXPECT_GT(changed, 300);
}

TEST(FuzzInput, OversizedCaseFilesAreRejectedNotClamped) {
  fuzz::InputLimits lim;
  Case c = make_topk_paged(1, lim.total.max_width + 1, 8, Dist::Randn, 1);
  const std::vector<uint8_t> b = encode_case(c);
  fuzz::InputKind kind;
  const Case d = fuzz::bytes_to_case(b.data(), b.size(), int(KernelId::TopkV2Paged), lim, &kind);
  EXPECT_EQ(kind, fuzz::InputKind::Rejected);
  EXPECT_EQ(d.shape.width, lim.total.max_width + 1);
}

TEST(FuzzInput, SeqLenMutationReachesDispatchThresholds) {
  fuzz::InputLimits lim;
  lim.block_threads = 128;
  Case c = make_topk_paged(1, 4000, 16, Dist::Randn, 1);
  std::set<int32_t> seen;
  for (uint64_t s = 0; s < 4000; ++s) {
    Case d = c;
    fuzz::mutate_case(d, s, lim);
    seen.insert(d.seq_lens[0]);
  }
  for (int32_t t : {1023, 1024, 1025, 2047, 2048, 2049, 15, 16, 17}) EXPECT_TRUE(seen.count(t)) << t;
}

// A decoded case may carry any int32 in its scalars (a seq_len of INT32_MIN, k or a tie count of
// INT32_MAX): the mutations' arithmetic on them is defined (64-bit) and their results in range.
// (Under the asan-fuzz preset's UBSan, the int32 `n - 1` this replaced aborted the fuzzer.)
TEST(FuzzInput, MutationsOfExtremeScalarsAreDefined) {
  fuzz::InputLimits lim;
  Case c = make_topk_paged(1, 4000, 16, Dist::Randn, 1);
  c.seq_lens[0] = INT32_MIN;
  c.shape.k = INT32_MAX;
  RowRecipe& rr = c.rows[0];
  Injection edge;
  edge.kind = InjKind::BinEdge;
  edge.delta = INT32_MAX;
  Injection tie;
  tie.kind = InjKind::KthTie;
  tie.count = INT32_MAX;
  rr.injections = {edge, tie};
  int k_mutated = 0;
  for (uint64_t s = 0; s < 3000; ++s) {
    Case d = c;
    const std::string what = fuzz::mutate_case(d, s, lim);
    if (what == "k") {
      ++k_mutated;
      EXPECT_GE(d.shape.k, 1);
      EXPECT_LE(d.shape.k, lim.total.max_k);
    }
    for (const Injection& e : d.rows.empty() ? std::vector<Injection>{} : d.rows[0].injections) {
      if (e.kind == InjKind::KthTie) EXPECT_GE(e.count, 1) << what;
      if (e.kind == InjKind::BinEdge && what == "bin-edge-step") EXPECT_LE(std::abs(e.delta), 2) << what;
    }
  }
  EXPECT_GT(k_mutated, 0);
}
