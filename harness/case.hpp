// harness/case.hpp -- the case description: a small value that names one kernel run completely.
//
// Every front end (RapidCheck properties, fuzz decoders, corpus files, `dsv4-harness repro`) builds
// a Case and hands it to the one pipeline: materialize() -> backend -> oracle -> verdict -> report.
// A Case is NOT a tensor dump: rows are generated from value recipes (distribution + seed +
// injections) by the deterministic materializer (materialize.hpp). Small literal rows are allowed.
//
// Conventions (spec README §4): B rows, L row width, S row stride = L + stride_pad, k outputs.
// Anything may be out of contract on purpose (negative seq_lens, n > L, bad offsets, table entries
// out of range): the runner derives the expected status codes / host errors from the case.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dsv4::harness {

// ---------------------------------------------------------------------------------------------
// Kernel under test (one driver per id in runner.cpp).
// ---------------------------------------------------------------------------------------------
enum class KernelId : uint8_t {
  TopkV2Paged = 0,     // topk_v2_transform_paged (+ topk_v2_plan when plan_is_written)
  TopkV2Ragged = 1,    // topk_v2_transform_ragged
  TopkV2Plan = 2,      // topk_v2_plan alone (+ plan_is_written cross-check)
  Bf16Small = 3,       // topk_bf16_small_transform
  Amax8 = 4,           // amax8_varlen
  CandidateTable = 5,  // sort_candidate_blocks
  Pipeline = 6,        // amax8 -> Top-K v2 blocks -> sort_candidate_blocks -> gather -> bf16 top-k
};
constexpr int kKernelIdCount = 7;

enum class PagedMode : uint8_t { Indices = 0, PageTable = 1, Dual = 2 };
constexpr int kPagedModeCount = 3;

enum class TableKind : uint8_t {
  Identity = 0,           // entry = column
  SharedPermutation = 1,  // one permutation of [0, W) shared by all rows (rows stored separately)
  PerRowPermutation = 2,  // an independent permutation of [0, W) per row
  Random = 3,             // uniform in [0, INT32_MAX >> page_bits] (not injective)
  SharedStride0 = 4,      // one permutation row, passed with row stride 0
};
constexpr int kTableKindCount = 5;

// Poison written in every score cell outside each row's legal read window.
enum class Poison : uint8_t { PosInf = 0, Huge = 1, NaN = 2, Mixed = 3 };
constexpr int kPoisonCount = 4;

// ---------------------------------------------------------------------------------------------
// Value recipes.
// ---------------------------------------------------------------------------------------------
// Distributions of a row's window values. fp32 kernels take the fp32 value, bf16 kernels its
// round-to-nearest-even bf16 (Bf16Bits draws raw bf16 patterns). Cand* are block-id
// distributions for the candidate table (int32 ids; `param` tunes them, see materialize.cpp).
enum class Dist : uint8_t {
  Randn = 0,        // approx. N(0,1) (integer Irwin-Hall), scaled by param (0 = 1)
  Uniform = 1,      // [0,1) with 24-bit resolution
  Distinct12 = 2,   // 1 + U*0.001: distinct fp32 values, all in 12-bit bin 3008
  Distinct10 = 3,   // 1 + U*0.05: all in 10-bit bin 752
  Tiny = 4,         // (0.5 + U) * 1e-30: all in the zero bins
  Ties = 5,         // 1.0 or nextafter(1.0, +inf)
  Huge = 6,         // finite values >= 65520 mixed with +inf
  NegInf = 7,       // -inf everywhere except `param` finite values (default k/2): fewer than K finite
  SignedZeros = 8,  // mostly -0.0, some +0.0, a few positives and negatives
  Midpoints = 9,    // values exactly at uncorrected negative-bin midpoints (12-bit; param=10: 10-bit)
  SmallInts = 10,   // integers in [-4, 4): heavy ties
  Constant = 11,    // every value = the fp32 bits in `param`
  Bf16Bits = 12,    // uniform random bf16 bit patterns, NaN excluded (bf16 kernels; fp32: widened)
  AllNaN = 13,      // quiet NaN 0x7FC00000 everywhere
  CandUniform = 14,     // K distinct ids uniform in [0, nb)
  CandClustered = 15,   // runs of 64 consecutive ids plus scattered ones
  CandNewest = 16,      // the last K blocks
  CandQueueOnly = 17,   // min(K, 2048) consecutive ids aligned to 32
  CandDuplicates = 18,  // ids with repeats (param = distinct count, capped at K; default K/2)
  CandMinusOne = 19,    // valid distinct ids, then -1 padding (param = valid count, default K/2)
  CandOutOfRange = 20,  // valid ids mixed with nb, capacity-1, capacity, INT32_MAX, -2, INT32_MIN
};
constexpr int kDistCount = 21;

// Injections are applied in order after the distribution, on the row's window positions.
// Positions: pos >= 0 counts from the window start, pos < 0 from its end (-1 = last position).
enum class InjKind : uint8_t {
  Bits = 0,          // `count` copies of the raw bits (fp32 bits, or bf16 bits in the low 16 for
                     // bf16 kernels, or an int32 id for the candidate table) at pos, pos+1, ...
  NaNSprinkle = 1,   // `count` quiet NaNs (payload `bits` if it is a NaN, else 0x7FC00000) at
                     // seeded pseudo-random distinct positions
  KthTie = 2,        // the positions ranked k-count/2 .. k-count/2+count-1 all get the k-th value
  BinEdge = 3,       // `count` copies of nextafter^delta(LB_w(bin)) at pos..: w = arg (10/12),
                     // bin = bits mod 2^w, delta in [-2, 2] fp32 ulps (the corrected RNE bound)
  RneMidpoint = 4,   // `count` copies of the exact midpoint between the fp16 codes of keys
                     // (bin<<(16-w))-1 and bin<<(16-w) (the UNcorrected bound), w = arg
  HalfwayFp16 = 5,   // `count` values exactly halfway between fp16 code `bits` and the next code
  WholeRowOneBin = 6,// every window value drawn inside bin `bits` of width arg (seeded)
  BinOverflow = 7,   // `count` distinct values inside bin `bits` (width arg) at pos..; every other
                     // value >= LB(bin) is lowered into bin-1 so the bin is the threshold bin
  LargestLast = 8,   // move the `count` largest values (0 = k) to the end of the window
  Shuffle = 9,       // seeded permutation of the window
  LargestFirst = 10, // move the `count` largest values (0 = k / 2) to the start of the window,
                     // descending: a sample of the row's head over-represents large values
};
constexpr int kInjKindCount = 11;

struct Injection {
  InjKind kind = InjKind::Bits;
  int32_t pos = 0;
  int32_t count = 1;
  int32_t arg = 0;
  int32_t delta = 0;
  uint32_t bits = 0;
  bool operator==(const Injection&) const = default;
};

struct RowRecipe {
  Dist dist = Dist::Randn;
  uint64_t seed = 0;
  uint32_t param = 0;
  std::vector<Injection> injections;
  // Literal window values (fp32 bits / bf16 bits / int32 ids): position p < literal.size()
  // takes literal[p] (before injections); the distribution fills the rest.
  std::vector<uint32_t> literal;
  bool operator==(const RowRecipe&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Page-table entry injections (applied after the TableKind fill).
// ---------------------------------------------------------------------------------------------
enum class TableEntry : uint8_t {
  MaxForBits = 0,  // INT32_MAX >> page_bits (largest legal entry)
  OneAbove = 1,    // (INT32_MAX >> page_bits) + 1 (code 5 when gathered)
  MinusOne = 2,    // -1
  Int32Max = 3,    // INT32_MAX
  Int32Min = 4,    // INT32_MIN
  Literal = 5,     // `value`
};
constexpr int kTableEntryCount = 6;

struct TableInjection {
  int32_t row = 0;  // -1 = every row
  int32_t col = 0;  // < 0: from the end of the table row
  TableEntry entry = TableEntry::MinusOne;
  int32_t value = 0;
  bool operator==(const TableInjection&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Shapes and knobs.
// ---------------------------------------------------------------------------------------------
struct Shape {
  int32_t batch = 1;          // B (0 = empty batch, a legal no-op)
  int32_t width = 0;          // L (elements per row); Pipeline: max compressed length
  int32_t stride_pad = 0;     // S = L + stride_pad (elements)
  int32_t k = 0;              // K / k (Amax8: unused; Pipeline: final k)
  int32_t k2 = 0;             // Pipeline: block top-k K (0 = 2048); unused elsewhere
  int64_t page_size = 1;      // Top-K v2 / bf16 page size; candidate table & Pipeline: index page size
  int32_t base_offset = 0;    // scores start this many elements after an aligned base (misalignment)
  int32_t width_delta = 0;    // page table width W = needed + delta; Amax8: key width Kk = needed + delta
  int32_t out_pad = 3;        // output row stride = k + out_pad (guard columns); < 0 is clamped to 0
  bool operator==(const Shape&) const = default;
};

// dsv4_config tunables: every field < 0 = "default" (passed through unchanged).
struct Knobs {
  bool validate = true;          // checked mode
  int32_t force_path = 0;        // dsv4_path (0 = auto)
  int32_t tie_capacity = -1;
  int32_t register2_max = -1;
  int32_t register4_max = -1;
  int32_t cluster_floor_small = -1;
  int32_t cluster_floor_large = -1;
  int32_t small_batch_cut = -1;
  int32_t cluster_max_batch = -1;
  int32_t plan_t_min = -1;
  int32_t cluster_enable = -1;
  int32_t inject_probe_c8 = -1;
  int32_t inject_probe_c16 = -1;
  int32_t early_read = -1;
  int32_t static_threshold = -1;  // topk_v2_plan argument
  int32_t amax_topk = 0;          // amax8_varlen `topk` argument
  bool operator==(const Knobs&) const = default;
};

// CPU (simt) schedule: "rr" | "random:SEED" | "pct:SEED" (simt/host/control.hpp); set directly for
// the built-in ours-simt, through env SIMT_SCHED for host-memory plugins.
struct Schedule {
  uint8_t policy = 0;  // 0 RoundRobin, 1 Random, 2 PCT (simt.md)
  uint64_t seed = 0;
  bool operator==(const Schedule&) const = default;
};
constexpr int kSchedulePolicyCount = 3;

// ---------------------------------------------------------------------------------------------
// The case.
// ---------------------------------------------------------------------------------------------
struct Case {
  KernelId kernel = KernelId::TopkV2Paged;
  Shape shape;
  std::vector<int32_t> seq_lens;      // size B (missing entries = width); tokens for CandidateTable
  bool has_row_starts = false;        // ragged: pass row_starts (else NULL = all 0)
  std::vector<int32_t> row_starts;    // ragged, used only when has_row_starts; missing entries = 0
  std::vector<int32_t> out_offsets;   // ragged; missing entries = 0
  PagedMode mode = PagedMode::Indices;
  TableKind table_kind = TableKind::Identity;
  uint64_t table_seed = 0;
  std::vector<TableInjection> table_injections;
  std::vector<RowRecipe> rows;        // row b uses rows[b % size] with its seed mixed with b; empty = Randn
  Poison poison = Poison::PosInf;
  Knobs knobs;
  Schedule schedule;
  bool operator==(const Case&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Names and derived quantities.
// ---------------------------------------------------------------------------------------------
const char* kernel_name(KernelId k);
const char* mode_name(PagedMode m);
const char* table_kind_name(TableKind t);
const char* poison_name(Poison p);
const char* dist_name(Dist d);
const char* inj_name(InjKind k);
const char* table_entry_name(TableEntry e);
// Parse a name back (used by text front ends); false if unknown.
bool parse_kernel_name(const std::string& s, KernelId* out);
bool parse_dist_name(const std::string& s, Dist* out);

int64_t row_stride(const Case& c);            // S = L + max(stride_pad, 0)
int64_t out_stride(const Case& c, int64_t k); // k + max(out_pad, 0)
int32_t seq_len_of(const Case& c, int64_t b); // seq_lens[b] or width when missing
int32_t row_start_of(const Case& c, int64_t b);
int32_t out_offset_of(const Case& c, int64_t b);
int32_t page_bits_of(int64_t page_size);      // log2 if a power of two, else -1
const RowRecipe& recipe_of(const Case& c, int64_t b);
uint64_t row_seed(const Case& c, int64_t b);  // recipe seed mixed with the row index

// Convenience constructors (small, readable; generators build on them).
Case make_topk_paged(int32_t batch, int32_t width, int32_t k, Dist dist, uint64_t seed);
Case make_topk_ragged(int32_t batch, int32_t width, int32_t k, Dist dist, uint64_t seed);
Case make_bf16(int32_t batch, int32_t width, int32_t k, Dist dist, uint64_t seed);
Case make_amax8(int32_t batch, int32_t width, Dist dist, uint64_t seed);
Case make_candidates(int32_t batch, int32_t tokens, int32_t k, int64_t page_size, Dist dist,
                     uint64_t seed);
Case make_plan(std::vector<int32_t> seq_lens, int32_t static_threshold);

}  // namespace dsv4::harness
