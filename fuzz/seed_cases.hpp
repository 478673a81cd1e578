// fuzz/seed_cases.hpp -- hand-written cases: the bug_classes.md minimal triggers and the upstream
// grids at CPU size. ONE source for (a) the seed corpus (fuzz/seed_writer.cpp writes them to
// corpus/fuzz_<target>/<sha1>) and (b) the fixed examples of the property tests.
//
// Sizes follow the instantiation (gen::limits(): register capacities = threads x 8 / x 16), so a
// trigger stated for 1024 threads (n = 8192, Register2) is scaled to the same path here.
#pragma once

#include <climits>
#include <ostream>
#include <string>
#include <vector>

#include "harness/case.hpp"
#include "properties/generators.hpp"

namespace dsv4::seeds {

using namespace dsv4::harness;

struct Named {
  std::string name;  // "<bug class>-<what>", shown in test names and the seed manifest
  Case c;
};
// GoogleTest value printer (found by ADL): print the name, not 320 raw bytes.
inline void PrintTo(const Named& n, std::ostream* os) { *os << n.name; }

inline uint32_t f32(float f) {
  uint32_t u;
  __builtin_memcpy(&u, &f, 4);
  return u;
}
inline RowRecipe literal_row(std::vector<uint32_t> v, Dist fill = Dist::Randn, uint32_t param = 0) {
  RowRecipe r;
  r.dist = fill;
  r.param = param;
  r.literal = std::move(v);
  return r;
}
inline Case with_row(Case c, RowRecipe r) {
  c.rows = {std::move(r)};
  return c;
}

// ---- Top-K v2 paged (fuzz_topk_v2) ----------------------------------------------------------
inline std::vector<Named> topk_v2_paged() {
  std::vector<Named> out;
  const int r2 = gen::limits().register2_max(), r4 = gen::limits().register4_max();
  {  // class 1 / U4: n = 51, three finite, -inf elsewhere, K = 16 (padding lane 51)
    Case c = make_topk_paged(1, 52, 16, Dist::Constant, 0);
    c.seq_lens = {51};
    c.rows = {literal_row({f32(3), f32(1), f32(2)}, Dist::Constant, f32(-INFINITY))};
    out.push_back({"c01-neg-inf-padding-n51", c});
  }
  {  // class 2 / U3: uncorrected negative-bin midpoints placed FIRST, threshold bin 1023
    std::vector<uint32_t> v(10, 0xBFFFF000u);  // -1.99951171875: bin 1023, >= uncorrected LB(1024)
    v.push_back(f32(-1.5f));
    v.push_back(f32(-1.5f));
    Case c = make_topk_paged(1, 64, 4, Dist::Constant, 0);
    c.rows = {literal_row(v, Dist::Constant, f32(-3.0f))};
    out.push_back({"c02-rne-midpoints-first", c});
  }
  {  // class 7 / U1: > 2048 distinct values in 12-bit bin 3008, largest last (streaming here)
    const int n = 4096, big = 3000;
    std::vector<uint32_t> v(size_t(n - big), f32(-1.0f));
    for (int i = 0; i < big; ++i) v.push_back(0x3F800000u + uint32_t(i) * 8u);  // 1 + i*2^-20
    Case c = make_topk_paged(1, n, 512, Dist::Constant, 0);
    c.rows = {literal_row(v)};
    out.push_back({"c07-tie-overflow-3000-in-bin-3008", c});
    for (int p : {DSV4_PATH_CLUSTER8, DSV4_PATH_CLUSTER16, DSV4_PATH_POOL, DSV4_PATH_CLUSTER4, DSV4_PATH_CLUSTER2}) {
      Case cc = c;
      cc.knobs.force_path = p;
      out.push_back({"c07-tie-overflow-forced-path-" + std::to_string(p), cc});
    }
    Case small = make_topk_paged(1, r2, 32, Dist::Distinct12, 7);  // refinement forced by capacity
    small.knobs.tie_capacity = 8;
    small.rows[0].injections.push_back({InjKind::LargestLast, 0, 0, 0, 0, 0});
    out.push_back({"c07-tie-capacity-8-register2", small});
  }
  {  // class 7, 10-bit width: > 2048 values in bin 752 on a forced cluster path, largest last
    Case c = make_topk_paged(1, 4608, 512, Dist::Distinct10, 11);
    c.knobs.force_path = DSV4_PATH_CLUSTER8;
    c.rows[0].injections.push_back({InjKind::LargestLast, 0, 0, 0, 0, 0});
    out.push_back({"c07-tie-overflow-bin-752-cluster8", c});
  }
  {  // class 8 / U2: ten -0.0 then 1, 2, 3, -1 x3; K = 4
    std::vector<uint32_t> v(10, 0x80000000u);
    for (float f : {1.f, 2.f, 3.f, -1.f, -1.f, -1.f}) v.push_back(f32(f));
    Case c = make_topk_paged(1, 16, 4, Dist::Constant, 0);
    c.rows = {literal_row(v)};
    out.push_back({"c08-negzero-above", c});
  }
  {  // class 9 / U5: NaN then values; all-NaN row
    const uint32_t nan = 0x7FC00000u;
    Case c = make_topk_paged(2, 8, 4, Dist::Constant, 0);
    c.rows = {literal_row({nan, nan, f32(1), f32(2), f32(3), f32(4), f32(5), f32(6)}),
              literal_row({}, Dist::AllNaN)};
    out.push_back({"c09-nan-absent", c});
  }
  {  // class 10: read past seq_len (+inf poison), stride padding, n = K*8+1 on the streaming path
    Case c = make_topk_paged(1, 4097, 512, Dist::Randn, 3);
    c.shape.stride_pad = 7;
    c.poison = Poison::PosInf;
    out.push_back({"c10-read-past-seqlen-4097", c});
    for (int n : {r2 - 1, r2, r2 + 1, r4 - 1, r4, r4 + 1}) {
      Case d = make_topk_paged(1, r4 + 4, 64, Dist::Randn, uint64_t(n));
      d.seq_lens = {n};
      d.poison = Poison::Huge;
      out.push_back({"c10-threshold-n" + std::to_string(n), d});
    }
  }
  {  // class 5: padded output view (guard columns), all modes
    for (int m = 0; m < kPagedModeCount; ++m) {
      Case c = make_topk_paged(2, 100, 8, Dist::Randn, 5);
      c.shape.out_pad = 8;
      c.shape.page_size = 16;
      c.mode = PagedMode(m);
      c.table_kind = TableKind::PerRowPermutation;
      c.seq_lens = {100, 6};
      out.push_back({"c05-guard-columns-mode" + std::to_string(m), c});
    }
  }
  {  // a plain batch: five rows on different paths (long, short, trivial, mid, empty), paged,
     // default knobs -- runnable by a plugin without dsv4_set_config (scripts/gpu/harness_isolation.sh)
    Case c = make_topk_paged(5, 4 * r4 + 8, 512, Dist::Randn, 21);
    c.seq_lens = {4 * r4 + 8, r2, 100, r4 - 5, 0};
    c.mode = PagedMode::PageTable;
    c.shape.page_size = 64;
    c.table_kind = TableKind::PerRowPermutation;
    out.push_back({"plain-batch-5-mixed-paths", c});
  }
  {  // class 11: page-table entry 2^25 (page 64) overflows int32; entry -1 at the last offset
    std::vector<uint32_t> v(64, f32(1.0f));
    for (TableEntry e : {TableEntry::Literal, TableEntry::MinusOne, TableEntry::OneAbove}) {
      Case c = make_topk_paged(1, 128, 64, Dist::Constant, 0);
      c.rows = {literal_row(v, Dist::Constant, 0)};
      c.mode = PagedMode::Dual;
      c.shape.page_size = 64;
      c.table_injections = {{0, 0, e, 1 << 25}};
      out.push_back({"c11-table-entry-" + std::string(table_entry_name(e)), c});
    }
  }
  {  // class 3: negative seq_len, both modes
    for (int32_t n : {-1, -8, INT32_MIN})
      for (bool val : {true, false}) {
        Case c = make_topk_paged(2, 64, 8, Dist::Randn, 1);
        c.seq_lens = {n, 64};
        c.knobs.validate = val;
        out.push_back({"c03-negative-len" + std::to_string(n) + (val ? "-checked" : "-unchecked"), c});
      }
  }
  {  // class 4: INDICES mode, B = 2, row 1 non-trivial (optional pointers stay null)
    Case c = make_topk_paged(2, 300, 16, Dist::Randn, 4);
    c.mode = PagedMode::Indices;
    out.push_back({"c04-indices-null-optionals", c});
  }
  {  // class 16: +inf flood and huge finite values (all in the +inf coarse bin)
    Case a = make_topk_paged(1, 4096, 512, Dist::Randn, 16);
    a.rows[0].injections.push_back({InjKind::Bits, 100, 600, 0, 0, 0x7F800000u});
    out.push_back({"c16-600-pos-inf", a});
    Case b = make_topk_paged(1, 4096, 512, Dist::Huge, 17);
    out.push_back({"c16-huge-values", b});
  }
  {  // class 13: probe injections with a low cluster floor so cluster dispatch happens at CPU size
    for (int32_t inj : {0, -2, 1, 64}) {
      Case c = make_topk_paged(4, 3000, 64, Dist::Randn, 13);
      c.knobs.cluster_floor_small = 1024;
      c.knobs.cluster_floor_large = 1024;
      c.knobs.cluster_enable = 1;
      c.knobs.inject_probe_c8 = inj;
      c.knobs.inject_probe_c16 = inj;
      out.push_back({"c13-probe-inject-" + std::to_string(inj), c});
    }
  }
  // Upstream grid at CPU size: boundaries x K x tables x page size 64.
  for (int n : {256, r2, r2 + 1, r4, r4 + 1})
    for (int k : {16, 512})
      for (TableKind t : {TableKind::Identity, TableKind::SharedPermutation, TableKind::PerRowPermutation}) {
        Case c = make_topk_paged(2, n, k, Dist::Randn, uint64_t(n * 7 + k));
        c.mode = PagedMode::PageTable;
        c.table_kind = t;
        c.shape.page_size = 64;
        c.shape.stride_pad = (4 - n % 4) % 4;
        out.push_back({"grid-n" + std::to_string(n) + "-k" + std::to_string(k) + "-" + table_kind_name(t), c});
      }
  // The spec's generator families (topk_v2.md §10), largest values last.
  for (Dist d : {Dist::Distinct12, Dist::Tiny, Dist::Ties, Dist::Huge, Dist::NegInf, Dist::SignedZeros,
                 Dist::Midpoints}) {
    Case c = make_topk_paged(1, 3000, 100, d, 99);
    c.rows[0].injections.push_back({InjKind::LargestLast, 0, 0, 0, 0, 0});
    out.push_back({std::string("family-") + dist_name(d), c});
  }
  {  // one-read Streaming with a misleading sample: the row's head (the guess's sample) holds K/2
     // of the K largest values, so the guess bin lands above the threshold bin and the stage must
     // be abandoned for a second read (TOPK_STAGE_NO_FALLBACK; the filtered rest's partial
     // histogram counted again: TOPK_STAGE_NO_RECOUNT); n just above 2 x Register4 (rows
     // that long stage without forcing; 4608 at 128 threads, the fuzz target's width bound)
    Case c = make_topk_paged(1, 2 * r4 + r4 / 4, 512, Dist::Randn, 21);
    c.rows[0].injections.push_back({InjKind::LargestFirst, 0, 256, 0, 0, 0});
    out.push_back({"stage-misleading-sample-largest-first", c});
  }
  return out;
}

// ---- Top-K v2 ragged (fuzz_topk_v2_ragged) -------------------------------------------------
inline std::vector<Named> topk_v2_ragged() {
  std::vector<Named> out;
  {  // class 5: windows (5, 20) and (0, 10), K = 8, guard columns
    Case c = make_topk_ragged(2, 64, 8, Dist::Randn, 5);
    c.has_row_starts = true;
    c.row_starts = {5, 0};
    c.seq_lens = {20, 10};
    c.shape.out_pad = 8;
    out.push_back({"c05-ragged-windows", c});
  }
  {  // U4 ragged: unaligned start 3, -inf window, +inf before it
    Case c = make_topk_ragged(1, 64, 16, Dist::Constant, 0);
    c.rows = {literal_row({f32(1), f32(2)}, Dist::Constant, f32(-INFINITY))};
    c.has_row_starts = true;
    c.row_starts = {3};
    c.seq_lens = {51};
    c.poison = Poison::PosInf;
    out.push_back({"c01-ragged-neg-inf-unaligned", c});
  }
  for (int rs : {0, 1, 2, 3, 4, 7})
    for (int n : {100, 1500}) {
      Case c = make_topk_ragged(1, 1600 + 8, 64, Dist::Randn, uint64_t(rs * 31 + n));
      c.has_row_starts = true;
      c.row_starts = {rs};
      c.seq_lens = {n};
      c.out_offsets = {n == 100 ? 4321 : rs};
      out.push_back({"grid-rs" + std::to_string(rs) + "-n" + std::to_string(n), c});
    }
  {  // bad windows: negative start, start + n > L, bad offset; both modes
    for (bool val : {true, false}) {
      Case c = make_topk_ragged(3, 64, 8, Dist::Randn, 9);
      c.has_row_starts = true;
      c.row_starts = {-1, 60, 0};
      c.seq_lens = {10, 10, 10};
      c.out_offsets = {0, 0, -1};
      c.knobs.validate = val;
      out.push_back({std::string("c03-bad-windows-") + (val ? "checked" : "unchecked"), c});
    }
  }
  return out;
}

// ---- bf16 small top-k ----------------------------------------------------------------------
inline std::vector<Named> bf16_small() {
  std::vector<Named> out;
  {  // class 9: 100 NaN + 500 finite, n = 600, k = 512
    Case c = make_bf16(1, 600, 512, Dist::Randn, 1);
    c.rows[0].injections.push_back({InjKind::NaNSprinkle, 0, 100, 0, 0, 0x7FC00000u});
    out.push_back({"c09-bf16-100-nan", c});
  }
  {  // -0 pivot: many -0 with a few +0 / positives
    Case c = make_bf16(1, 700, 64, Dist::SignedZeros, 2);
    out.push_back({"bf16-negzero-pivot", c});
  }
  {  // class 17 / out-of-contract lengths, both modes
    for (bool val : {true, false}) {
      Case c = make_bf16(2, 512, 64, Dist::Randn, 3);
      c.seq_lens = {513, -1};
      c.knobs.validate = val;
      out.push_back({std::string("c17-bf16-len-past-width-") + (val ? "checked" : "unchecked"), c});
    }
  }
  for (auto [b, n] : std::vector<std::pair<int, int>>{{1, 1}, {2, 300}, {2, 512}, {2, 513}, {1, 2047}, {1, 2048}})
    for (int64_t ps : {8, 64}) {
      Case c = make_bf16(b, n, std::min(512, std::max(1, n / 2)), Dist::Bf16Bits, uint64_t(n + ps));
      c.shape.page_size = ps;
      c.table_kind = TableKind::PerRowPermutation;
      out.push_back({"grid-b" + std::to_string(b) + "-n" + std::to_string(n) + "-ps" + std::to_string(ps), c});
    }
  return out;
}

// ---- block amax ------------------------------------------------------------------------------
inline std::vector<Named> amax8() {
  std::vector<Named> out;
  {  // class 5: key width 2, n = 24 (nk = 3): code 3
    Case c = make_amax8(1, 24, Dist::Randn, 5);
    c.shape.width_delta = -1;
    c.knobs.validate = false;
    out.push_back({"c05-amax-key-width-short", c});
  }
  for (auto [b, n] : std::vector<std::pair<int, int>>{{1, 1}, {1, 8}, {1, 9}, {3, 1000}, {2, 4101}}) {
    Case c = make_amax8(b, n, Dist::Randn, uint64_t(n));
    c.shape.stride_pad = 248;
    c.rows[0].injections.push_back({InjKind::NaNSprinkle, 0, 3, 0, 0, 0x7FC00000u});
    out.push_back({"grid-b" + std::to_string(b) + "-n" + std::to_string(n), c});
  }
  {  // topk skip: 2048 blocks skipped, 2049 not (scaled: 16 vs 17 blocks with topk = 16)
    Case c = make_amax8(2, 136, Dist::Randn, 7);
    c.seq_lens = {128, 129};
    c.knobs.amax_topk = 16;
    out.push_back({"amax-topk-skip-boundary", c});
  }
  for (bool val : {true, false}) {
    Case c = make_amax8(3, 64, Dist::Randn, 8);
    c.seq_lens = {-1, -8, 65};
    c.knobs.validate = val;
    out.push_back({std::string("c03-amax-bad-lengths-") + (val ? "checked" : "unchecked"), c});
  }
  return out;
}

// ---- candidate block table -------------------------------------------------------------------
inline std::vector<Named> candidate_table() {
  std::vector<Named> out;
  {  // class 12: ids >= capacity and ids >= nb, sort path (nb = 5 > K = 4)
    for (int32_t bad : {131072, 7, INT32_MAX}) {
      Case c = make_candidates(1, 40, 4, 64, Dist::CandUniform, 1);
      c.rows = {literal_row({0, 1, 2, uint32_t(bad)}, Dist::CandUniform)};
      c.knobs.validate = false;
      out.push_back({"c12-id-" + std::to_string(bad), c});
    }
  }
  for (Dist d : {Dist::CandUniform, Dist::CandClustered, Dist::CandNewest, Dist::CandQueueOnly,
                 Dist::CandDuplicates, Dist::CandMinusOne, Dist::CandOutOfRange})
    for (int32_t tokens : {8 * 255, 8 * 256, 8 * 256 + 1, 9000}) {
      Case c = make_candidates(2, tokens, 256, 64, d, uint64_t(tokens));
      out.push_back({std::string("grid-") + dist_name(d) + "-t" + std::to_string(tokens), c});
    }
  {
    Case c = make_candidates(1, 20000, 256, 8, Dist::CandUniform, 3);  // bpp = 1
    c.table_injections = {{0, -1, TableEntry::MaxForBits, 0}};
    out.push_back({"candidates-page8-max-entry", c});
  }
  return out;
}

// ---- pipeline ----------------------------------------------------------------------------------
inline std::vector<Named> pipeline() {
  std::vector<Named> out;
  for (int32_t len : {1, 8, 9, 8 * 16, 8 * 16 + 1, 8 * 40 + 3}) {
    Case c;
    c.kernel = KernelId::Pipeline;
    c.shape.batch = 2;
    c.shape.width = len;
    c.shape.k = 16;
    c.shape.k2 = 16;
    c.shape.stride_pad = (8 - len % 8) % 8;  // amax8 logits: S % 8 == 0
    c.shape.page_size = 64;
    c.seq_lens = {len, std::max(0, len / 2)};
    c.table_kind = TableKind::PerRowPermutation;
    RowRecipe r;
    r.dist = Dist::Randn;
    r.seed = uint64_t(len);
    c.rows = {r};
    out.push_back({"chain-len" + std::to_string(len), c});
  }
  return out;
}

}  // namespace dsv4::seeds
