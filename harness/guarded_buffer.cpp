// harness/guarded_buffer.cpp -- guard bands, slack columns, byte comparison (see the header).
#include "guarded_buffer.hpp"

#include <cstdio>
#include <cstring>

namespace dsv4::harness {
namespace {

std::string hex(uint32_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%08X", v);
  return b;
}

uint32_t load_word(const uint8_t* p, size_t esize) {
  uint32_t v = 0;
  std::memcpy(&v, p, esize);
  return v;
}

uint8_t band_byte(int id, bool suffix, size_t i) {
  const uint32_t w = band_pattern(id, suffix, int64_t(i / 4));
  return uint8_t(w >> (8 * (i % 4)));
}

}  // namespace

uint32_t band_pattern(int id, bool suffix, int64_t word) {
  return (0xBu << 28) | (uint32_t(id & 0xF) << 24) | (uint32_t(suffix) << 23) | uint32_t(word & 0x7FFFFF);
}
uint32_t slack_pattern(int id, int64_t row, int64_t slot) {
  return (0xDu << 28) | (uint32_t(id & 0xF) << 24) | (uint32_t(row & 0xFFF) << 12) | uint32_t(slot & 0xFFF);
}

std::string Breach::text() const {
  std::string s = buffer + ": " + region;
  if (row >= 0) s += " row " + std::to_string(row);
  s += (region.find("band") != std::string::npos ? " byte offset " : " column ") + std::to_string(offset);
  s += ": got " + hex(got) + " (" + std::to_string(int32_t(got)) + "), want " + hex(want);
  return s;
}

void GuardReport::add(Breach b) {
  ++count;
  if (first.size() < 32) first.push_back(std::move(b));
}

std::string GuardReport::text() const {
  if (ok()) return "guard: clean\n";
  std::string s = "guard: " + std::to_string(count) + " breach(es)\n";
  for (const Breach& b : first) s += "  " + b.text() + "\n";
  return s;
}

HostBuf make_output_image(int32_t dtype, int64_t rows, int64_t cols, int64_t stride, uint32_t fill) {
  HostBuf b;
  b.dtype = dtype;
  b.ndim = 2;
  b.rows = rows;
  b.cols = cols;
  b.stride = stride;
  b.offset = 0;
  b.present = true;
  b.bytes.assign(size_t(rows * stride) * b.elem_size(), 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) b.at<uint32_t>(r, c) = fill;
  return b;
}

GuardedBuffer::GuardedBuffer(Backend& be, int id, std::string name, BufRole role, const HostBuf& image)
    : be_(be), id_(id), name_(std::move(name)), role_(role), image_(image) {
  const size_t es = image_.elem_size();
  if (role_ != BufRole::Input && image_.rows > 0) {
    // outputs: full rows, slack on every row, filled with the slack pattern
    const size_t need = size_t(image_.offset + image_.rows * image_.stride) * es;
    if (image_.bytes.size() < need) image_.bytes.resize(need, 0);
    for (int64_t r = 0; r < image_.rows; ++r)
      for (int64_t c = image_.cols; c < image_.stride; ++c) {
        const uint32_t w = slack_pattern(id_, r, c - image_.cols);
        std::memcpy(&image_.bytes[size_t(image_.offset + r * image_.stride + c) * es], &w, es);
      }
  }
  data_bytes_ = image_.bytes.size();
  const size_t total = kBandBytes + data_bytes_ + kBandBytes;
  std::vector<uint8_t> host(total);
  for (size_t i = 0; i < kBandBytes; ++i) host[i] = band_byte(id_, false, i);
  if (data_bytes_) std::memcpy(host.data() + kBandBytes, image_.bytes.data(), data_bytes_);
  for (size_t i = 0; i < kBandBytes; ++i) host[kBandBytes + data_bytes_ + i] = band_byte(id_, true, i);
  base_ = static_cast<uint8_t*>(be_.alloc(total));
  be_.upload(base_, host.data(), total);
}

GuardedBuffer::~GuardedBuffer() {
  disarm();
  be_.release(base_);
}

void* GuardedBuffer::device_data() const {
  return base_ + kBandBytes + size_t(image_.offset) * image_.elem_size();
}

dsv4_tensor GuardedBuffer::view() const {
  dsv4_tensor t{};
  t.data = device_data();
  t.dtype = image_.dtype;
  t.ndim = image_.ndim;
  if (image_.ndim == 1) {
    t.sizes[0] = image_.cols;
    t.strides[0] = 1;
  } else {
    t.sizes[0] = image_.rows;
    t.sizes[1] = image_.cols;
    t.strides[0] = image_.stride;
    t.strides[1] = 1;
  }
  return t;
}

void GuardedBuffer::arm() {
  if (armed_ || !be_.host_memory()) return;
  be_.set_band_poison(base_, kBandBytes, true);
  // the suffix band starts at the tight end; ASan poisons whole 8-byte granules only
  uint8_t* s = base_ + kBandBytes + data_bytes_;
  const size_t mis = (8 - reinterpret_cast<uintptr_t>(s) % 8) % 8;
  be_.set_band_poison(s + mis, kBandBytes - mis, true);
  armed_ = true;
}

void GuardedBuffer::disarm() {
  if (!armed_) return;
  be_.set_band_poison(base_, kBandBytes, false);
  be_.set_band_poison(base_ + kBandBytes + data_bytes_, kBandBytes, false);
  armed_ = false;
}

HostBuf GuardedBuffer::fetch() const {
  HostBuf now = image_;
  if (data_bytes_) be_.download(now.bytes.data(), base_ + kBandBytes, data_bytes_);
  return now;
}

void GuardedBuffer::check(GuardReport& rep, const HostBuf& now,
                          const std::function<bool(int64_t, int64_t)>& allowed) const {
  const_cast<GuardedBuffer*>(this)->disarm();
  std::vector<uint8_t> band(kBandBytes);
  for (int suffix = 0; suffix < 2; ++suffix) {
    const uint8_t* src = base_ + (suffix ? kBandBytes + data_bytes_ : 0);
    be_.download(band.data(), src, kBandBytes);
    for (size_t w = 0; w < kBandBytes / 4; ++w) {
      uint32_t got = 0, want = 0;
      for (size_t b = 0; b < 4; ++b) {
        got |= uint32_t(band[w * 4 + b]) << (8 * b);
        want |= uint32_t(band_byte(id_, suffix, w * 4 + b)) << (8 * b);
      }
      if (got != want)
        rep.add({name_, suffix ? "suffix band (past the end)" : "prefix band (before the start)", -1,
                 suffix ? int64_t(w * 4) : -int64_t(kBandBytes - w * 4), got, want});
    }
  }
  const size_t es = image_.elem_size();
  const int64_t cells = int64_t(data_bytes_ / es);
  for (int64_t i = 0; i < cells; ++i) {
    const uint8_t* a = now.bytes.data() + size_t(i) * es;
    const uint8_t* b = image_.bytes.data() + size_t(i) * es;
    if (std::memcmp(a, b, es) == 0) continue;
    const int64_t rel = i - image_.offset;
    const int64_t row = rel < 0 ? -1 : (image_.stride > 0 ? rel / image_.stride : 0);
    const int64_t col = rel < 0 ? rel : (image_.stride > 0 ? rel % image_.stride : rel);
    if (rel < 0) {
      rep.add({name_, "offset prefix (before the base)", -1, col, load_word(a, es), load_word(b, es)});
      continue;
    }
    const bool in_bounds = row < image_.rows && col < image_.cols;
    if (role_ == BufRole::Input) {
      if (allowed && in_bounds && allowed(row, col)) continue;
      rep.add({name_, in_bounds ? "input cell changed" : "input padding changed", row, col,
               load_word(a, es), load_word(b, es)});
    } else if (!in_bounds) {
      rep.add({name_, "guard column (slot " + std::to_string(col - image_.cols) + " past width " +
                          std::to_string(image_.cols) + ")",
               row, col, load_word(a, es), load_word(b, es)});
    }
  }
}

HostBuf GuardedBuffer::fetch_and_check(GuardReport& rep,
                                       const std::function<bool(int64_t, int64_t)>& allowed) {
  disarm();
  HostBuf now = fetch();
  check(rep, now, allowed);
  return now;
}

}  // namespace dsv4::harness
