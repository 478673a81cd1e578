// oracle/topk.cpp -- Top-K v2 / bf16 small top-k: admissible answer and the exact verdict
// (topk_v2.md §3, §3.3; topk_bf16_small.md §3, §7). Selection by nth_element over the total
// order of bit patterns (order_key), never by bins or radix passes.
#include <Eigen/Core>
#include <algorithm>
#include <limits>
#include <vector>

#include "oracle/detail.hpp"
#include "oracle/oracle.hpp"

namespace dsv4::oracle {
namespace {

using detail::fmt_i32;
using detail::order_key;
constexpr int64_t kIntMin = std::numeric_limits<int32_t>::min();

// One row's values as fp32 (bf16 widened exactly), with a formatter in the row's own dtype.
struct RowValues {
  const float* data = nullptr;
  int64_t n = 0;
  std::vector<float> widened;
  const uint16_t* bf16 = nullptr;
  RowValues(const float* f32, const uint16_t* b16, int64_t len) : data(f32), n(len), bf16(b16) {
    if (b16 != nullptr) {
      widened.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) widened[i] = bf16_bits_to_float(b16[i]);
      data = widened.data();
    }
  }
  Eigen::Map<const Eigen::ArrayXf> map() const { return Eigen::Map<const Eigen::ArrayXf>(data, n); }
  float at(int64_t i) const { return data[i]; }
  std::string fmt(int64_t i) const { return bf16 ? detail::fmt_bf16(bf16[i]) : detail::fmt_value(data[i]); }
};

TopkAdmissible admissible_of(const Eigen::Map<const Eigen::ArrayXf>& x, int64_t k) {
  TopkAdmissible a;
  std::vector<uint32_t> keys;
  keys.reserve(static_cast<size_t>(x.size()));
  for (Eigen::Index i = 0; i < x.size(); ++i)
    if (!is_nan_f32(x(i))) keys.push_back(order_key(x(i)));
  a.n_valid = static_cast<int64_t>(keys.size());
  a.v = std::min(k, a.n_valid);
  if (a.v == 0) return a;
  auto desc = std::greater<uint32_t>();
  std::nth_element(keys.begin(), keys.begin() + (a.v - 1), keys.end(), desc);
  const uint32_t w = keys[a.v - 1];
  std::sort(keys.begin(), keys.begin() + a.v, desc);
  a.kth = detail::value_of_order_key(w);
  for (int64_t j = 0; j < a.v; ++j) a.top_values.push_back(detail::value_of_order_key(keys[j]));
  a.ties_required = std::count(keys.begin(), keys.begin() + a.v, w);
  a.ties_available = std::count(keys.begin(), keys.end(), w);
  return a;
}

void check_args(const char* entry, int64_t n, int64_t k) {
  if (k <= 0) detail::bad_input(entry, "k = " + std::to_string(k) + " must be > 0");
  if (n < 0) detail::bad_input(entry, "n = " + std::to_string(n) + " must be >= 0");
}

// Checks one non-trivial row (n > K). Messages about the DUAL raw output are prefixed "raw ".
class RowChecker {
 public:
  RowChecker(CheckResult& res, int64_t row, int64_t k, const TopkRow& r, const RowValues& vals)
      : res_(res), row_(row), k_(k), r_(r), vals_(vals), n_(r.n) {
    adm_ = admissible_of(vals.map(), k);
    wkey_ = adm_.v > 0 ? order_key(adm_.kth) : 0;
    for (int64_t i = 0; i < n_; ++i) m_count_ += in_m(i);
  }

  void run() {
    check_layout(r_.got, "");
    if (r_.got_raw != nullptr) {
      check_layout(r_.got_raw, "raw ");
      check_dual_consistency();
      std::vector<std::pair<int64_t, int64_t>> pos;  // (slot, position)
      for (int64_t s = 0; s < k_; ++s)
        if (r_.got_raw[s] != -1) pos.push_back({s, r_.got_raw[s]});
      check_positions(pos, "raw ");
    } else if (injective()) {
      check_positions(invert(), "");
    } else {
      check_counting_rule();
    }
  }

 private:
  bool nan_at(int64_t i) const { return is_nan_f32(vals_.at(i)); }
  bool in_m(int64_t i) const { return !nan_at(i) && adm_.v > 0 && order_key(vals_.at(i)) > wkey_; }
  bool in_t(int64_t i) const { return !nan_at(i) && adm_.v > 0 && order_key(vals_.at(i)) == wkey_; }
  std::string kth() const { return adm_.v > 0 ? detail::fmt_value(adm_.kth) : std::string("(none: no non-NaN value)"); }
  void add(int64_t slot, std::string what, std::string got, std::string want) {
    Mismatch m{row_, slot, std::move(what), std::move(got), std::move(want)};
    if (buffering_) pending_.push_back(std::move(m)); else res_.add(std::move(m));
  }
  // Per-slot findings are held back so that a row's "missing value" summary is reported first.
  void begin_buffer() { buffering_ = true; pending_.clear(); }
  void flush_buffer() {
    buffering_ = false;
    for (auto& m : pending_) res_.add(std::move(m));
    pending_.clear();
  }

  void check_layout(const int32_t* out, const std::string& tag) {
    for (int64_t s = 0; s < k_; ++s) {
      const bool valid = out[s] != -1;
      if (s < adm_.v && !valid)
        add(s, tag + "slot is -1 inside the valid prefix", "-1",
            "a selected position (v = min(K, n_v) = " + std::to_string(adm_.v) + " valid slots)");
      else if (s >= adm_.v && valid)
        add(s, tag + "slot not -1 after the valid prefix", fmt_i32(out[s]),
            "-1 (v = " + std::to_string(adm_.v) + ", n_v = " + std::to_string(adm_.n_valid) + ")");
    }
  }

  void check_dual_consistency() {
    for (int64_t s = 0; s < k_; ++s) {
      const int64_t page = r_.got[s], raw = r_.got_raw[s];
      if ((page == -1) != (raw == -1)) {
        add(s, "DUAL outputs disagree on -1", "page " + fmt_i32(page) + ", raw " + fmt_i32(raw), "both -1 or neither");
      } else if (raw != -1 && raw >= 0 && raw < n_) {
        const int64_t want = r_.transform.apply(raw);
        if (page != want)
          add(s, "DUAL page output != g(raw)", "page " + fmt_i32(page) + " for raw " + std::to_string(raw),
              "g(" + std::to_string(raw) + ") = " + fmt_i32(want));
      }
    }
  }

  // True when g restricted to [0, n) is injective and never fails (no INT32_MIN).
  bool injective() {
    if (r_.transform.kind == Transform::Identity) return true;
    const int64_t bits = r_.transform.page_bits;
    const int64_t pages = ((n_ - 1) >> bits) + 1;
    if (pages > r_.transform.table_width) return false;
    entries_.clear();
    for (int64_t p = 0; p < pages; ++p) {
      const int64_t t = r_.transform.table[p];
      if (t < 0 || t > (std::numeric_limits<int32_t>::max() >> bits)) return false;
      entries_.push_back({t, p});
    }
    std::sort(entries_.begin(), entries_.end());
    for (size_t j = 1; j < entries_.size(); ++j)
      if (entries_[j].first == entries_[j - 1].first) return false;
    return true;
  }

  // Inverts every valid primary slot to its position (or reports it).
  std::vector<std::pair<int64_t, int64_t>> invert() {
    std::vector<std::pair<int64_t, int64_t>> pos;
    for (int64_t s = 0; s < k_; ++s) {
      const int64_t y = r_.got[s];
      if (y == -1) continue;
      int64_t i = -1;
      if (r_.transform.kind == Transform::Identity) {
        i = y - r_.transform.offset;
      } else if (y >= 0) {
        const int64_t bits = r_.transform.page_bits;
        auto it = std::lower_bound(entries_.begin(), entries_.end(), std::pair<int64_t, int64_t>{y >> bits, -1});
        if (it != entries_.end() && it->first == (y >> bits))
          i = (it->second << bits) | (y & ((int64_t{1} << bits) - 1));
      }
      if (i < 0 || i >= n_) {
        add(s, "slot value is not g(i) of any position i in [0, n)", fmt_i32(y),
            "g(i) for some i < n = " + std::to_string(n_));
        continue;
      }
      pos.push_back({s, i});
    }
    return pos;
  }

  void check_positions(const std::vector<std::pair<int64_t, int64_t>>& pos, const std::string& tag) {
    std::vector<uint8_t> selected(static_cast<size_t>(n_), 0);
    std::vector<int64_t> slot_of(static_cast<size_t>(n_), -1);
    int64_t selected_m = 0, lowest_pos = -1;
    begin_buffer();
    for (auto [s, i] : pos) {
      if (i < 0 || i >= n_) {
        add(s, tag + "position out of range", std::to_string(i), "[0, " + std::to_string(n_) + ")");
        continue;
      }
      if (selected[i]) {
        add(s, tag + "duplicate position", "position " + std::to_string(i) + " (also in slot " +
            std::to_string(slot_of[i]) + ")", "distinct positions");
        continue;
      }
      selected[i] = 1;
      slot_of[i] = s;
      if (nan_at(i)) {
        add(s, tag + "NaN position selected", "position " + std::to_string(i) + " = " + vals_.fmt(i),
            "a non-NaN value (NaN is absent)");
        continue;
      }
      if (in_m(i)) { ++selected_m; continue; }
      if (lowest_pos < 0 || order_key(vals_.at(i)) < order_key(vals_.at(lowest_pos))) lowest_pos = i;
      if (!in_t(i))
        add(s, tag + "selected value below the k-th value",
            vals_.fmt(i) + " at position " + std::to_string(i), ">= the k-th value " + kth());
    }
    buffering_ = false;
    if (selected_m < m_count_) {
      int64_t first_missing = -1;
      for (int64_t i = 0; i < n_ && first_missing < 0; ++i)
        if (in_m(i) && !selected[i]) first_missing = i;
      std::string got = std::to_string(selected_m) + " of the " + std::to_string(m_count_) +
                        " values above the k-th value " + kth() + " selected";
      if (lowest_pos >= 0)
        got += "; selected " + vals_.fmt(lowest_pos) + " at position " + std::to_string(lowest_pos) +
               " (slot " + std::to_string(slot_of[lowest_pos]) + ")";
      add(-1, tag + "missing value", got,
          "value " + vals_.fmt(first_missing) + " at position " + std::to_string(first_missing) + " (" +
              std::to_string(m_count_ - selected_m) + " missing in all)");
    }
    flush_buffer();
  }

  // topk_v2.md §3.3 per-value counting rule: |P_y ∩ M| <= c_y <= |P_y ∩ (M ∪ T)|.
  void check_counting_rule() {
    struct Event { int64_t y; int kind; int64_t where; };  // kind 0: M position, 1: T position, 2: slot
    std::vector<Event> ev;
    for (int64_t i = 0; i < n_; ++i) {
      if (in_m(i)) ev.push_back({r_.transform.apply(i), 0, i});
      else if (in_t(i)) ev.push_back({r_.transform.apply(i), 1, i});
    }
    for (int64_t s = 0; s < k_; ++s)
      if (r_.got[s] != -1) ev.push_back({r_.got[s], 2, s});
    std::sort(ev.begin(), ev.end(), [](const Event& a, const Event& b) {
      return a.y != b.y ? a.y < b.y : (a.kind != b.kind ? a.kind < b.kind : a.where < b.where);
    });
    std::vector<Mismatch> too_often;
    for (size_t j = 0; j < ev.size();) {
      size_t e = j;
      int64_t lo = 0, hi = 0, c = 0, first_m = -1, first_slot = -1;
      for (; e < ev.size() && ev[e].y == ev[j].y; ++e) {
        if (ev[e].kind == 0) { ++lo; ++hi; if (first_m < 0) first_m = ev[e].where; }
        if (ev[e].kind == 1) ++hi;
        if (ev[e].kind == 2) { ++c; if (first_slot < 0) first_slot = ev[e].where; }
      }
      const std::string y = fmt_i32(ev[j].y);
      if (c < lo)
        add(-1, "missing value", "output value " + y + " emitted " + std::to_string(c) + " times",
            "at least " + std::to_string(lo) + " (positions above the k-th value " + kth() +
                " mapping to it, e.g. " + vals_.fmt(first_m) + " at position " + std::to_string(first_m) + ")");
      if (c > hi)
        too_often.push_back({row_, first_slot, "output value emitted more often than admissible",
            y + " emitted " + std::to_string(c) + " times",
            "at most " + std::to_string(hi) + " (positions with value >= the k-th value " + kth() + " mapping to it)"});
      j = e;
    }
    for (auto& m : too_often) res_.add(std::move(m));
  }

  CheckResult& res_;
  int64_t row_, k_;
  const TopkRow& r_;
  const RowValues& vals_;
  int64_t n_;
  TopkAdmissible adm_;
  uint32_t wkey_ = 0;
  int64_t m_count_ = 0;
  std::vector<std::pair<int64_t, int64_t>> entries_;  // (table entry, page), sorted
  bool buffering_ = false;
  std::vector<Mismatch> pending_;
};

void check_trivial(CheckResult& res, int64_t row, int64_t k, const TopkRow& r) {
  for (int64_t s = 0; s < k; ++s) {
    const int64_t want = s < r.n ? r.transform.apply(s) : -1;
    if (r.got[s] != want)
      res.add({row, s, "trivial row (n <= K) slot", fmt_i32(r.got[s]),
               fmt_i32(want) + (s < r.n ? " = g(" + std::to_string(s) + ")" : std::string())});
    if (r.got_raw != nullptr) {
      const int64_t want_raw = s < r.n ? s : -1;
      if (r.got_raw[s] != want_raw)
        res.add({row, s, "trivial row (n <= K) raw slot", fmt_i32(r.got_raw[s]), fmt_i32(want_raw)});
    }
  }
}

}  // namespace

TopkAdmissible topk_admissible(const float* values, int64_t n, int64_t k) {
  check_args("topk_admissible", n, k);
  if (n > 0 && values == nullptr) detail::bad_input("topk_admissible", "values is null");
  return admissible_of(Eigen::Map<const Eigen::ArrayXf>(values, n), k);
}

TopkAdmissible topk_admissible_bf16(const uint16_t* bits, int64_t n, int64_t k) {
  check_args("topk_admissible_bf16", n, k);
  if (n > 0 && bits == nullptr) detail::bad_input("topk_admissible_bf16", "bits is null");
  RowValues vals(nullptr, bits, n);
  return admissible_of(vals.map(), k);
}

CheckResult check_topk(const TopkCheckArgs& args, uint32_t* codes_seen) {
  CheckResult res;
  uint32_t codes = 0;
  const int64_t k = args.k;
  if (k <= 0) detail::bad_input("check_topk", "k = " + std::to_string(k) + " must be > 0");
  for (size_t ri = 0; ri < args.rows.size(); ++ri) {
    const TopkRow& r = args.rows[ri];
    const int64_t row = static_cast<int64_t>(ri);
    const std::string where = "check_topk: row " + std::to_string(row);
    if (r.got == nullptr) detail::bad_input(where, "got is null");
    if (r.transform.kind == Transform::PageTable && r.transform.table == nullptr && r.transform.table_width > 0)
      detail::bad_input(where, "page table is null but table_width > 0");
    for (int64_t s = 0; s < k; ++s)
      if (r.got[s] == kIntMin) codes |= 1u << 5;
    ++res.rows_checked;
    if (r.expect == RowExpect::RowError) {
      for (int64_t s = 0; s < k; ++s) {
        if (r.got[s] != -1) res.add({row, s, "row error: slot not -1", fmt_i32(r.got[s]), "-1"});
        if (r.got_raw && r.got_raw[s] != -1) res.add({row, s, "row error: raw slot not -1", fmt_i32(r.got_raw[s]), "-1"});
      }
      continue;
    }
    if (r.n < 0) detail::bad_input(where, "n = " + std::to_string(r.n) + " < 0 must be expected as RowError");
    if (r.n <= k) { check_trivial(res, row, k, r); continue; }
    if ((r.values_f32 == nullptr) == (r.values_bf16 == nullptr))
      detail::bad_input(where, "exactly one of values_f32 / values_bf16 must be given for n > K");
    RowValues vals(r.values_f32, r.values_bf16, r.n);
    RowChecker(res, row, k, r, vals).run();
  }
  if (codes_seen) *codes_seen = codes;
  return res;
}

}  // namespace dsv4::oracle
