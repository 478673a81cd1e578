// tests/kernels/topk_v2/topk_v2_test_util.hpp -- helpers of the Top-K v2 kernel tests: build
// host tensors, run the ABI entries (simt build: host memory), pre-fill outputs with -12345 and
// guard columns, read the status block and the row-path report, check with dsv4_oracle.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <iterator>
#include <vector>

#include "dsv4/indexer_abi.h"
#include "oracle/oracle.hpp"

namespace tk {

// Every forcible Top-K v2 path (dsv4_config.force_path), in ABI order; the ragged entry takes the
// single-CTA ones (<= DSV4_PATH_STREAMING) only.
constexpr int kForcedPaths[] = {DSV4_PATH_REGISTER2, DSV4_PATH_REGISTER4, DSV4_PATH_STREAMING,
                                DSV4_PATH_CLUSTER8,  DSV4_PATH_CLUSTER16, DSV4_PATH_POOL,
                                DSV4_PATH_CLUSTER4,  DSV4_PATH_CLUSTER2};
inline bool ragged_can_force(int path) { return path <= DSV4_PATH_STREAMING; }

constexpr int32_t kFill = -12345;
constexpr int kGuard = 3;  // guard columns after K in every output view
inline float inf() { return std::numeric_limits<float>::infinity(); }
inline float qnan() { return std::numeric_limits<float>::quiet_NaN(); }
inline float bits(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

inline dsv4_tensor t1(void* p, int32_t dtype, int64_t n) {
  dsv4_tensor t{};
  t.data = p; t.dtype = dtype; t.ndim = 1; t.sizes[0] = n; t.strides[0] = 1;
  return t;
}
inline dsv4_tensor t2(void* p, int32_t dtype, int64_t r, int64_t c, int64_t stride) {
  dsv4_tensor t{};
  t.data = p; t.dtype = dtype; t.ndim = 2; t.sizes[0] = r; t.sizes[1] = c;
  t.strides[0] = stride; t.strides[1] = 1;
  return t;
}

// RAII configuration snapshot: fields set on construction, defaults restored on destruction.
struct Cfg {
  dsv4_config c;
  Cfg() { std::memset(&c, 0xff, sizeof c); c.struct_size = sizeof c; c.force_path = 0; c.early_read = 0; }
  Cfg& apply() { dsv4_message m; EXPECT_EQ(dsv4_set_config(&c, &m), DSV4_OK) << m.text; return *this; }
  ~Cfg() { dsv4_set_config(nullptr, nullptr); }
};

struct Status { dsv4_device_status s{}; bool has(int code) const { return (s.code_mask >> code) & 1u; } };
inline Status take_status() {
  Status st;
  dsv4_message m;
  EXPECT_EQ(dsv4_check_status(nullptr, &st.s, &m), DSV4_OK) << m.text;
  return st;
}

// One paged (or ragged) problem with host buffers. Scores are [B, S] with width L.
struct Case {
  int B = 1, L = 0, S = 0, K = 0;
  std::vector<float> scores;
  std::vector<int32_t> lens;
  // paged
  bool table = false, dual = false;
  int W = 0, page_size = 1;
  std::vector<int32_t> pt;  // [B, W]
  // ragged
  bool ragged = false, with_starts = true;
  std::vector<int32_t> starts, offsets;
  int static_threshold = -1;

  Case(int b, int l, int k, int s = -1) : B(b), L(l), S(s < 0 ? (l + 3) / 4 * 4 : s), K(k) {
    scores.assign(static_cast<size_t>(B) * S, 0.0f);
    lens.assign(B, l);
    starts.assign(B, 0);
    offsets.assign(B, 0);
  }
  float* row(int b) { return scores.data() + static_cast<size_t>(b) * S; }
  void identity_table(int ps) {  // per-row permutation-free identity pages, W = ceil(L / ps)
    table = true; page_size = ps; W = (L + ps - 1) / ps;
    pt.resize(static_cast<size_t>(B) * W);
    for (int b = 0; b < B; ++b) for (int j = 0; j < W; ++j) pt[b * W + j] = (b * 7919 + j * 31) % 100003;
  }
};

struct Result {
  dsv4_result rc = DSV4_OK;
  std::string msg;
  std::vector<int32_t> out, raw;  // [B, K + kGuard]
  Status st;
  std::vector<int32_t> paths;
  bool guards_ok = true;
  bool scores_unchanged = true;
  int32_t plan_written = 0;
  std::vector<int32_t> meta;
};

Result run(Case& c, int validate = 1, bool skip_plan = false);

// Oracle verdict for a finished run (rows in error expected as all -1 where `row_error[b]`).
dsv4::oracle::CheckResult check(const Case& c, const Result& r, const std::vector<bool>& row_error = {});
std::string describe(const dsv4::oracle::CheckResult& cr);

// Sorted selected values of row b (for path-invariance comparisons); requires INDICES/DUAL/ragged.
std::vector<uint32_t> selected_keys(const Case& c, const Result& r, int b);

#define EXPECT_ORACLE(c, r) do { auto cr_ = tk::check((c), (r)); EXPECT_TRUE(cr_.ok) << tk::describe(cr_); } while (0)

}  // namespace tk
