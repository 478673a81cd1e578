// harness/case.cpp -- names and derived quantities of the case description.
#include "case.hpp"

#include "rng.hpp"

namespace dsv4::harness {

namespace {
const char* const kKernelNames[kKernelIdCount] = {"topk_v2_paged", "topk_v2_ragged", "topk_v2_plan",
                                                  "bf16_small",    "amax8",          "candidate_table",
                                                  "pipeline"};
const char* const kDistNames[kDistCount] = {
    "randn",       "uniform",   "distinct12", "distinct10", "tiny",          "ties",
    "huge",        "neg-inf",   "signed-zeros", "midpoints", "small-ints",   "constant",
    "bf16-bits",   "all-nan",   "cand-uniform", "cand-clustered", "cand-newest", "cand-queue-only",
    "cand-duplicates", "cand-minus-one", "cand-out-of-range"};
const char* const kInjNames[kInjKindCount] = {"bits",         "nan-sprinkle", "kth-tie",
                                              "bin-edge",     "rne-midpoint", "halfway-fp16",
                                              "whole-row-one-bin", "bin-overflow", "largest-last",
                                              "shuffle",      "largest-first"};
}  // namespace

const char* kernel_name(KernelId k) {
  int i = static_cast<int>(k);
  return i < kKernelIdCount ? kKernelNames[i] : "?kernel";
}
const char* mode_name(PagedMode m) {
  switch (m) {
    case PagedMode::Indices: return "INDICES";
    case PagedMode::PageTable: return "PAGE_TABLE";
    case PagedMode::Dual: return "DUAL";
  }
  return "?mode";
}
const char* table_kind_name(TableKind t) {
  switch (t) {
    case TableKind::Identity: return "identity";
    case TableKind::SharedPermutation: return "shared-permutation";
    case TableKind::PerRowPermutation: return "per-row-permutation";
    case TableKind::Random: return "random";
    case TableKind::SharedStride0: return "shared-stride0";
  }
  return "?table";
}
const char* poison_name(Poison p) {
  switch (p) {
    case Poison::PosInf: return "+inf";
    case Poison::Huge: return "huge-1e30";
    case Poison::NaN: return "nan";
    case Poison::Mixed: return "mixed";
  }
  return "?poison";
}
const char* dist_name(Dist d) {
  int i = static_cast<int>(d);
  return i < kDistCount ? kDistNames[i] : "?dist";
}
const char* inj_name(InjKind k) {
  int i = static_cast<int>(k);
  return i < kInjKindCount ? kInjNames[i] : "?inj";
}
const char* table_entry_name(TableEntry e) {
  switch (e) {
    case TableEntry::MaxForBits: return "INT32_MAX>>page_bits";
    case TableEntry::OneAbove: return "(INT32_MAX>>page_bits)+1";
    case TableEntry::MinusOne: return "-1";
    case TableEntry::Int32Max: return "INT32_MAX";
    case TableEntry::Int32Min: return "INT32_MIN";
    case TableEntry::Literal: return "literal";
  }
  return "?entry";
}
bool parse_kernel_name(const std::string& s, KernelId* out) {
  for (int i = 0; i < kKernelIdCount; ++i)
    if (s == kKernelNames[i]) { *out = static_cast<KernelId>(i); return true; }
  return false;
}
bool parse_dist_name(const std::string& s, Dist* out) {
  for (int i = 0; i < kDistCount; ++i)
    if (s == kDistNames[i]) { *out = static_cast<Dist>(i); return true; }
  return false;
}

int64_t row_stride(const Case& c) {
  return int64_t(c.shape.width) + (c.shape.stride_pad > 0 ? c.shape.stride_pad : 0);
}
int64_t out_stride(const Case& c, int64_t k) { return k + (c.shape.out_pad > 0 ? c.shape.out_pad : 0); }
int32_t seq_len_of(const Case& c, int64_t b) {
  return b < int64_t(c.seq_lens.size()) ? c.seq_lens[b] : c.shape.width;
}
int32_t row_start_of(const Case& c, int64_t b) {
  if (!c.has_row_starts) return 0;
  return b < int64_t(c.row_starts.size()) ? c.row_starts[b] : 0;
}
int32_t out_offset_of(const Case& c, int64_t b) {
  return b < int64_t(c.out_offsets.size()) ? c.out_offsets[b] : 0;
}
int32_t page_bits_of(int64_t page_size) {
  if (page_size <= 0 || (page_size & (page_size - 1)) != 0) return -1;
  int32_t bits = 0;
  while ((int64_t(1) << bits) < page_size) ++bits;
  return bits;
}
const RowRecipe& recipe_of(const Case& c, int64_t b) {
  static const RowRecipe kDefault{};
  if (c.rows.empty()) return kDefault;
  return c.rows[size_t(b) % c.rows.size()];
}
uint64_t row_seed(const Case& c, int64_t b) {
  return mix64(recipe_of(c, b).seed ^ mix64(uint64_t(b) + 0x5EEDull));
}

static Case base_case(KernelId id, int32_t batch, int32_t width, int32_t k, Dist dist, uint64_t seed) {
  Case c;
  c.kernel = id;
  c.shape.batch = batch;
  c.shape.width = width;
  c.shape.k = k;
  c.seq_lens.assign(size_t(batch > 0 ? batch : 0), width);
  RowRecipe r;
  r.dist = dist;
  r.seed = seed;
  c.rows.push_back(r);
  return c;
}
Case make_topk_paged(int32_t batch, int32_t width, int32_t k, Dist dist, uint64_t seed) {
  return base_case(KernelId::TopkV2Paged, batch, width, k, dist, seed);
}
Case make_topk_ragged(int32_t batch, int32_t width, int32_t k, Dist dist, uint64_t seed) {
  return base_case(KernelId::TopkV2Ragged, batch, width, k, dist, seed);
}
Case make_bf16(int32_t batch, int32_t width, int32_t k, Dist dist, uint64_t seed) {
  Case c = base_case(KernelId::Bf16Small, batch, width, k, dist, seed);
  c.mode = PagedMode::PageTable;
  c.shape.page_size = 8;
  return c;
}
Case make_amax8(int32_t batch, int32_t width, Dist dist, uint64_t seed) {
  return base_case(KernelId::Amax8, batch, width, 0, dist, seed);
}
Case make_candidates(int32_t batch, int32_t tokens, int32_t k, int64_t page_size, Dist dist,
                     uint64_t seed) {
  Case c = base_case(KernelId::CandidateTable, batch, tokens, k, dist, seed);
  c.shape.page_size = page_size;
  c.table_kind = TableKind::PerRowPermutation;
  c.mode = PagedMode::PageTable;
  return c;
}
Case make_plan(std::vector<int32_t> seq_lens, int32_t static_threshold) {
  Case c;
  c.kernel = KernelId::TopkV2Plan;
  c.shape.batch = int32_t(seq_lens.size());
  int32_t mx = 0;
  for (int32_t v : seq_lens) mx = v > mx ? v : mx;
  c.shape.width = mx;
  c.seq_lens = std::move(seq_lens);
  c.knobs.static_threshold = static_threshold;
  return c;
}

}  // namespace dsv4::harness
