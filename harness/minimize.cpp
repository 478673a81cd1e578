// harness/minimize.cpp -- greedy case shrinking (see minimize.hpp).
#include "minimize.hpp"

#include <algorithm>
#include <climits>
#include <vector>

#include "rng.hpp"

namespace dsv4::harness {

FailureClass failure_class(const Outcome& o) {
  FailureClass f;
  f.verdict = o.verdict;
  if (!o.row_paths.empty() && !o.check.bad_rows.empty()) {
    const int64_t r = o.check.bad_rows.front();
    if (r >= 0 && r < int64_t(o.row_paths.size())) f.path = o.row_paths[size_t(r)];
  }
  return f;
}

bool same_failure(const FailureClass& want, const Outcome& o) {
  if (o.verdict != want.verdict) return false;
  if (want.path < 0) return true;
  for (int64_t r : o.check.bad_rows)
    if (r >= 0 && r < int64_t(o.row_paths.size()) && o.row_paths[size_t(r)] == want.path) return true;
  return false;
}

Case remove_row(const Case& c, int64_t b) {
  Case d = c;
  const int64_t B = c.shape.batch;
  if (b < 0 || b >= B) return d;
  // one explicit recipe per row, seeds remapped so that row_seed(d, j') == row_seed(c, j)
  d.rows.clear();
  for (int64_t j = 0; j < B; ++j) {
    if (j == b) continue;
    const int64_t nj = j < b ? j : j - 1;
    RowRecipe r = recipe_of(c, j);
    r.seed = r.seed ^ mix64(uint64_t(j) + 0x5EEDull) ^ mix64(uint64_t(nj) + 0x5EEDull);
    d.rows.push_back(std::move(r));
  }
  auto erase_at = [b](std::vector<int32_t>& v) { if (b < int64_t(v.size())) v.erase(v.begin() + b); };
  // materialize missing per-row defaults before erasing so later rows keep their values
  d.seq_lens.resize(size_t(B));
  for (int64_t j = 0; j < B; ++j) d.seq_lens[size_t(j)] = seq_len_of(c, j);
  erase_at(d.seq_lens);
  auto pad = [B](std::vector<int32_t>& v) { if (!v.empty()) v.resize(size_t(B), 0); };
  pad(d.row_starts);
  pad(d.out_offsets);
  erase_at(d.row_starts);
  erase_at(d.out_offsets);
  for (auto& t : d.table_injections) if (t.row > b) --t.row;
  d.table_injections.erase(std::remove_if(d.table_injections.begin(), d.table_injections.end(),
                                          [b](const TableInjection& t) { return t.row == b; }),
                           d.table_injections.end());
  d.shape.batch = int32_t(B - 1);
  return d;
}

namespace {

Case with_width(const Case& c, int32_t w) {
  Case d = c;
  const int32_t L = c.shape.width;
  d.shape.width = w;
  d.seq_lens.resize(size_t(std::max(c.shape.batch, 0)));
  for (int64_t j = 0; j < c.shape.batch; ++j) {
    const int64_t n = seq_len_of(c, j);
    int64_t nn = n < 0 ? n : n <= L ? std::min<int64_t>(n, w) : int64_t(w) + (n - L);
    d.seq_lens[size_t(j)] = int32_t(std::clamp<int64_t>(nn, INT32_MIN, INT32_MAX));
  }
  return d;
}

// Knobs (dsv4_config fields, checked mode, the plan's static threshold), the page-table kind,
// the layout paddings and the CPU schedule: the first one whose default still fails is taken.
template <class Attempt>
bool simplify_configuration(const Case& best, Attempt&& attempt) {
  const Knobs dk;
  std::vector<Case> cands;  // one setting back to its default each, in this order
  auto with = [&](auto&& edit) { Case d = best; edit(d); if (!(d == best)) cands.push_back(std::move(d)); };
  for (int32_t Knobs::*f : {&Knobs::force_path, &Knobs::tie_capacity, &Knobs::register2_max, &Knobs::register4_max,
                            &Knobs::cluster_floor_small, &Knobs::cluster_floor_large, &Knobs::small_batch_cut,
                            &Knobs::cluster_max_batch, &Knobs::plan_t_min, &Knobs::cluster_enable,
                            &Knobs::inject_probe_c8, &Knobs::inject_probe_c16, &Knobs::early_read,
                            &Knobs::static_threshold})
    with([&](Case& d) { d.knobs.*f = dk.*f; });
  with([&](Case& d) { d.knobs.validate = dk.validate; });
  with([](Case& d) { d.table_kind = TableKind::Identity; });
  const Shape ds;
  with([&](Case& d) { d.shape.stride_pad = ds.stride_pad; });
  with([&](Case& d) { d.shape.base_offset = ds.base_offset; });
  with([&](Case& d) { d.shape.out_pad = ds.out_pad; });
  with([&](Case& d) { d.shape.width_delta = ds.width_delta; });
  with([](Case& d) { d.schedule = Schedule{}; });
  for (const Case& d : cands)
    if (attempt(d)) return true;
  return false;
}

}  // namespace

Case minimize_case(const Case& c0, const std::function<bool(const Case&)>& still_fails, int max_runs,
                   MinimizeStats* stats) {
  Case best = c0;
  int runs = 0, accepted = 0;
  auto attempt = [&](const Case& cand) {
    if (runs >= max_runs || cand == best) return false;
    ++runs;
    if (!still_fails(cand)) return false;
    best = cand;
    ++accepted;
    return true;
  };
  bool progress = true;
  while (progress && runs < max_runs) {
    progress = false;
    // 1. fewer rows: keep one row, then drop rows one by one
    for (int64_t keep = 0; keep < best.shape.batch && best.shape.batch > 1 && !progress; ++keep) {
      Case d = best;
      for (int64_t j = best.shape.batch - 1; j >= 0; --j) if (j != keep) d = remove_row(d, j);
      progress = attempt(d);
    }
    for (int64_t j = best.shape.batch - 1; j >= 0 && best.shape.batch > 1 && !progress; --j)
      progress = attempt(remove_row(best, j));
    // 2. shorter rows
    for (int32_t w : {best.shape.width / 2, best.shape.width * 3 / 4, best.shape.width - 1}) {
      if (progress || w < 0 || w >= best.shape.width) continue;
      progress = attempt(with_width(best, w));
    }
    for (size_t j = 0; j < best.seq_lens.size() && !progress; ++j) {
      for (int32_t n : {best.seq_lens[j] / 2, best.seq_lens[j] - 1}) {
        if (progress || best.seq_lens[j] <= 0 || n < 0) continue;
        Case d = best;
        d.seq_lens[j] = n;
        progress = attempt(d);
      }
    }
    // 3. fewer injections, literals, table injections
    for (size_t r = 0; r < best.rows.size() && !progress; ++r) {
      for (size_t i = 0; i < best.rows[r].injections.size() && !progress; ++i) {
        Case d = best;
        d.rows[r].injections.erase(d.rows[r].injections.begin() + long(i));
        progress = attempt(d);
      }
      if (!progress && !best.rows[r].literal.empty()) {
        Case d = best;
        d.rows[r].literal.clear();
        progress = attempt(d);
      }
    }
    for (size_t i = 0; i < best.table_injections.size() && !progress; ++i) {
      Case d = best;
      d.table_injections.erase(d.table_injections.begin() + long(i));
      progress = attempt(d);
    }
    // 4. smaller k
    for (int32_t k : {best.shape.k / 2, best.shape.k - 1}) {
      if (progress || k < 1 || k >= best.shape.k) continue;
      Case d = best;
      d.shape.k = k;
      progress = attempt(d);
    }
    // 5. plainer configuration, one setting at a time back to its default
    if (!progress) progress = simplify_configuration(best, attempt);
  }
  if (stats) { stats->runs = runs; stats->accepted = accepted; }
  return best;
}

}  // namespace dsv4::harness
