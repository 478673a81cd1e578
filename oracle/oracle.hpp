// oracle/oracle.hpp -- the CPU references and canonical checks (contract between oracle/ and harness/).
//
// Written for clarity and independence from the kernels' algorithms (no coarse bins, no radix):
// Eigen row maps, a total order over bit patterns, and the admissible-set rules of the specs
// (topk_v2.md §3.3, topk_bf16_small.md §7, block_amax.md §6, candidate_block_table.md §8).
// Every check returns a CheckResult; the harness turns it into a verdict and a report.
// All inputs are HOST copies, in the kernel's dtype, with the same bits the kernel saw.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dsv4::oracle {

// ---------------------------------------------------------------------------------------------
// Result of a canonical comparison.
// ---------------------------------------------------------------------------------------------
struct Mismatch {
  int64_t row = -1;
  int64_t slot = -1;        // -1 when the mismatch concerns the whole row
  std::string what;         // e.g. "missing value", "position out of range", "duplicate", "slot not -1"
  std::string got;          // readable got value(s)
  std::string want;         // readable wanted value(s) / admissible set summary
};

struct CheckResult {
  bool ok = true;
  int64_t mismatch_count = 0;      // total mismatching rows/slots (all of them, not only `first`)
  int64_t rows_checked = 0;
  std::vector<Mismatch> first;     // the first (at most 16) mismatches, in row/slot order
  std::vector<int64_t> bad_rows;   // every failing row (for the report / minimizer)
  void add(Mismatch m);            // records, bumps counters, keeps `first` bounded
};

// ---------------------------------------------------------------------------------------------
// Value order helpers (shared by all top-k oracles). Total order over non-NaN values:
// -inf < ... < -0 == +0 < ... < +inf (±0 EQUAL for the verdict). NaN = absent.
// ---------------------------------------------------------------------------------------------
float bf16_bits_to_float(uint16_t bits);      // exact widening
bool is_nan_f32(float x);

// Emitted value of position i (the output transform), the 64-bit checked mapping of the specs:
//   kind Identity:   g(i) = i + offset                       (INDICES mode, ragged with offset)
//   kind PageTable:  t = table[i >> page_bits] (INT32_MIN if the column >= width or t out of
//                    [0, INT32_MAX >> page_bits]); g(i) = (t << page_bits) | (i & (page_size-1))
struct Transform {
  enum Kind { Identity, PageTable } kind = Identity;
  int64_t offset = 0;              // Identity only
  const int32_t* table = nullptr;  // PageTable only: this row's table row (host copy)
  int64_t table_width = 0;         // entries readable in `table`
  int32_t page_bits = 0;
  int64_t apply(int64_t i) const;  // returns the int32 value as int64 (INT32_MIN on failure)
};

// ---------------------------------------------------------------------------------------------
// Top-K style rows: Top-K v2 (paged, ragged) and the bf16 small top-k.
// ---------------------------------------------------------------------------------------------
enum class RowExpect : uint8_t {
  Normal,      // in contract: §3 semantics (trivial if n <= K)
  RowError     // out of contract per the device guard (codes 1-4): whole row must be -1
};

struct TopkRow {
  int64_t n = 0;                   // seq_len of the row (window length)
  const float* values_f32 = nullptr;     // fp32 window values [0, n) (Top-K v2), or
  const uint16_t* values_bf16 = nullptr; // bf16 window bits [0, n) (bf16 small top-k)
  Transform transform;             // the emitted value g(i) of primary output
  RowExpect expect = RowExpect::Normal;
  const int32_t* got = nullptr;    // K slots of the primary output (page / ragged / indices)
  const int32_t* got_raw = nullptr;// K slots of DUAL raw output, or nullptr
};

struct TopkCheckArgs {
  int64_t k = 0;
  std::vector<TopkRow> rows;
};

// Verdict of topk_v2.md §3.3 (per-value counting rule, exact; valid prefix then -1 suffix;
// count v = min(K, n_v); distinct positions in range; no NaN position; trivial rows compared
// slot by slot; DUAL: raw slots must satisfy out_page = g(out_raw), same -1 slots).
// `codes_seen` receives the bitmask of status codes this output implies (bit 5 iff some slot
// holds INT32_MIN), for cross-checking the device status block.
CheckResult check_topk(const TopkCheckArgs& args, uint32_t* codes_seen = nullptr);

// The admissible answer of one row, for reports and the pipeline: the strict top-v value
// multiset (sorted descending, as fp32 bit patterns with -0 canonicalized to +0), v, the
// k-th value w, how many of the tie class at w are required and how many exist.
struct TopkAdmissible {
  int64_t n_valid = 0;            // n_v
  int64_t v = 0;                  // min(K, n_v)
  std::vector<float> top_values;  // sorted descending, size v
  float kth = 0.0f;               // w (undefined when v == 0)
  int64_t ties_required = 0;      // selected slots that must hold value == w
  int64_t ties_available = 0;     // positions with value == w
};
TopkAdmissible topk_admissible(const float* values, int64_t n, int64_t k);
TopkAdmissible topk_admissible_bf16(const uint16_t* bits, int64_t n, int64_t k);

// ---------------------------------------------------------------------------------------------
// Top-K v2 plan (topk_v2.md §6): the expected header and listed set.
// ---------------------------------------------------------------------------------------------
struct PlanTable { std::vector<std::pair<int32_t, int32_t>> entries; }; // (T_j, cap_j) ascending
PlanTable plan_table_sm90();
PlanTable plan_table_sm100();
struct PlanExpect {
  int32_t threshold = 0;                // T
  std::vector<int32_t> listed;          // batch ids with seq_len > T (ascending)
};
PlanExpect plan_expected(const std::vector<int32_t>& seq_lens, int32_t static_threshold,
                         const PlanTable& table, int32_t t_min = 32768);
// metadata: host copy of [B+1, 2]; pre: the pre-fill of rows N+1..B (must be untouched).
CheckResult check_plan(const std::vector<int32_t>& seq_lens, int32_t static_threshold,
                       const PlanTable& table, int32_t t_min, const int32_t* metadata,
                       const int32_t* prefill, int64_t batch);

// ---------------------------------------------------------------------------------------------
// Block amax (block_amax.md §3, §6): keys compared bitwise except NaN payload and zero sign.
// ---------------------------------------------------------------------------------------------
struct Amax8Row {
  int64_t n = 0;
  const float* scores = nullptr;   // [0, n)
  bool row_error = false;          // codes 1-3: nothing written
  const float* got = nullptr;      // Kk keys of the output row (host copy)
  const uint32_t* sentinel = nullptr; // the pre-fill bits of each of the Kk cells
};
struct Amax8CheckArgs {
  int64_t key_width = 0;           // Kk
  int32_t topk = 0;                // skip rule
  std::vector<Amax8Row> rows;
};
CheckResult check_amax8(const Amax8CheckArgs& args);
// Expected keys of one row (nk = ceil(n/8) entries; +inf last); empty if skipped.
std::vector<float> amax8_expected(const float* scores, int64_t n, int32_t topk);

// ---------------------------------------------------------------------------------------------
// Candidate block table (candidate_block_table.md §3, §8): exact, slot by slot.
// ---------------------------------------------------------------------------------------------
struct CandidateRow {
  int64_t n = 0;                    // seq_len in tokens
  const int32_t* blocks_in = nullptr;   // K input ids (host copy before the call)
  const int32_t* table = nullptr;   // index page-table row
  int64_t table_width = 0;
  bool row_error = false;           // codes 1 / 3: whole row INT32_MAX
  const int32_t* got_blocks = nullptr;  // K output ids
  const int32_t* got_pages = nullptr;   // K output pool slots / 8
};
struct CandidateCheckArgs {
  int64_t k = 0;
  int32_t page_size = 8;            // >= 8, power of two
  int64_t capacity = 131072;
  std::vector<CandidateRow> rows;
};
CheckResult check_candidates(const CandidateCheckArgs& args, uint32_t* codes_seen = nullptr);
// Expected (blocks, pages) of one row.
void candidates_expected(const CandidateRow& row, int64_t k, int32_t page_size, int64_t capacity,
                         std::vector<int32_t>* blocks, std::vector<int32_t>* pages,
                         uint32_t* codes = nullptr);

}  // namespace dsv4::oracle
