// properties/failure_report.hpp -- what the front ends of properties/ and fuzz/ do with a failing
// Outcome: the case file (harness corpus writer: <dir>/<sha1>, for `dsv4-harness repro FILE`) and
// the ONE report format (harness/report.hpp) carrying that file and the RC_PARAMS line.
#pragma once

#include <string>

#include "harness/codec.hpp"
#include "harness/provenance.hpp"
#include "harness/report.hpp"
#include "harness/sha1.hpp"

namespace dsv4::props {

// Where write_failure_case will put `c` (content-addressed, so it can be named before writing).
inline std::string failure_case_path(const harness::Case& c, const std::string& dir) {
  const std::vector<uint8_t> b = harness::encode_case(c);
  return dir + "/" + harness::sha1_hex(b.data(), b.size());
}

// Writes the case file; on I/O failure returns the path with the reason appended.
inline std::string write_failure_case(const harness::Case& c, const std::string& dir) {
  try {
    return harness::write_corpus_file(dir, c);
  } catch (const std::exception& e) {
    return failure_case_path(c, dir) + " (unwritable: " + e.what() + ")";
  }
}

// Same, recording which implementation, backend and device produced the failure (provenance
// section of the case file; the name stays the sha1 of the case itself).
inline std::string write_failure_case(const harness::Case& c, const std::string& dir,
                                      const harness::Impl& impl, const harness::Backend& be) {
  try {
    return harness::write_corpus_file(dir, c, harness::make_provenance(impl, be));
  } catch (const std::exception& e) {
    return failure_case_path(c, dir) + " (unwritable: " + e.what() + ")";
  }
}

inline std::string failure_text(const harness::Case& c, const harness::Outcome& o, const harness::Impl& impl,
                                const harness::Backend& be, const std::string& file,
                                const std::string& rc_params = "") {
  harness::ReportContext ctx;
  ctx.case_file = file;
  ctx.rc_params = rc_params;
  return harness::format_report(c, o, impl, be, ctx);
}

}  // namespace dsv4::props
