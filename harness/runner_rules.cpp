// harness/runner_rules.cpp -- what the harness EXPECTS before running: metadata rules (host error
// in both modes), checked-mode value rules, and capability skips. Sources: spec README §4,
// topk_v2.md §2/§9, topk_bf16_small.md §2, block_amax.md §2/§5, candidate_block_table.md §2/§7.
#include <algorithm>
#include <climits>

#include "fpbits.hpp"
#include "runner_detail.hpp"

namespace dsv4::harness::detail {
namespace {

std::string s(int64_t v) { return std::to_string(v); }

bool pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int64_t table_width(const Materialized& m) { return m.page_table.present ? m.page_table.cols : 0; }

}  // namespace

std::string metadata_violation(const Case& c, const Materialized& m, const dsv4_capabilities& caps) {
  const Shape& sh = c.shape;
  const int64_t S = row_stride(c);
  const int64_t k = sh.k;
  switch (c.kernel) {
    case KernelId::TopkV2Paged: case KernelId::TopkV2Ragged:
      if (k <= 0 || k > 2048) return "k = " + s(k) + " outside (0, 2048]";
      if (c.kernel == KernelId::TopkV2Ragged && c.knobs.force_path > DSV4_PATH_STREAMING &&
          c.knobs.force_path != DSV4_PATH_ROW_ERROR)  // (report-only values: the knob rules refuse them)
        return "force_path " + s(c.knobs.force_path) + " (cluster / pool) on the ragged entry";
      if (S % 4 != 0) return "scores row stride " + s(S) + " not a multiple of 4";
      if ((sh.base_offset * 4) % 16 != 0) return "scores base not 16-byte aligned";
      if (c.kernel == KernelId::TopkV2Paged && (!pow2(sh.page_size) || sh.page_size > (int64_t(1) << 30)))
        return "page_size " + s(sh.page_size) + " not a power of two in [1, 2^30]";
      return "";
    case KernelId::Bf16Small:
      if (k <= 0 || k > 2048) return "k = " + s(k) + " outside (0, 2048]";
      if (sh.width > 16384) return "L = " + s(sh.width) + " above 16384";
      if (S % 8 != 0) return "scores row stride " + s(S) + " not a multiple of 8";
      if ((sh.base_offset * 2) % 16 != 0) return "scores base not 16-byte aligned";
      if (!pow2(sh.page_size) || sh.page_size > (int64_t(1) << 30))
        return "page_size " + s(sh.page_size) + " not a power of two in [1, 2^30]";
      return "";
    case KernelId::Amax8:
      if (m.k <= 0) return "key width Kk = " + s(m.k) + " not positive";
      if (c.knobs.amax_topk < 0) return "topk = " + s(c.knobs.amax_topk) + " negative";
      if (S % 8 != 0) return "scores row stride " + s(S) + " not a multiple of 8";
      if ((sh.base_offset * 4) % 32 != 0) return "scores base not 32-byte aligned";
      return "";
    case KernelId::CandidateTable:
      if (k <= 0 || k > 2048) return "K = " + s(k) + " outside (0, 2048]";
      if (!pow2(sh.page_size) || sh.page_size < 8 || sh.page_size > (int64_t(1) << 30))
        return "page_size " + s(sh.page_size) + " not a power of two in [8, 2^30]";
      // candidate_block_table.md §5: the host rejects tables covering more than 262144 blocks.
      if (table_width(m) * (sh.page_size / 8) > 262144)
        return "page table covers W * page_size / 8 = " + s(table_width(m) * (sh.page_size / 8)) + " blocks > 262144";
      return "";
    case KernelId::Pipeline: {
      const int64_t k2 = sh.k2 > 0 ? sh.k2 : 2048;
      if (k <= 0 || k > 2048) return "final k = " + s(k) + " outside (0, 2048]";
      if (k2 <= 0 || k2 > 2048) return "block k2 = " + s(k2) + " outside (0, 2048]";
      if (sh.width == 0) return "L = 0 (zero-width logits)";
      if (S % 8 != 0) return "logits row stride " + s(S) + " not a multiple of 8";
      if ((sh.base_offset * 4) % 32 != 0) return "logits base not 32-byte aligned";
      if (!pow2(sh.page_size) || sh.page_size < 8 || sh.page_size > (int64_t(1) << 30))
        return "index page_size " + s(sh.page_size) + " not a power of two in [8, 2^30]";
      if (table_width(m) * (sh.page_size / 8) > 262144)
        return "index page table covers W * page_size / 8 = " + s(table_width(m) * (sh.page_size / 8)) + " blocks > 262144";
      return "";
    }
    case KernelId::TopkV2Plan:
      return "";
  }
  (void)caps;
  return "";
}

bool metadata_ambiguous(const Case& c) {
  // A zero-width score tensor (L = 0, hence row stride 0 without padding): the spec does not say
  // whether a row stride of 0 is acceptable; both a host error and success are accepted.
  return c.shape.width == 0 && row_stride(c) == 0 && c.kernel != KernelId::CandidateTable &&
         c.kernel != KernelId::TopkV2Plan;
}

std::string checked_violation(const Case& c, const Materialized& m, const dsv4_capabilities& caps) {
  const int64_t L = c.shape.width, W = table_width(m);
  const int64_t ps = c.shape.page_size > 0 ? c.shape.page_size : 1;
  for (int64_t b = 0; b < m.batch; ++b) {
    const int64_t n = seq_len_of(c, b);
    const std::string at = "seq_lens[" + s(b) + "] = " + s(n);
    switch (c.kernel) {
      case KernelId::TopkV2Paged: case KernelId::Bf16Small:
        if (n < 0 || n > L) return at + " outside [0, L=" + s(L) + "]";
        if (m.page_table.present && W < (n + ps - 1) / ps) return "page table width " + s(W) + " < ceil(" + at + " / page_size)";
        break;
      case KernelId::TopkV2Ragged: {
        const int64_t rs = row_start_of(c, b), off = out_offset_of(c, b);
        if (n < 0) return at + " negative";
        if (rs < 0) return "row_starts[" + s(b) + "] = " + s(rs) + " negative";
        if (rs + n > L) return "row_starts + " + at + " > L=" + s(L);
        if (off < 0 || off + n - 1 > INT32_MAX) return "out_offsets[" + s(b) + "] = " + s(off) + " out of range";
        break;
      }
      case KernelId::Amax8:
        if (n < 0 || n > L) return at + " outside [0, L=" + s(L) + "]";
        if ((n + 7) / 8 > m.k) return "ceil(" + at + " / 8) > key width " + s(m.k);
        break;
      case KernelId::CandidateTable: {
        if (n < 0) return at + " negative";
        const int64_t nb = (n + 7) / 8, bpp = c.shape.page_size / 8 > 0 ? c.shape.page_size / 8 : 1;
        if (W < (nb + bpp - 1) / bpp) return "page table width " + s(W) + " does not cover " + at;
        break;
      }
      case KernelId::TopkV2Plan:
        if (n < 0) return at + " negative";
        break;
      case KernelId::Pipeline: {
        if (n < 0 || n > L) return at + " outside [0, L=" + s(L) + "]";
        const int64_t nb = (n + 7) / 8, bpp = c.shape.page_size / 8 > 0 ? c.shape.page_size / 8 : 1;
        if (W < (nb + bpp - 1) / bpp) return "index page table width " + s(W) + " does not cover " + at;
        break;
      }
    }
  }
  (void)caps;
  return "";
}

std::string capability_skip(const Case& c, const Materialized& m, const Impl& impl) {
  const ImplTable& f = impl.fn();
  const dsv4_capabilities& caps = impl.caps();
  auto missing = [](const char* e) { return std::string("entry ") + e + " not implemented"; };
  switch (c.kernel) {
    case KernelId::TopkV2Paged:
      if (!f.topk_v2_transform_paged) return missing("dsv4_topk_v2_transform_paged");
      if (!(caps.topk_v2_modes & (1u << int(c.mode)))) return std::string("paged mode ") + mode_name(c.mode) + " not supported";
      break;
    case KernelId::TopkV2Ragged:
      if (!f.topk_v2_transform_ragged) return missing("dsv4_topk_v2_transform_ragged");
      break;
    case KernelId::TopkV2Plan:
      if (!f.topk_v2_plan) return missing("dsv4_topk_v2_plan");
      if (!f.topk_v2_plan_is_written) return missing("dsv4_topk_v2_plan_is_written");
      break;
    case KernelId::Bf16Small:
      if (!f.topk_bf16_small_transform) return missing("dsv4_topk_bf16_small_transform");
      if (c.shape.width > caps.bf16_len_max && c.shape.width <= 16384)
        return "L = " + std::to_string(c.shape.width) + " above bf16_len_max " + std::to_string(caps.bf16_len_max);
      break;
    case KernelId::Amax8:
      if (!f.amax8_varlen) return missing("dsv4_amax8_varlen");
      break;
    case KernelId::CandidateTable:
      if (!f.sort_candidate_blocks) return missing("dsv4_sort_candidate_blocks");
      break;
    case KernelId::Pipeline:
      if (!f.amax8_varlen || !f.topk_v2_transform_paged || !f.sort_candidate_blocks || !f.topk_bf16_small_transform)
        return "pipeline needs amax8, Top-K v2 paged, sort_candidate_blocks and bf16 small top-k";
      break;
  }
  const Knobs& k = c.knobs;
  if (!f.set_config) {
    const bool non_default = k.force_path != 0 || k.tie_capacity >= 0 || k.register2_max >= 0 ||
                             k.register4_max >= 0 || k.cluster_floor_small >= 0 || k.cluster_floor_large >= 0 ||
                             k.small_batch_cut >= 0 || k.cluster_max_batch >= 0 || k.plan_t_min >= 0 ||
                             k.cluster_enable >= 0 || k.inject_probe_c8 >= 0 || k.inject_probe_c16 >= 0 ||
                             k.early_read >= 0;
    if (non_default) return "configuration knobs set but dsv4_set_config not implemented";
  }
  if (k.force_path != 0) {
    if (k.force_path == DSV4_PATH_TRIVIAL || k.force_path == DSV4_PATH_ROW_ERROR)
      return "force_path " + std::to_string(k.force_path) + " is a report-only path value";
    if (!caps.can_force_path) return "force_path set but the implementation cannot force paths";
    if (k.force_path < 0 || k.force_path >= DSV4_PATH_COUNT || !(caps.paths & DSV4_PATH_BIT(k.force_path)))
      return "force_path " + std::to_string(k.force_path) + " is not a path of this implementation";
  }
  if (!caps.has_tunables && (k.tie_capacity >= 0 || k.register2_max >= 0 || k.register4_max >= 0))
    return "tunables set but the implementation has none";
  const int64_t kk = c.kernel == KernelId::Pipeline ? std::max(c.shape.k, c.shape.k2 > 0 ? c.shape.k2 : 2048) : c.shape.k;
  if (c.kernel != KernelId::Amax8 && c.kernel != KernelId::TopkV2Plan && kk > caps.k_max && kk <= 2048)
    return "k = " + std::to_string(kk) + " above k_max " + std::to_string(caps.k_max);
  if (c.shape.page_size > caps.page_size_max && c.shape.page_size <= (int64_t(1) << 30) &&
      c.kernel != KernelId::Amax8 && c.kernel != KernelId::TopkV2Ragged && c.kernel != KernelId::TopkV2Plan)
    return "page_size above page_size_max " + std::to_string(caps.page_size_max);
  // Declared input domain: NaN where the entry must read and rank it (spec README §4).
  if (!caps.nan_supported && m.scores.present) {
    for (int64_t b = 0; b < m.batch; ++b) {
      const int64_t n = seq_len_of(c, b);
      if (expected_row_code(c, b, caps.candidate_capacity) != 0) continue;
      int64_t lo = m.win_start[size_t(b)], hi = lo + m.win_len[size_t(b)];
      if (c.kernel == KernelId::Amax8) {
        const int64_t nk = (n + 7) / 8;
        if (nk <= k.amax_topk) continue;
        hi = lo + 8 * (nk > 0 ? nk - 1 : 0);
      } else if (n <= c.shape.k) {
        continue;  // trivial rows do not read scores
      }
      for (int64_t p = lo; p < hi; ++p) {
        const bool nan = m.scores.dtype == DSV4_BFLOAT16 ? fp::is_nan16(m.scores.at<uint16_t>(b, p))
                                                         : fp::is_nan(m.scores.at<uint32_t>(b, p));
        if (nan) return "NaN score in the read window of row " + std::to_string(b) + " (nan_supported = 0)";
      }
    }
  }
  return "";
}

int64_t effective_candidate_capacity(const dsv4_capabilities& caps, int64_t table_width, int64_t page_size) {
  const int64_t declared = caps.candidate_capacity > 0 ? caps.candidate_capacity : 131072;
  if (declared <= 131072) return declared;
  const int64_t bpp = page_size / 8 > 0 ? page_size / 8 : 1;
  return table_width * bpp > 131072 ? std::min<int64_t>(declared, 262144) : 131072;
}

}  // namespace dsv4::harness::detail
