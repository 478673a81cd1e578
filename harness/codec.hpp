// harness/codec.hpp -- the ONE corpus codec: versioned binary case files, a readable text dump,
// a strict decoder (corpus files) and a TOTAL decoder (arbitrary fuzz bytes -> a valid case).
//
// Binary format (little-endian), version 1:
//   "DSV4CASE" (8 bytes) | u32 version | u32 payload_length | payload
// payload = the Case fields in declaration order; every vector is a u32 count then its items
// (see codec.cpp for the exact field list). A strict decode consumes the payload exactly.
// Version 2 = version 1 + a provenance section after the payload (provenance.hpp):
//   ... payload | u32 section_length | fields
// fields = (u8 tag | u32 length | bytes) in strictly ascending tag order, each tag at most once:
//   1 impl_path, 2 abi_version (length 4, u32), 3 impl_name, 4 impl_version, 5 backend,
//   6 device, 7 date, 8 harness_version; strings are printable ASCII, <= kMaxProvenanceString.
// A case without provenance is always written as version 1 (corpus seeds stay byte-identical).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "case.hpp"
#include "provenance.hpp"

namespace dsv4::harness {

constexpr char kCaseMagic[8] = {'D', 'S', 'V', '4', 'C', 'A', 'S', 'E'};
constexpr uint32_t kCaseVersion = 1;             // written when there is no provenance
constexpr uint32_t kCaseVersionProvenance = 2;   // written with a provenance section

// Strict-decode limits (corpus files).
constexpr uint32_t kMaxRecipes = 1 << 16;
constexpr uint32_t kMaxInjections = 4096;
constexpr uint32_t kMaxLiteral = 1 << 24;
constexpr uint32_t kMaxTableInjections = 1 << 16;

struct CodecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<uint8_t> encode_case(const Case& c);
// With provenance: a version-2 file (exactly encode_case(c) when `prov` is empty).
std::vector<uint8_t> encode_case(const Case& c, const Provenance& prov);
// Throws CodecError "SOURCE: what is wrong (at byte N)"; `source` names the file in messages.
Case decode_case_strict(const uint8_t* data, size_t size, const std::string& source = "<memory>");
Case decode_case_strict(const std::vector<uint8_t>& bytes, const std::string& source = "<memory>");
// Also returns the provenance (empty for a version-1 file). The overloads above accept both
// versions and drop it.
Case decode_case_strict(const uint8_t* data, size_t size, const std::string& source, Provenance* prov);

// Bounds of the TOTAL decoder (defaults: CPU backend sizes).
struct TotalLimits {
  int32_t max_batch = 8;
  int32_t max_width = 4096;
  int32_t max_k = 2048;
  int32_t max_injections = 8;
  int32_t max_literal = 64;
  int32_t max_pipeline_k2 = 256;      // block K of Pipeline cases (k2 * 8 <= bf16_len_max)
  bool allow_out_of_contract = true;  // negative / too long seq_lens, bad offsets, bad entries
};
// Any byte string -> a valid, size-bounded case (never throws). `forced_kernel` >= 0 fixes the
// kernel id (one fuzz target per kernel); otherwise the first byte picks it.
Case decode_case_total(const uint8_t* data, size_t size, const TotalLimits& lim = {},
                       int forced_kernel = -1);

// Readable text dump (`dsv4-harness show`): one field per line, names from case.hpp.
std::string show_case(const Case& c);
// One-line summary for reports and logs.
std::string summarize_case(const Case& c);

// Files.
std::vector<uint8_t> read_file_bytes(const std::string& path);  // throws CodecError naming the file
Case read_case_file(const std::string& path);                    // strict decode
Case read_case_file(const std::string& path, Provenance* prov);  // ... and its provenance
void write_case_file(const std::string& path, const Case& c);    // throws CodecError
void write_case_file(const std::string& path, const Case& c, const Provenance& prov);

}  // namespace dsv4::harness
