// harness/provenance.hpp -- which implementation and which machine produced a case file or report.
//
// A Provenance is NOT part of the Case (it never changes what a case means, nor Case::operator==):
// it is an optional record that the codec stores after the payload (case format v2, codec.hpp).
// Files without it (corpus seeds, hand-written cases) stay version-1 files, byte for byte.
#pragma once

#include <cstdint>
#include <string>

namespace dsv4::harness {

class Impl;
class Backend;

struct Provenance {
  std::string impl_path;        // Impl::origin(): plugin path or "builtin:ours-simt"
  uint32_t abi_version = 0;     // the ABI version the implementation reported (0 = unknown)
  std::string impl_name;        // caps.name
  std::string impl_version;     // caps.version
  std::string backend;          // "host" | "cuda"
  std::string device;           // GPU name, or "cpu (simt)" for the host backend
  std::string date;             // UTC, ISO 8601 (2026-11-29T11:40:00Z)
  std::string harness_version;  // "dsv4-harness 0.1.0"
  bool empty() const { return *this == Provenance{}; }
  bool operator==(const Provenance&) const = default;
};

// Limit of every provenance string in a file (the strict decoder rejects longer ones).
constexpr uint32_t kMaxProvenanceString = 1024;

// The provenance of a run of `impl` on `be`, dated now.
Provenance make_provenance(const Impl& impl, const Backend& be);
std::string harness_version();  // "dsv4-harness <project version>"
// One line: "NAME VERSION (PATH, ABI vN) on BACKEND: DEVICE, DATE, HARNESS".
std::string provenance_line(const Provenance& p);
// Multi-line dump for `dsv4-harness show` (one field per line).
std::string show_provenance(const Provenance& p);
// Same implementation on the same kind of machine (ignores date and harness version).
bool same_origin(const Provenance& a, const Provenance& b);

}  // namespace dsv4::harness
