// harness/sha1.hpp -- a small SHA-1 (FIPS 180-4) for naming corpus files by content.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace dsv4::harness {

// Lower-case hex digest (40 characters).
std::string sha1_hex(const uint8_t* data, size_t size);

}  // namespace dsv4::harness
