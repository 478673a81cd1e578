// properties/generators.hpp -- RapidCheck generators of harness Cases, one per kernel family.
//
// Every generator builds a dsv4::harness::Case (harness/case.hpp) from the SAME recipe vocabulary
// the fuzz decoder uses (Dist, Injection, TableKind, Poison, Knobs): a property never builds tensors
// itself, the one materializer does. Value pools are HOSTILE on purpose (spec topk_v2.md §10,
// bug_classes.md): NaN / ±inf / ±0 / subnormals, bin edges ±1 ulp at both widths, RNE midpoints,
// halfway-fp16 values, single-bin rows, > 2048 elements in the threshold bin, heavy ties at the
// k-th value, largest values last; seq_lens on every boundary (0, 1, k-1, k, k+1, each dispatch
// threshold ±1 of THIS instantiation, the full width); page sizes 1..4096 (sometimes 2^20).
//
// Sizes are bounded so one case runs in milliseconds on the CPU (simt) backend. Thresholds follow
// the instantiation: set gen::limits() from dsv4_capabilities once (props::init does it).
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "dsv4/indexer_abi.h"
#include "harness/case.hpp"
#include "harness/fpbits.hpp"

namespace dsv4::gen {

using harness::Case;
using harness::Dist;
using harness::InjKind;
using harness::Injection;
using harness::KernelId;
using harness::RowRecipe;
namespace fp = harness::fp;

// ---------------------------------------------------------------------------------------------
// Limits of the implementation under test (capabilities) and of a "fast" case.
// ---------------------------------------------------------------------------------------------
struct Limits {
  int block_threads = 128;  // Top-K v2 kBlockThreads of the instantiation
  uint32_t paths = 0xFE;    // DSV4_PATH_BIT mask of existing Top-K v2 paths
  bool can_force_path = true;
  bool nan_supported = true;
  int k_max = 2048;
  int bf16_len_max = 2048;
  int candidate_capacity = 262144;
  int max_width = 6144;     // fp32 row width bound of a property case (CPU speed)
  int max_batch = 4;
  int register2_max() const { return block_threads * 8; }
  int register4_max() const { return block_threads * 16; }
};
inline Limits& limits() {
  static Limits l;
  return l;
}
inline void set_limits_from(const dsv4_capabilities& c) {
  Limits& l = limits();
  if (c.block_threads > 0) l.block_threads = c.block_threads;
  l.paths = c.paths;
  l.can_force_path = c.can_force_path != 0;
  l.nan_supported = c.nan_supported != 0;
  if (c.k_max > 0) l.k_max = c.k_max;
  if (c.bf16_len_max > 0) l.bf16_len_max = c.bf16_len_max;
  if (c.candidate_capacity > 0) l.candidate_capacity = c.candidate_capacity;
  // Keep a property case within 4 register-4 capacities + 4 (every path and the register
  // capacities of the 2- and 4-wide cluster kernels reachable, still fast).
  l.max_width = std::max(4 * l.register4_max() + 4, 4096);
}

// The forceable Top-K v2 paths of this implementation (DSV4_PATH_AUTO first).
inline std::vector<int32_t> forceable_paths(bool ragged) {
  std::vector<int32_t> out{DSV4_PATH_AUTO};
  if (!limits().can_force_path) return out;
  for (int p = DSV4_PATH_REGISTER2; p < DSV4_PATH_COUNT; ++p) {
    // report-only values are never forced, even from a plugin whose path mask names them
    if (p == DSV4_PATH_ROW_ERROR || !(limits().paths & DSV4_PATH_BIT(p))) continue;
    if (ragged && p > DSV4_PATH_STREAMING) continue;  // ragged: auto + single-CTA paths (§5.4)
    out.push_back(p);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Hostile scalars.
// ---------------------------------------------------------------------------------------------
// fp32 bit patterns that break top-k kernels.
inline rc::Gen<uint32_t> hostileFloatBits() {
  return rc::gen::exec([]() -> uint32_t {
    const int which = *rc::gen::inRange(0, 14);
    const int w = *rc::gen::element(10, 12);
    switch (which) {
      case 0: return *rc::gen::element(0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFFFFFFFu, 0x7FBFFFFFu);
      case 1: return *rc::gen::element(fp::kPosInf, fp::kNegInf);
      case 2: return *rc::gen::element(0x00000000u, 0x80000000u);
      case 3: return *rc::gen::element(0x00000001u, 0x80000001u, 0x007FFFFFu, 0x807FFFFFu, 0x00400000u);
      case 4: return *rc::gen::element(0x7F7FFFFFu, 0xFF7FFFFFu, 0x477FE000u, 0x477FEFFFu, 0x477FF000u,
                                        0xC77FF000u, 0xC77FEFFFu);  // FLT_MAX, 65504, 65520 edges
      case 5: return *rc::gen::element(0x3F800000u, 0x3F800001u, 0x3F7FFFFFu, 0xBF800000u, 0xBFFFF000u,
                                        0xBFFFEFFFu);  // 1.0 ±ulp, the §4.5 worked example
      case 6: {  // a bin lower bound ±2 ulps, at either width
        const int bin = *rc::gen::inRange(1, (1 << w) - 1);
        return fp::step_ulps(fp::lower_bound_bits(bin, w), *rc::gen::inRange(-2, 3));
      }
      case 7: {  // uncorrected RNE midpoint of a negative bin (class 2)
        const int bin = *rc::gen::inRange(w == 12 ? 65 : 17, (1 << (w - 1)));
        const uint16_t key = uint16_t(bin << (16 - w));
        return fp::fp16_midpoint(fp::f16_from_key16(uint16_t(key - 1)), fp::f16_from_key16(key));
      }
      case 8: {  // halfway between two adjacent finite fp16 codes
        const uint16_t h = uint16_t(*rc::gen::inRange(0, 0x7BFF));
        const uint16_t s = *rc::gen::element(uint16_t(0), uint16_t(0x8000));
        return fp::fp16_midpoint(uint16_t(h | s), uint16_t((h + 1) | s));
      }
      case 9: return *rc::gen::element(0x33000000u, 0x33800000u, 0x35780000u, 0x3479FFFFu);  // fp16 tiny edges
      case 10: return 0x3F800000u + uint32_t(*rc::gen::inRange(0, 8388));  // bin 3008 members
      default: return *rc::gen::arbitrary<uint32_t>();
    }
  });
}

// Interesting 12-/10-bit bins (threshold-bin targets).
inline rc::Gen<uint32_t> hostileBin(int w) {
  if (w == 10) return rc::gen::element(752u, 511u, 512u, 1008u, 1007u, 15u, 16u, 271u, 400u, 600u);
  return rc::gen::element(3008u, 2047u, 2048u, 4032u, 4031u, 63u, 64u, 1087u, 1024u, 1023u, 2500u);
}

// Counts around K and around the 2048 staging capacity.
inline rc::Gen<int32_t> countNear(int32_t k, int32_t n) {
  return rc::gen::exec([k, n]() -> int32_t {
    const int32_t c = *rc::gen::element(1, 2, 3, k - 1, k, k + 1, k / 2, 2047, 2048, 2049,
                                        *rc::gen::inRange(1, std::max(2, n + 1)));
    return std::clamp(c, 1, std::max(1, n));
  });
}

// One value-recipe injection for an fp32 row of n positions with K = k.
inline rc::Gen<Injection> injection(int32_t k, int32_t n) {
  return rc::gen::exec([k, n]() -> Injection {
    Injection j;
    j.kind = InjKind(*rc::gen::inRange(0, harness::kInjKindCount));
    j.pos = *rc::gen::element(0, 1, -1, -2, *rc::gen::inRange(-std::max(1, n), std::max(1, n)));
    j.count = *countNear(k, n);
    j.arg = *rc::gen::element(10, 12);
    j.delta = *rc::gen::inRange(-2, 3);
    switch (j.kind) {
      case InjKind::Bits: j.bits = *hostileFloatBits(); j.count = std::min(j.count, 64); break;
      case InjKind::NaNSprinkle: j.bits = *rc::gen::element(0x7FC00000u, 0xFFC00001u, 0x7F800001u); break;
      case InjKind::BinEdge: case InjKind::RneMidpoint: case InjKind::WholeRowOneBin:
      case InjKind::BinOverflow: j.bits = *hostileBin(j.arg); break;
      case InjKind::HalfwayFp16: j.bits = uint32_t(*rc::gen::inRange(0, 0xFBFF)); break;
      case InjKind::LargestLast: j.count = *rc::gen::element(0, k, k + 1, 16); break;
      case InjKind::LargestFirst: j.count = *rc::gen::element(0, std::max(k / 4, 1), std::max(3 * k / 4, 1)); break;
      default: j.bits = *rc::gen::arbitrary<uint32_t>(); break;
    }
    return j;
  });
}

// fp32 score-row distributions (no candidate-id ones).
inline rc::Gen<Dist> scoreDist(bool allow_nan) {
  return rc::gen::exec([allow_nan]() -> Dist {
    Dist d = *rc::gen::weightedElement<Dist>({
        {6, Dist::Randn}, {2, Dist::Uniform}, {4, Dist::Distinct12}, {3, Dist::Distinct10},
        {3, Dist::Tiny}, {3, Dist::Ties}, {3, Dist::Huge}, {3, Dist::NegInf}, {4, Dist::SignedZeros},
        {3, Dist::Midpoints}, {3, Dist::SmallInts}, {1, Dist::Constant}, {2, Dist::Bf16Bits},
        {1, Dist::AllNaN}});
    if (!allow_nan && d == Dist::AllNaN) d = Dist::Randn;
    return d;
  });
}

inline rc::Gen<RowRecipe> scoreRow(int32_t k, int32_t n, bool allow_nan) {
  return rc::gen::exec([k, n, allow_nan]() -> RowRecipe {
    RowRecipe r;
    r.dist = *scoreDist(allow_nan);
    r.seed = *rc::gen::arbitrary<uint64_t>();
    if (r.dist == Dist::Midpoints) r.param = *rc::gen::element(0u, 10u);
    if (r.dist == Dist::Constant) r.param = *hostileFloatBits();
    if (r.dist == Dist::Constant && !allow_nan && fp::is_nan(r.param)) r.param = 0x3F800000u;
    if (r.dist == Dist::NegInf) r.param = uint32_t(std::max(0, *countNear(k, n) - 1));
    if (r.dist == Dist::Randn) r.param = *rc::gen::element(0u, 0u, 4u, 15u);
    const int ninj = *rc::gen::weightedElement<int>({{4, 0}, {4, 1}, {2, 2}, {1, 3}});
    for (int i = 0; i < ninj; ++i) {
      Injection j = *injection(k, n);
      if (!allow_nan && j.kind == InjKind::NaNSprinkle) continue;
      if (!allow_nan && j.kind == InjKind::Bits && fp::is_nan(j.bits)) continue;
      r.injections.push_back(j);
    }
    if (*rc::gen::weightedElement<int>({{9, 0}, {1, 1}}))  // a short literal head
      r.literal = *rc::gen::container<std::vector<uint32_t>>(size_t(*rc::gen::inRange(1, 9)),
                                                              hostileFloatBits());
    if (!allow_nan) std::erase_if(r.literal, [](uint32_t u) { return fp::is_nan(u); });
    return r;
  });
}

// ---------------------------------------------------------------------------------------------
// Shapes.
// ---------------------------------------------------------------------------------------------
inline rc::Gen<int32_t> topkK() {
  return rc::gen::exec([]() -> int32_t {
    const int32_t k = *rc::gen::weightedElement<int32_t>({{2, 1}, {2, 2}, {2, 4}, {2, 7}, {3, 8},
        {3, 16}, {2, 31}, {3, 64}, {2, 100}, {3, 128}, {2, 256}, {2, 512}, {1, 1024}, {1, 2048}});
    return std::min(k, limits().k_max);
  });
}

// A seq_len on a boundary that matters for this K and width (clamped to [0, L]).
inline rc::Gen<int32_t> seqLenNear(int32_t k, int32_t L) {
  return rc::gen::exec([k, L]() -> int32_t {
    const int r2 = limits().register2_max(), r4 = limits().register4_max();
    const int32_t n = *rc::gen::element(0, 1, k - 1, k, k + 1, r2 - 1, r2, r2 + 1, r4 - 1, r4,
                                        r4 + 1, 2 * r4 - 1, 2 * r4, 2 * r4 + 1, 4 * r4, 4 * r4 + 1,
                                        L, L - 1, *rc::gen::inRange(0, L + 1),
                                        *rc::gen::inRange(0, L + 1));
    return std::clamp(n, 0, L);
  });
}

// A width that straddles the dispatch capacities of the instantiation (>= 1).
inline rc::Gen<int32_t> topkWidth(int32_t k) {
  return rc::gen::exec([k]() -> int32_t {
    const int r2 = limits().register2_max(), r4 = limits().register4_max();
    // r2, r4: the single-CTA register capacities; 2 r4 (= 4 r2), 4 r4: the Cluster-2 / Cluster-4
    // register capacities (and the stage's 2 x Register4 launch rule)
    const int32_t L = *rc::gen::element(k, k + 1, k + 4, 2 * k + 3, r2 - 1, r2, r2 + 1, r4 - 1, r4,
                                        r4 + 1, 2 * r4 - 1, 2 * r4 + 1, 4 * r4, 4 * r4 + 1, 51, 256,
                                        *rc::gen::inRange(1, limits().max_width));
    return std::clamp(L, 1, limits().max_width);
  });
}

inline rc::Gen<int64_t> pageSize() {
  return rc::gen::exec([]() -> int64_t {
    if (*rc::gen::weightedElement<int>({{15, 0}, {1, 1}})) return int64_t(1) << 20;
    return int64_t(1) << *rc::gen::inRange(0, 13);  // 1 .. 4096
  });
}

// Top-K v2 knobs: a forced path of the capability mask, small tie capacities (§4.7 refinement),
// probe injections (0 / error / 1 / above capacity), both validation modes.
inline rc::Gen<harness::Knobs> topkKnobs(bool ragged) {
  return rc::gen::exec([ragged]() -> harness::Knobs {
    harness::Knobs kn;
    kn.validate = *rc::gen::arbitrary<bool>();
    kn.force_path = *rc::gen::elementOf(forceable_paths(ragged));
    kn.tie_capacity = *rc::gen::weightedElement<int32_t>({{6, -1}, {1, 0}, {1, 1}, {1, 2}, {1, 8},
                                                           {1, 64}, {1, 128}, {1, 2047}, {1, 2048}});
    if (!ragged && *rc::gen::weightedElement<int>({{5, 0}, {1, 1}})) {
      kn.inject_probe_c8 = *rc::gen::element(-2, 0, 1, 2, 64);
      kn.inject_probe_c16 = *rc::gen::element(-2, 0, 1, 7, 64);
    }
    return kn;
  });
}

// ---------------------------------------------------------------------------------------------
// Per-kernel case generators.
// ---------------------------------------------------------------------------------------------
struct TopkOptions {
  bool out_of_contract = false;  // negative seq_lens, n > L, bad windows/offsets (both modes)
  int32_t force_path = -1;       // >= 0: pin knobs.force_path
};

inline void fill_rows(Case& c, int32_t k, int32_t L, bool allow_nan) {
  const int nrec = *rc::gen::inRange(1, std::min(3, c.shape.batch) + 1);
  for (int i = 0; i < nrec; ++i) c.rows.push_back(*scoreRow(k, L, allow_nan));
  c.poison = harness::Poison(*rc::gen::inRange(0, harness::kPoisonCount));
}

// Row padding so that S = L + pad is a multiple of `align` (the entries' stride rule), plus extra
// whole vectors; one case in 12 keeps a misaligned stride (the host error must be named).
inline int32_t stridePad(int32_t L, int32_t align, std::initializer_list<int32_t> extra) {
  const int32_t aligned = (align - L % align) % align;
  if (*rc::gen::weightedElement<int>({{11, 0}, {1, 1}})) return aligned + *rc::gen::inRange(1, align);
  return aligned + *rc::gen::elementOf(std::vector<int32_t>(extra));
}

inline int32_t bad_seq_len(int32_t L) {
  return *rc::gen::element(-1, -7, -8, INT32_MIN, L + 1, L + 1000, INT32_MAX);
}

inline rc::Gen<Case> topkV2Paged(TopkOptions o = {}) {
  return rc::gen::exec([o]() -> Case {
    Case c;
    c.kernel = KernelId::TopkV2Paged;
    const int32_t k = *topkK();
    const int32_t L = *topkWidth(k);
    c.shape.batch = *rc::gen::weightedElement<int32_t>({{1, 0}, {6, 1}, {4, 2}, {2, 3}, {1, limits().max_batch}});
    c.shape.width = L;
    c.shape.k = k;
    c.shape.stride_pad = stridePad(L, 4, {0, 0, 4, 8, 100});
    c.shape.out_pad = *rc::gen::element(0, 3, 3, 16);
    c.shape.page_size = *pageSize();
    c.shape.width_delta = *rc::gen::weightedElement<int32_t>({{8, 0}, {1, 1}, {1, 5}});
    for (int b = 0; b < c.shape.batch; ++b) c.seq_lens.push_back(*seqLenNear(k, L));
    c.mode = harness::PagedMode(*rc::gen::inRange(0, harness::kPagedModeCount));
    c.table_kind = harness::TableKind(*rc::gen::inRange(0, harness::kTableKindCount));
    c.table_seed = *rc::gen::arbitrary<uint64_t>();
    if (c.mode != harness::PagedMode::Indices && *rc::gen::weightedElement<int>({{4, 0}, {1, 1}})) {
      harness::TableInjection t;
      t.row = *rc::gen::element(-1, 0);
      t.col = *rc::gen::element(0, -1, 1);
      t.entry = harness::TableEntry(*rc::gen::inRange(0, harness::kTableEntryCount));
      t.value = *rc::gen::arbitrary<int32_t>();
      c.table_injections.push_back(t);
    }
    fill_rows(c, k, L, limits().nan_supported);
    c.knobs = *topkKnobs(false);
    if (o.force_path >= 0) c.knobs.force_path = o.force_path;
    if (o.out_of_contract && c.shape.batch > 0) {
      c.seq_lens[size_t(*rc::gen::inRange(0, c.shape.batch))] = bad_seq_len(L);
      if (*rc::gen::arbitrary<bool>()) c.shape.width_delta = -1;  // table one column short
    }
    c.schedule.policy = uint8_t(*rc::gen::inRange(0, harness::kSchedulePolicyCount));
    c.schedule.seed = *rc::gen::arbitrary<uint64_t>();
    return c;
  });
}

inline rc::Gen<Case> topkV2Ragged(TopkOptions o = {}) {
  return rc::gen::exec([o]() -> Case {
    Case c;
    c.kernel = KernelId::TopkV2Ragged;
    const int32_t k = *topkK();
    const int32_t L = *topkWidth(k);
    c.shape.batch = *rc::gen::weightedElement<int32_t>({{1, 0}, {5, 1}, {4, 2}, {3, 3}, {1, limits().max_batch}});
    c.shape.width = L;
    c.shape.k = k;
    c.shape.stride_pad = stridePad(L, 4, {0, 4, 12});
    c.shape.out_pad = *rc::gen::element(0, 3, 16);
    c.has_row_starts = *rc::gen::weightedElement<bool>({{3, true}, {1, false}});
    for (int b = 0; b < c.shape.batch; ++b) {
      // aligned / unaligned starts, empty windows, windows ending at the row end.
      int32_t rs = c.has_row_starts ? *rc::gen::element(0, 1, 2, 3, 4, 7, *rc::gen::inRange(0, L + 1)) : 0;
      rs = std::min(rs, L);
      int32_t n = *seqLenNear(k, L - rs);
      if (*rc::gen::weightedElement<int>({{6, 0}, {1, 1}})) n = 0;
      c.row_starts.push_back(rs);
      c.seq_lens.push_back(n);
      c.out_offsets.push_back(*rc::gen::element(0, rs, 4321, *rc::gen::inRange(0, 1 << 20)));
    }
    fill_rows(c, k, L, limits().nan_supported);
    c.knobs = *topkKnobs(true);
    if (o.force_path >= 0) c.knobs.force_path = o.force_path;
    if (o.out_of_contract && c.shape.batch > 0) {
      const size_t b = size_t(*rc::gen::inRange(0, c.shape.batch));
      switch (*rc::gen::inRange(0, 4)) {
        case 0: c.seq_lens[b] = bad_seq_len(L); break;
        case 1: c.has_row_starts = true; c.row_starts[b] = *rc::gen::element(-1, INT32_MIN); break;
        case 2: c.has_row_starts = true; c.row_starts[b] = L - c.seq_lens[b] + 1; break;  // rs+n > L
        default: c.out_offsets[b] = *rc::gen::element(-1, INT32_MIN, INT32_MAX); break;
      }
    }
    c.schedule.policy = uint8_t(*rc::gen::inRange(0, harness::kSchedulePolicyCount));
    c.schedule.seed = *rc::gen::arbitrary<uint64_t>();
    return c;
  });
}

// topk_v2_plan alone: batch sizes around P / P+1 / 512 / 513 are cheap (no scores are read).
inline rc::Gen<Case> topkV2Plan() {
  return rc::gen::exec([]() -> Case {
    const int32_t B = *rc::gen::element(1, 2, 15, 16, 29, 30, 31, 32, 64, 511, 512, 513);
    std::vector<int32_t> lens(static_cast<size_t>(B));
    const int32_t T = *rc::gen::element(32768, 65536, 98304, 131072, 262144);
    for (auto& n : lens)
      n = *rc::gen::element(0, 1, T - 1, T, T + 1, 100000, 200000, 262144, 400000, -1, INT32_MIN);
    Case c = harness::make_plan(lens, *rc::gen::element(-1, -1, 0, 1, 65536, 100000));
    c.knobs.validate = *rc::gen::arbitrary<bool>();
    if (c.knobs.validate && *rc::gen::weightedElement<int>({{3, 0}, {1, 1}}))
      for (auto& n : c.seq_lens) n = std::max(n, 0);  // checked mode: mostly in contract
    if (*rc::gen::arbitrary<bool>()) c.knobs.force_path = *rc::gen::elementOf(forceable_paths(false));
    if (*rc::gen::arbitrary<bool>()) c.knobs.inject_probe_c8 = *rc::gen::element(-2, 0, 1, 30, 64);
    return c;
  });
}

// bf16 small top-k: L <= bf16_len_max, page table required, k may exceed L.
inline rc::Gen<Case> bf16Small(bool out_of_contract = false) {
  return rc::gen::exec([out_of_contract]() -> Case {
    Case c;
    c.kernel = KernelId::Bf16Small;
    const int32_t Lmax = limits().bf16_len_max;
    const int32_t k = *rc::gen::element(1, 4, 8, 16, 64, 100, 256, 512, 1024, 2048);
    int32_t L = *rc::gen::element(1, 8, 9, k, k + 1, 300, 513, 600, Lmax - 1, Lmax,
                                  *rc::gen::inRange(1, Lmax + 1));
    L = std::clamp(L, 1, Lmax);
    c.shape.batch = *rc::gen::weightedElement<int32_t>({{1, 0}, {6, 1}, {4, 2}, {2, 3}});
    c.shape.width = L;
    c.shape.k = std::min(k, limits().k_max);
    c.shape.stride_pad = stridePad(L, 8, {0, 8, 16});
    c.shape.out_pad = *rc::gen::element(0, 3, 9);
    c.shape.page_size = *rc::gen::weightedElement<int64_t>({{4, 8}, {3, 64}, {1, 1}, {1, 16}, {1, 4096}});
    for (int b = 0; b < c.shape.batch; ++b) {
      int32_t n = *seqLenNear(c.shape.k, L);
      if (*rc::gen::weightedElement<int>({{4, 0}, {1, 1}}))  // 8m - 1, 8m, 8m + 1
        n = std::clamp(8 * *rc::gen::inRange(1, L / 8 + 2) + *rc::gen::inRange(-1, 2), 0, L);
      c.seq_lens.push_back(n);
    }
    c.mode = harness::PagedMode::PageTable;
    c.table_kind = harness::TableKind(*rc::gen::inRange(0, harness::kTableKindCount));
    c.table_seed = *rc::gen::arbitrary<uint64_t>();
    if (*rc::gen::weightedElement<int>({{5, 0}, {1, 1}}))
      c.table_injections.push_back({0, *rc::gen::element(0, -1),
                                    harness::TableEntry(*rc::gen::inRange(0, harness::kTableEntryCount)),
                                    *rc::gen::arbitrary<int32_t>()});
    const int nrec = *rc::gen::inRange(1, 3);
    for (int i = 0; i < nrec; ++i) {
      RowRecipe r = *scoreRow(c.shape.k, L, limits().nan_supported);
      if (*rc::gen::weightedElement<int>({{2, 0}, {1, 1}})) r.dist = Dist::Bf16Bits;
      c.rows.push_back(r);
    }
    c.poison = harness::Poison(*rc::gen::inRange(0, harness::kPoisonCount));
    c.knobs.validate = *rc::gen::arbitrary<bool>();
    if (out_of_contract && c.shape.batch > 0)
      c.seq_lens[size_t(*rc::gen::inRange(0, c.shape.batch))] = *rc::gen::element(-8, -1, L + 1, 16385);
    c.schedule.policy = uint8_t(*rc::gen::inRange(0, harness::kSchedulePolicyCount));
    c.schedule.seed = *rc::gen::arbitrary<uint64_t>();
    return c;
  });
}

// amax8_varlen: lengths 8m-1 / 8m / 8m+1, key width around nk, the topk skip around nk.
inline rc::Gen<Case> amax8(bool out_of_contract = false) {
  return rc::gen::exec([out_of_contract]() -> Case {
    Case c;
    c.kernel = KernelId::Amax8;
    const int32_t L = *rc::gen::element(1, 7, 8, 9, 16, 24, 1000, 4096, *rc::gen::inRange(1, 8192));
    c.shape.batch = *rc::gen::weightedElement<int32_t>({{1, 0}, {5, 1}, {4, 2}, {3, 3}, {1, 8}});
    c.shape.width = L;
    c.shape.stride_pad = stridePad(L, 8, {0, 8, 248});
    c.shape.width_delta = *rc::gen::weightedElement<int32_t>({{6, 0}, {2, 3}, {1, 64}});
    c.shape.out_pad = *rc::gen::element(0, 3, 8);
    for (int b = 0; b < c.shape.batch; ++b) {
      int32_t n = *rc::gen::element(0, 1, L, L - 1, *rc::gen::inRange(0, L + 1),
                                    8 * *rc::gen::inRange(0, L / 8 + 1) + *rc::gen::inRange(-1, 2));
      c.seq_lens.push_back(std::clamp(n, 0, L));
    }
    const int nrec = *rc::gen::inRange(1, 3);
    for (int i = 0; i < nrec; ++i) c.rows.push_back(*scoreRow(8, L, limits().nan_supported));
    c.poison = harness::Poison(*rc::gen::inRange(0, harness::kPoisonCount));
    c.knobs.validate = *rc::gen::arbitrary<bool>();
    const int32_t nk0 = c.seq_lens.empty() ? 0 : (c.seq_lens[0] + 7) / 8;
    c.knobs.amax_topk = std::max(0, *rc::gen::element(0, 0, nk0 - 1, nk0, nk0 + 1, 2048));
    if (out_of_contract && c.shape.batch > 0) {
      const size_t b = size_t(*rc::gen::inRange(0, c.shape.batch));
      c.seq_lens[b] = *rc::gen::element(-8, -7, -1, L + 1, INT32_MIN);
      if (*rc::gen::arbitrary<bool>()) c.shape.width_delta = -1;  // nk > Kk: code 3
    }
    c.schedule.seed = *rc::gen::arbitrary<uint64_t>();
    return c;
  });
}

// sort_candidate_blocks: identity vs sort path (nb around K), every id distribution, page sizes
// 8 (bpp 1) .. 2^20, huge table entries.
inline rc::Gen<Case> candidateTable(bool out_of_contract = false) {
  return rc::gen::exec([out_of_contract]() -> Case {
    Case c;
    c.kernel = KernelId::CandidateTable;
    const int32_t k = *rc::gen::element(1, 4, 31, 32, 33, 64, 100, 256, 2048);
    c.shape.batch = *rc::gen::weightedElement<int32_t>({{1, 0}, {5, 1}, {4, 2}, {2, 4}});
    c.shape.k = k;
    c.shape.page_size = *rc::gen::element<int64_t>(8, 8, 64, 128, 1024, int64_t(1) << 20);
    c.shape.out_pad = *rc::gen::element(0, 3, 5);
    c.shape.width_delta = *rc::gen::weightedElement<int32_t>({{8, 0}, {1, 2}});
    int32_t maxtok = 0;
    for (int b = 0; b < c.shape.batch; ++b) {
      const int32_t nb = *rc::gen::element(0, 1, k - 1, k, k + 1, 2 * k, 16384 / 8, 16385 / 8 + 1,
                                           *rc::gen::inRange(0, 8 * k + 64), 40000);
      int32_t tok = std::max(0, nb) * 8 - *rc::gen::inRange(0, 8);
      tok = std::max(tok, 0);
      c.seq_lens.push_back(tok);
      maxtok = std::max(maxtok, tok);
    }
    c.shape.width = std::max(maxtok, 1);
    c.table_kind = harness::TableKind(*rc::gen::inRange(0, harness::kTableKindCount));
    c.table_seed = *rc::gen::arbitrary<uint64_t>();
    if (*rc::gen::weightedElement<int>({{5, 0}, {1, 1}}))
      c.table_injections.push_back({-1, *rc::gen::element(0, -1),
                                    *rc::gen::element(harness::TableEntry::MaxForBits, harness::TableEntry::OneAbove,
                                                      harness::TableEntry::MinusOne, harness::TableEntry::Int32Max),
                                    0});
    const int nrec = *rc::gen::inRange(1, 3);
    for (int i = 0; i < nrec; ++i) {
      RowRecipe r;
      r.dist = Dist(*rc::gen::inRange(int(Dist::CandUniform), int(Dist::CandOutOfRange) + 1));
      r.seed = *rc::gen::arbitrary<uint64_t>();
      r.param = *rc::gen::element(0u, 1u, uint32_t(k / 2), uint32_t(std::max(1, k - 10)));
      if (*rc::gen::weightedElement<int>({{4, 0}, {1, 1}}))
        r.injections.push_back({InjKind::Bits, *rc::gen::element(0, -1), 1, 0, 0,
                                uint32_t(*rc::gen::element(-1, -2, 0, 131071, 131072, INT32_MAX))});
      c.rows.push_back(r);
    }
    c.knobs.validate = *rc::gen::arbitrary<bool>();
    if (out_of_contract && c.shape.batch > 0)
      c.seq_lens[size_t(*rc::gen::inRange(0, c.shape.batch))] = *rc::gen::element(-1, -7, -8, INT32_MIN);
    c.schedule.seed = *rc::gen::arbitrary<uint64_t>();
    return c;
  });
}

// The whole chain (spec README §2) at CPU size: block K (k2) small so step 3 is non-trivial.
inline rc::Gen<Case> pipeline() {
  return rc::gen::exec([]() -> Case {
    Case c;
    c.kernel = KernelId::Pipeline;
    const int32_t k2 = *rc::gen::element(4, 8, 16, 32, std::max(1, limits().bf16_len_max / 8));
    const int32_t maxlen = *rc::gen::element(8 * k2 - 1, 8 * k2, 8 * k2 + 1, 8 * k2 + 8, 16 * k2 + 3,
                                             *rc::gen::inRange(1, 8 * k2 * 4 + 2));
    c.shape.batch = *rc::gen::weightedElement<int32_t>({{5, 1}, {4, 2}, {1, 3}});
    c.shape.width = std::max(1, maxlen);
    c.shape.k = *rc::gen::element(1, 4, 16, 64, 512);
    c.shape.k2 = k2;
    c.shape.stride_pad = (8 - c.shape.width % 8) % 8;  // amax8 logits: S % 8 == 0
    c.shape.page_size = *rc::gen::element<int64_t>(64, 128, 8);
    for (int b = 0; b < c.shape.batch; ++b)
      c.seq_lens.push_back(std::clamp(*rc::gen::element(0, 1, 7, 8, 9, c.shape.width,
                                                        *rc::gen::inRange(0, c.shape.width + 1)),
                                      0, c.shape.width));
    c.table_kind = *rc::gen::element(harness::TableKind::Identity, harness::TableKind::PerRowPermutation,
                                     harness::TableKind::SharedPermutation);
    c.table_seed = *rc::gen::arbitrary<uint64_t>();
    const int nrec = *rc::gen::inRange(1, 3);
    for (int i = 0; i < nrec; ++i) {
      RowRecipe r = *scoreRow(k2, c.shape.width, false);  // chain contracts assume no NaN keys
      std::erase_if(r.injections, [](const Injection& j) { return j.kind == InjKind::NaNSprinkle; });
      c.rows.push_back(r);
    }
    c.poison = harness::Poison(*rc::gen::element(0, 1));
    c.schedule.seed = *rc::gen::arbitrary<uint64_t>();
    return c;
  });
}

}  // namespace dsv4::gen
