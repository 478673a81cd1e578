// harness/report.hpp -- the ONE report format, and the corpus writer.
#pragma once

#include <string>

#include "backend.hpp"
#include "case.hpp"
#include "impl.hpp"
#include "provenance.hpp"
#include "runner.hpp"

namespace dsv4::harness {

struct ReportContext {
  std::string case_file;   // corpus / repro file of this case ("" = not written)
  std::string rc_params;   // RC_PARAMS=... line of a RapidCheck caller ("" = none)
  std::string impl_spec;   // --impl argument to put in the repro command ("" = default)
  bool full_case = true;   // include the full `show` dump (else the one-line summary)
  Provenance recorded;     // provenance stored in the case file (empty = none): the report then
                           // prints "recorded with: ..." next to "replayed with: ..."
};

// Readable report: verdict, every case parameter, implementation (origin, ABI, self-reported
// name/version), backend and device, dispatch paths, host result and status block, canonical diff,
// guard breaches, notes, timing, and the one command that replays it.
std::string format_report(const Case& c, const Outcome& o, const Impl& impl, const Backend& be,
                          const ReportContext& ctx = {});
// The replay command line.
std::string repro_command(const ReportContext& ctx);

// Writes `c` into `dir` (created if needed) as <sha1 of the encoded bytes>; returns the path.
// Idempotent: the same case always lands in the same file. Throws CodecError on I/O failure.
std::string write_corpus_file(const std::string& dir, const Case& c);
// The same with a provenance record (a version-2 file; make_provenance(impl, backend) for a
// failure found by a run). The file is still named corpus_file_name(c), the SHA-1 of the case's
// version-1 bytes, so the name does not depend on who found the case or when.
std::string write_corpus_file(const std::string& dir, const Case& c, const Provenance& prov);
std::string corpus_file_name(const Case& c);

}  // namespace dsv4::harness
