// harness/runner.hpp -- run one case end to end: materialize -> guarded buffers on the backend ->
// the implementation's ABI entry -> status / paths -> oracle check + guard check -> Outcome.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend.hpp"
#include "case.hpp"
#include "guarded_buffer.hpp"
#include "impl.hpp"
#include "oracle/oracle.hpp"

namespace dsv4::harness {

enum class Verdict : uint8_t { Pass = 0, Mismatch = 1, GuardBreach = 2, Error = 3, Skipped = 4 };
const char* verdict_name(Verdict v);

struct Options {
  bool check_guards = true;
  bool read_paths = true;       // dsv4_read_row_paths when the plugin reports paths
  bool set_schedule = true;     // hand Case::schedule to simt (host-memory implementations)
};

struct Outcome {
  Verdict verdict = Verdict::Pass;
  std::string reason;                  // skip reason, error text, or the first mismatch summary
  dsv4_result result = DSV4_OK;        // return code of the main entry
  std::string entry_message;           // its message (host errors name argument and row)
  bool host_error_expected = false;
  std::string host_error_why;          // why the harness expected one (first violated rule)
  std::vector<int32_t> row_paths;      // dsv4_path per row (Top-K v2), empty when unavailable
  bool status_read = false;
  dsv4_device_status status{};
  uint32_t codes_expected = 0;         // status bitmask the harness expects (codes 1-6, 17)
  oracle::CheckResult check;           // oracle result (status/host-error mismatches included)
  GuardReport guard;
  double millis = 0;                   // wall time of the entry call(s) incl. synchronization
  std::vector<std::string> notes;      // informational lines (e.g. "plan written: N = 3")
};

// Never throws for a bad case or a misbehaving plugin: failures become Verdict::Error with reason.
Outcome run_case(const Case& c, const Impl& impl, Backend& backend, const Options& opt = {});

// The bf16 small top-k's instantiation for every case of this process: DSV4_BF16_CTAS_PER_SM=3|4
// forces it (dsv4_config.bf16_ctas_per_sm; CTest runs the bf16 properties once with 4); unset or
// anything else: -1, by batch. A failure report's replay line carries the setting.
int32_t bf16_ctas_override();
// Its split (dsv4_config.bf16_split_ranks): DSV4_BF16_SPLIT=1|2|4 forces it (CTest runs the bf16
// properties once with 2 and once with 4); unset or anything else: -1, by batch.
int32_t bf16_split_override();

// Expected per-row guard code of a row under the kernel's contract (0 = in contract), spec README
// §4 order (1, 2, 3, 4); exposed for generators and the minimizer.
int32_t expected_row_code(const Case& c, int64_t row, int64_t capacity = 131072);

}  // namespace dsv4::harness
