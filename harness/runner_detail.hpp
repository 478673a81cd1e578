// harness/runner_detail.hpp -- shared machinery of the per-kernel drivers (private to harness/).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "materialize.hpp"
#include "runner.hpp"

namespace dsv4::harness::detail {

// Metadata rule violated in BOTH modes (host error expected), or "" (spec §9 and per-family §2).
std::string metadata_violation(const Case& c, const Materialized& m, const dsv4_capabilities& caps);
// True when the spec leaves the host result open (either DSV4_OK or a host error is accepted).
bool metadata_ambiguous(const Case& c);
// First per-row VALUE rule violated (checked mode rejects it), or "".
std::string checked_violation(const Case& c, const Materialized& m, const dsv4_capabilities& caps);
// Skip reason from the capabilities (entry / mode / path / tunables / NaN domain), or "".
std::string capability_skip(const Case& c, const Materialized& m, const Impl& impl);

struct Ctx {
  const Case& c;
  const Impl& impl;
  Backend& be;
  const Options& opt;
  Outcome& out;
  Materialized m;
  std::vector<std::unique_ptr<GuardedBuffer>> bufs;
  std::vector<HostBuf> fetched;  // parallel to bufs after finish()
  dsv4_message msg{};
  std::vector<std::string> exempt;  // buffers excluded from "nothing written on a host error"

  Ctx(const Case& c_, const Impl& i, Backend& b, const Options& o, Outcome& out_)
      : c(c_), impl(i), be(b), opt(o), out(out_) {}
  GuardedBuffer* add(const std::string& name, BufRole role, const HostBuf& image);
  // Calls fn (the ABI entry) with every buffer armed; records time, result and message.
  dsv4_result call(const std::function<dsv4_result(dsv4_message*)>& fn);
  // check_status + row paths (Top-K v2), then fetch every buffer and byte-check guards.
  // `allowed` lets an input buffer (by name) change given cells.
  void finish(bool topk_paths, const std::function<bool(const std::string&, int64_t, int64_t)>& allowed = nullptr);
  const HostBuf& got(const GuardedBuffer* b) const;
  // Host-error expectations: on an expected host error verify nothing was written; on an
  // unexpected one record the mismatch. Returns true when the oracle should run.
  bool judge_host_result(const std::string& expected_why, bool either_ok = false);
  void check_nothing_written();
  // Compare the status bitmask (codes 1-6 and 17) with `expected`.
  void judge_status(uint32_t expected);
};

// Append an oracle CheckResult to the outcome's (counts included).
void merge_check(Outcome& o, const oracle::CheckResult& cr);
void add_mismatch(Outcome& o, int64_t row, int64_t slot, const std::string& what, const std::string& got,
                  const std::string& want);

// CPU schedule of the case -> simt (schedule.cpp); "rr" | "random:SEED" | "pct:SEED".
std::string schedule_text(const Schedule& s);
void apply_schedule(const Impl& impl, const Schedule& s);

// Drivers (one per kernel id).
void drive_topk_paged(Ctx& x);
void drive_topk_ragged(Ctx& x);
void drive_plan(Ctx& x);
void drive_bf16(Ctx& x);
void drive_amax8(Ctx& x);
void drive_candidates(Ctx& x);
void drive_pipeline(Ctx& x);

// Bitmap capacity of sort_candidate_blocks for this call (candidate_block_table.md §5): an
// implementation declaring both variants runs the 8-word one only when the table covers more than
// 131072 blocks (W * page_size / 8), so a narrower table caps the sort path at 131072 blocks.
int64_t effective_candidate_capacity(const dsv4_capabilities& caps, int64_t table_width, int64_t page_size);

}  // namespace dsv4::harness::detail
