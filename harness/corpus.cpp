// harness/corpus.cpp -- corpus writer: files named by the SHA-1 of the case's version-1 bytes.
#include <filesystem>
#include <fstream>

#include "codec.hpp"
#include "report.hpp"
#include "sha1.hpp"

namespace dsv4::harness {

std::string corpus_file_name(const Case& c) {
  const std::vector<uint8_t> bytes = encode_case(c);
  return sha1_hex(bytes.data(), bytes.size());
}

std::string write_corpus_file(const std::string& dir, const Case& c) {
  return write_corpus_file(dir, c, Provenance{});
}

// The name is the SHA-1 of the case WITHOUT provenance (= the bytes of a version-1 file), so a
// failing case lands in the same file whoever found it and whenever (see report.hpp).
std::string write_corpus_file(const std::string& dir, const Case& c, const Provenance& prov) {
  const std::vector<uint8_t> bytes = encode_case(c, prov);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw CodecError(dir + ": cannot create directory: " + ec.message());
  const std::string path = (std::filesystem::path(dir) / corpus_file_name(c)).string();
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw CodecError(path + ": cannot open for writing");
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!f) throw CodecError(path + ": write error");
  return path;
}

}  // namespace dsv4::harness
