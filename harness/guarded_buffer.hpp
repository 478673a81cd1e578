// harness/guarded_buffer.hpp -- every buffer a kernel sees, allocated with a prefix and a suffix
// band; outputs also get slack (guard) columns past their width. Bands and slack hold a pattern
// that encodes (buffer id, row, slot); after the run everything is compared AS BYTES:
//   - bands and slack columns must still hold the pattern (any write = breach);
//   - inputs must be byte-identical to their upload, except cells a contract allows;
//   - outputs' in-bounds cells are pre-filled by the caller (-12345 / reserved NaN) and judged by
//     the oracle (an unwritten cell keeps its non-producible sentinel).
// Host backend under ASan: the bands are also ASan-poisoned during the run.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backend.hpp"
#include "materialize.hpp"

namespace dsv4::harness {

enum class BufRole : uint8_t { Input, Output, InOut };

struct Breach {
  std::string buffer;
  std::string region;   // "prefix band", "suffix band", "guard column", "input cell", "offset prefix"
  int64_t row = -1;
  int64_t offset = 0;   // column (slack: column index; input: column) or byte offset in a band
  uint32_t got = 0;     // the word (or element bits) found
  uint32_t want = 0;    // the pattern / original bits
  std::string text() const;
};

struct GuardReport {
  int64_t count = 0;            // every breached word / element
  std::vector<Breach> first;    // at most 32
  void add(Breach b);
  bool ok() const { return count == 0; }
  std::string text() const;
};

constexpr size_t kBandBytes = 256;
constexpr int32_t kOutputSentinelI32 = -12345;
constexpr uint32_t kOutputSentinelF32 = 0x7FA5A5A5u;

uint32_t band_pattern(int id, bool suffix, int64_t word);
uint32_t slack_pattern(int id, int64_t row, int64_t slot);

class GuardedBuffer {
 public:
  // `image` gives layout and initial contents of the data region (for outputs: the pre-filled
  // in-bounds cells; slack cells are overwritten with the pattern). Outputs / InOut buffers hold
  // rows * stride elements (slack on every row); inputs are TIGHT (end at the last cell).
  GuardedBuffer(Backend& be, int id, std::string name, BufRole role, const HostBuf& image);
  ~GuardedBuffer();
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  // View for the ABI (data pointer = start of row 0, after the offset prefix).
  dsv4_tensor view() const;
  void* device_data() const;
  const std::string& name() const { return name_; }
  const HostBuf& image() const { return image_; }
  // Poison bands (ASan, host backend) for the duration of a kernel call.
  void arm();
  void disarm();
  // Download the data region (same layout as image()).
  HostBuf fetch() const;
  // Byte comparison. `allowed(row, col)` marks input cells the contract lets the kernel change.
  void check(GuardReport& rep, const HostBuf& now,
             const std::function<bool(int64_t, int64_t)>& allowed = nullptr) const;
  // Convenience: fetch + check; returns the fetched contents.
  HostBuf fetch_and_check(GuardReport& rep, const std::function<bool(int64_t, int64_t)>& allowed = nullptr);

 private:
  Backend& be_;
  int id_;
  std::string name_;
  BufRole role_;
  HostBuf image_;
  size_t data_bytes_ = 0;
  uint8_t* base_ = nullptr;  // allocation start (device or host address)
  bool armed_ = false;
};

// Build the host image of an output: rows x cols (stride >= cols), every in-bounds cell = fill
// (int32 or fp32 bits).
HostBuf make_output_image(int32_t dtype, int64_t rows, int64_t cols, int64_t stride, uint32_t fill);

}  // namespace dsv4::harness
