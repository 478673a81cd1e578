// oracle/plan.cpp -- Top-K v2 plan (topk_v2.md §6): expected threshold / listed set, and the check
// of a written metadata buffer [B+1, 2].
#include <algorithm>
#include <set>
#include <string>

#include "oracle/detail.hpp"
#include "oracle/oracle.hpp"

namespace dsv4::oracle {

PlanTable plan_table_sm90() {
  return {{{65536, 30}, {98304, 45}, {131072, 60}, {196608, 80}, {262144, 112}, {393216, 128}}};
}

PlanTable plan_table_sm100() {
  return {{{32768, 48}, {131072, 66}, {163840, 99}, {196608, 132}, {262144, 198}, {393216, 231}, {524288, 264}}};
}

PlanExpect plan_expected(const std::vector<int32_t>& seq_lens, int32_t static_threshold,
                         const PlanTable& table, int32_t t_min) {
  auto len = [](int32_t n) { return std::max<int32_t>(n, 0); };  // negative lengths count as 0
  int32_t s = static_threshold;
  if (static_threshold < 0) {
    const auto& e = table.entries;
    if (e.empty()) detail::bad_input("plan_expected", "heuristic threshold needs a non-empty candidate table");
    for (size_t j = 1; j < e.size(); ++j)
      if (e[j].first <= e[j - 1].first)
        detail::bad_input("plan_expected", "candidate thresholds must increase (entry " + std::to_string(j) + ")");
    s = e.back().first;
    for (size_t j = e.size(); j-- > 0;) {
      const int64_t g = std::count_if(seq_lens.begin(), seq_lens.end(),
                                      [&](int32_t n) { return len(n) > e[j].first; });
      if (g > e[j].second) break;
      s = e[j].first;
    }
  }
  PlanExpect p;
  p.threshold = std::max(s, t_min);
  for (size_t b = 0; b < seq_lens.size(); ++b)
    if (len(seq_lens[b]) > p.threshold) p.listed.push_back(static_cast<int32_t>(b));
  return p;
}

CheckResult check_plan(const std::vector<int32_t>& seq_lens, int32_t static_threshold,
                       const PlanTable& table, int32_t t_min, const int32_t* metadata,
                       const int32_t* prefill, int64_t batch) {
  if (batch != static_cast<int64_t>(seq_lens.size()))
    detail::bad_input("check_plan", "batch = " + std::to_string(batch) + " but seq_lens has " +
                                        std::to_string(seq_lens.size()) + " entries");
  if (metadata == nullptr) detail::bad_input("check_plan", "metadata is null");
  const PlanExpect want = plan_expected(seq_lens, static_threshold, table, t_min);
  const int64_t n_want = static_cast<int64_t>(want.listed.size());
  CheckResult res;
  res.rows_checked = batch + 1;
  // Row 0: header (T, N).
  if (metadata[0] != want.threshold)
    res.add({0, 0, "plan threshold T", std::to_string(metadata[0]), std::to_string(want.threshold)});
  if (metadata[1] != n_want)
    res.add({0, 1, "plan item count N", std::to_string(metadata[1]), std::to_string(n_want)});
  // Rows 1..N (expected N): the listed (batch_id, seq_len) pairs, as a set.
  std::set<int32_t> expected(want.listed.begin(), want.listed.end()), seen;
  for (int64_t r = 1; r <= n_want; ++r) {
    const int32_t id = metadata[2 * r], len = metadata[2 * r + 1];
    const std::string got = "(" + std::to_string(id) + ", " + std::to_string(len) + ")";
    if (!expected.count(id)) {
      res.add({r, -1, "plan item is not a row with seq_len > T", got,
               "a batch id with seq_len > " + std::to_string(want.threshold)});
    } else if (!seen.insert(id).second) {
      res.add({r, -1, "plan item repeats a batch id", got, "each listed row once"});
    } else if (len != seq_lens[id]) {
      res.add({r, 1, "plan item seq_len", got, "(" + std::to_string(id) + ", " + std::to_string(seq_lens[id]) + ")"});
    }
  }
  for (int32_t id : want.listed)
    if (!seen.count(id))
      res.add({0, -1, "plan row missing from the listing",
               "batch id " + std::to_string(id) + " (seq_len " + std::to_string(seq_lens[id]) + ") not in rows 1..N",
               "listed, since seq_len > T = " + std::to_string(want.threshold)});
  // Rows N+1..B: untouched (prefill = the whole [B+1, 2] buffer as it was before the call).
  if (prefill != nullptr)
    for (int64_t r = n_want + 1; r <= batch; ++r)
      for (int c = 0; c < 2; ++c)
        if (metadata[2 * r + c] != prefill[2 * r + c])
          res.add({r, c, "plan row past N was written", std::to_string(metadata[2 * r + c]),
                   "the pre-fill " + std::to_string(prefill[2 * r + c])});
  return res;
}

}  // namespace dsv4::oracle
