// harness/codec.hpp -- the ONE corpus codec: versioned binary case files, a readable text dump,
// a strict decoder (corpus files) and a TOTAL decoder (arbitrary fuzz bytes -> a valid case).
//
// Binary format (little-endian), version 1:
//   "DSV4CASE" (8 bytes) | u32 version | u32 payload_length | payload
// payload = the Case fields in declaration order; every vector is a u32 count then its items
// (see codec.cpp for the exact field list). A strict decode consumes the payload exactly.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "case.hpp"

namespace dsv4::harness {

constexpr char kCaseMagic[8] = {'D', 'S', 'V', '4', 'C', 'A', 'S', 'E'};
constexpr uint32_t kCaseVersion = 1;

// Strict-decode limits (corpus files).
constexpr uint32_t kMaxRecipes = 1 << 16;
constexpr uint32_t kMaxInjections = 4096;
constexpr uint32_t kMaxLiteral = 1 << 24;
constexpr uint32_t kMaxTableInjections = 1 << 16;

struct CodecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<uint8_t> encode_case(const Case& c);
// Throws CodecError "SOURCE: what is wrong (at byte N)"; `source` names the file in messages.
Case decode_case_strict(const uint8_t* data, size_t size, const std::string& source = "<memory>");
Case decode_case_strict(const std::vector<uint8_t>& bytes, const std::string& source = "<memory>");

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
void write_case_file(const std::string& path, const Case& c);    // throws CodecError

}  // namespace dsv4::harness
