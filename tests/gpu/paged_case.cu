// tests/gpu/paged_case.cu -- see paged_case.hpp.
#include "paged_case.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <sstream>

namespace dsv4::gpu_test {

::testing::AssertionResult PagedCase::init(int b, int l, int k, uint32_t seed, cudaStream_t s) {
  B = b;
  L = l;
  K = k;
  S = (L + 3) / 4 * 4;
  W = (L + kPageSize - 1) / kPageSize;
  scores = random_scores(static_cast<size_t>(B) * S, seed);
  lens.assign(B, L);
  d_scores.reset(static_cast<size_t>(B) * S);
  d_table.reset(static_cast<size_t>(B) * W);
  d_lens.reset(B);
  d_meta.reset(static_cast<size_t>(B + 1) * 2);
  d_out.reset(static_cast<size_t>(B) * (K + kGuard));
  if (!d_scores.ok() || !d_table.ok() || !d_lens.ok() || !d_meta.ok() || !d_out.ok())
    return ::testing::AssertionFailure() << "cudaMalloc failed";
  shuffle_table(seed ^ 0x9e3779b9u);
  const cudaError_t e = d_scores.upload(scores, s);
  if (e != cudaSuccess) return ::testing::AssertionFailure() << cudaGetErrorString(e);
  return ::testing::AssertionSuccess();
}

void PagedCase::shuffle_table(uint32_t seed) {
  std::mt19937 g(seed);
  table.resize(static_cast<size_t>(B) * W);
  std::vector<int32_t> perm(W);
  for (int b = 0; b < B; ++b) {
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), g);
    for (int j = 0; j < W; ++j) table[static_cast<size_t>(b) * W + j] = b * W + perm[j];
  }
}

::testing::AssertionResult PagedCase::upload_inputs(cudaStream_t s) {
  // +inf poison past each row's length: a kernel reading past n selects it (class 10).
  std::vector<float> sc = scores;
  for (int b = 0; b < B; ++b)
    for (int i = std::max(0, lens[b]); i < S; ++i) sc[static_cast<size_t>(b) * S + i] = INFINITY;
  cudaError_t e = d_scores.upload(sc, s);
  if (e == cudaSuccess) e = d_lens.upload(lens, s);
  if (e == cudaSuccess) e = d_table.upload(table, s);
  if (e == cudaSuccess)
    e = d_out.upload(std::vector<int32_t>(static_cast<size_t>(B) * (K + kGuard), kPrefill), s);
  if (e == cudaSuccess)
    e = d_meta.upload(std::vector<int32_t>(static_cast<size_t>(B + 1) * 2, kMetaPrefill), s);
  if (e != cudaSuccess) return ::testing::AssertionFailure() << cudaGetErrorString(e);
  return ::testing::AssertionSuccess();
}

std::string PagedCase::run(int static_threshold, cudaStream_t s, int validate, bool plan) {
  const auto& p = plugin();
  dsv4_message msg{};
  dsv4_tensor ts = t_scores(), tl = t_lens(), tp = t_table(), tm = t_meta(), to = t_out();
  if (plan && p.plan) {
    const dsv4_result r = p.plan(&tl, &tm, static_threshold, s, validate, &msg);
    if (r != DSV4_OK) return std::string("dsv4_topk_v2_plan: ") + msg.text;
  }
  const dsv4_result r = p.paged(&ts, &tl, &tp, &to, kPageSize, &tm, nullptr, s, validate, &msg);
  if (r != DSV4_OK) return std::string("dsv4_topk_v2_transform_paged: ") + msg.text;
  return "";
}

std::string PagedCase::verify(cudaStream_t s) const {
  std::vector<int32_t> out;
  if (d_out.download(out, s) != cudaSuccess) return "download failed";
  // Inverse of the (injective) table: table value -> (row, column).
  std::vector<int32_t> inv_col(static_cast<size_t>(B) * W, -1);
  for (int b = 0; b < B; ++b)
    for (int j = 0; j < W; ++j) inv_col[table[static_cast<size_t>(b) * W + j]] = j;
  std::ostringstream o;
  int failures = 0;
  for (int b = 0; b < B && failures < 4; ++b) {
    const int32_t* slots = out.data() + static_cast<size_t>(b) * (K + kGuard);
    for (int g = K; g < K + kGuard; ++g)
      if (slots[g] != kPrefill) {
        o << "row " << b << ": guard column " << g << " overwritten (" << slots[g] << "); ";
        ++failures;
        break;
      }
    const int32_t* trow = table.data() + static_cast<size_t>(b) * W;
    auto emit = [&](int64_t i) -> int64_t {
      return (int64_t(trow[i >> kPageBits]) << kPageBits) | (i & (kPageSize - 1));
    };
    auto invert = [&](int64_t y) -> int64_t {
      if (y < 0) return -1;
      const int64_t t = y >> kPageBits;
      if (t >= int64_t(B) * W || t / W != b) return -1;  // not a page of this row
      return (int64_t(inv_col[t]) << kPageBits) | (y & (kPageSize - 1));
    };
    const std::string e = check_topk_row(scores.data() + static_cast<size_t>(b) * S, lens[b], K,
                                         slots, emit, invert);
    if (!e.empty()) {
      o << "row " << b << " (n=" << lens[b] << "): " << e << "; ";
      ++failures;
    }
  }
  return o.str();
}

std::vector<int32_t> PagedCase::metadata(cudaStream_t s) const {
  std::vector<int32_t> m;
  d_meta.download(m, s);
  return m;
}

}  // namespace dsv4::gpu_test
