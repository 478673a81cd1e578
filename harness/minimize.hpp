// harness/minimize.hpp -- shrink a failing case while keeping its failure class.
#pragma once

#include <functional>

#include "case.hpp"
#include "runner.hpp"

namespace dsv4::harness {

// Failure class that must be preserved: verdict kind, and (when the run reported paths) the
// dispatch path of the first failing row.
struct FailureClass {
  Verdict verdict = Verdict::Mismatch;
  int32_t path = -1;  // -1 = do not care
};
FailureClass failure_class(const Outcome& o);
bool same_failure(const FailureClass& want, const Outcome& o);

struct MinimizeStats {
  int runs = 0;
  int accepted = 0;
};

// Greedy shrinking: fewer rows, shorter rows (width and seq_lens), fewer injections / literal
// values / table injections, smaller k, then a plainer configuration (each knob, the checked mode,
// the page-table kind, the layout paddings and the CPU schedule back to its default, one at a
// time). `still_fails` runs a candidate and says whether it keeps the class. Stops when no step
// helps or after `max_runs` runs.
Case minimize_case(const Case& c, const std::function<bool(const Case&)>& still_fails, int max_runs = 400,
                   MinimizeStats* stats = nullptr);

// Remove row `b` keeping every other row's materialized values (per-row recipes, seeds remapped).
Case remove_row(const Case& c, int64_t b);

}  // namespace dsv4::harness
