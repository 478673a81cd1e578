// oracle/amax8.cpp -- block amax (block_amax.md §3, §6): per-block maxNum, +inf newest key.
#include <Eigen/Core>
#include <cstring>
#include <limits>
#include <string>

#include "oracle/detail.hpp"
#include "oracle/oracle.hpp"

namespace dsv4::oracle {
namespace {

// Same key up to NaN payload and the sign of zero.
bool same_key(float got, float want) {
  if (is_nan_f32(got) || is_nan_f32(want)) return is_nan_f32(got) && is_nan_f32(want);
  if (got == 0.0f && want == 0.0f) return true;
  return detail::f32_bits(got) == detail::f32_bits(want);
}

}  // namespace

std::vector<float> amax8_expected(const float* scores, int64_t n, int32_t topk) {
  if (n < 0) detail::bad_input("amax8_expected", "n = " + std::to_string(n) + " < 0 is a row error (code 1)");
  if (topk < 0) detail::bad_input("amax8_expected", "topk = " + std::to_string(topk) + " < 0");
  const int64_t nk = (n + 7) / 8;
  if (nk <= topk) return {};  // skipped: nothing written (includes n = 0)
  if (nk > 1 && scores == nullptr) detail::bad_input("amax8_expected", "scores is null");
  std::vector<float> keys(static_cast<size_t>(nk));
  for (int64_t i = 0; i + 1 < nk; ++i) {
    // maxNum: NaN operands are ignored; NaN only when all 8 are NaN.
    Eigen::Map<const Eigen::Array<float, 8, 1>> block(scores + 8 * i);
    keys[i] = block.maxCoeff<Eigen::PropagateNumbers>();
  }
  keys[nk - 1] = std::numeric_limits<float>::infinity();
  return keys;
}

CheckResult check_amax8(const Amax8CheckArgs& args) {
  const int64_t kk = args.key_width;
  if (kk <= 0) detail::bad_input("check_amax8", "key_width = " + std::to_string(kk) + " must be > 0");
  if (args.topk < 0) detail::bad_input("check_amax8", "topk = " + std::to_string(args.topk) + " < 0");
  CheckResult res;
  for (size_t ri = 0; ri < args.rows.size(); ++ri) {
    const Amax8Row& r = args.rows[ri];
    const int64_t row = static_cast<int64_t>(ri);
    const std::string where = "check_amax8: row " + std::to_string(row);
    if (r.got == nullptr || r.sentinel == nullptr) detail::bad_input(where, "got and sentinel are required");
    ++res.rows_checked;
    // Codes 1 (n < 0) and 3 (nk > Kk, unless skipped) are derivable here; code 2 needs the caller's flag.
    std::vector<float> want;
    const int64_t nk = r.n < 0 ? 0 : (r.n + 7) / 8;
    const bool skipped = nk <= args.topk;
    if (!r.row_error && r.n >= 0 && !(nk > kk && !skipped)) want = amax8_expected(r.scores, r.n, args.topk);
    for (int64_t c = 0; c < kk; ++c) {
      const float g = r.got[c];
      if (c < static_cast<int64_t>(want.size())) {
        if (!same_key(g, want[c]))
          res.add({row, c, c + 1 == nk ? "newest key (must be +inf)" : "block key (max of scores[8c .. 8c+7])",
                   detail::fmt_value(g), detail::fmt_value(want[c])});
      } else if (detail::f32_bits(g) != r.sentinel[c]) {
        const char* why = r.row_error || r.n < 0 || (nk > kk && !skipped) ? "row error: key written"
                          : want.empty()                                  ? "skipped row (nk <= topk): key written"
                                                                          : "key past nk written";
        res.add({row, c, why, detail::fmt_value(g), "sentinel " + detail::fmt_value(detail::f32_from_bits(r.sentinel[c]))});
      }
    }
  }
  return res;
}

}  // namespace dsv4::oracle
