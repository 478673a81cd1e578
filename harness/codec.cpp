// harness/codec.cpp -- binary encode + strict decode of case files (see codec.hpp).
#include "codec.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include "materialize.hpp"

namespace dsv4::harness {
namespace {

struct Writer {
  std::vector<uint8_t> out;
  void u8(uint8_t v) { out.push_back(v); }
  void u32(uint32_t v) { for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i))); }
  void u64(uint64_t v) { for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i))); }
  void i32(int32_t v) { u32(uint32_t(v)); }
  void i64(int64_t v) { u64(uint64_t(v)); }
  void vi32(const std::vector<int32_t>& v) { u32(uint32_t(v.size())); for (int32_t x : v) i32(x); }
  void vu32(const std::vector<uint32_t>& v) { u32(uint32_t(v.size())); for (uint32_t x : v) u32(x); }
};

class Reader {
 public:
  Reader(const uint8_t* p, size_t n, const std::string& src, size_t start = 0)
      : p_(p), n_(n), pos_(start), src_(src) {}
  [[noreturn]] void fail(const std::string& what) const {
    throw CodecError(src_ + ": " + what + " (at byte " + std::to_string(pos_) + ")");
  }
  void need(size_t k, const char* field) const {
    if (n_ - pos_ < k) fail(std::string("truncated while reading ") + field);
  }
  uint8_t u8(const char* f) { need(1, f); return p_[pos_++]; }
  uint32_t u32(const char* f) {
    need(4, f);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(p_[pos_ + i]) << (8 * i);
    pos_ += 4;
    return v;
  }
  uint64_t u64(const char* f) {
    need(8, f);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(p_[pos_ + i]) << (8 * i);
    pos_ += 8;
    return v;
  }
  int32_t i32(const char* f) { return int32_t(u32(f)); }
  int64_t i64(const char* f) { return int64_t(u64(f)); }
  uint32_t count(const char* f, uint32_t max, size_t item_bytes) {
    const uint32_t c = u32(f);
    if (c > max) fail(std::string(f) + " count " + std::to_string(c) + " exceeds " + std::to_string(max));
    need(size_t(c) * item_bytes, f);
    return c;
  }
  template <class E> E en(const char* f, int limit) {
    const uint8_t v = u8(f);
    if (v >= limit) fail(std::string(f) + " = " + std::to_string(v) + " out of range [0, " + std::to_string(limit) + ")");
    return static_cast<E>(v);
  }
  bool boolean(const char* f) {
    const uint8_t v = u8(f);
    if (v > 1) fail(std::string(f) + " = " + std::to_string(v) + " is not 0 or 1");
    return v == 1;
  }
  std::vector<int32_t> vi32(const char* f, uint32_t max) {
    const uint32_t c = count(f, max, 4);
    std::vector<int32_t> v(c);
    for (auto& x : v) x = i32(f);
    return v;
  }
  std::vector<uint32_t> vu32(const char* f, uint32_t max) {
    const uint32_t c = count(f, max, 4);
    std::vector<uint32_t> v(c);
    for (auto& x : v) x = u32(f);
    return v;
  }
  size_t pos() const { return pos_; }
  size_t size() const { return n_; }

 private:
  const uint8_t* p_;
  size_t n_, pos_;
  const std::string& src_;
};

void encode_payload(Writer& w, const Case& c) {
  w.u8(uint8_t(c.kernel));
  const Shape& s = c.shape;
  w.i32(s.batch); w.i32(s.width); w.i32(s.stride_pad); w.i32(s.k); w.i32(s.k2);
  w.i64(s.page_size); w.i32(s.base_offset); w.i32(s.width_delta); w.i32(s.out_pad);
  w.vi32(c.seq_lens);
  w.u8(c.has_row_starts ? 1 : 0);
  w.vi32(c.row_starts);
  w.vi32(c.out_offsets);
  w.u8(uint8_t(c.mode));
  w.u8(uint8_t(c.table_kind));
  w.u64(c.table_seed);
  w.u32(uint32_t(c.table_injections.size()));
  for (const auto& t : c.table_injections) { w.i32(t.row); w.i32(t.col); w.u8(uint8_t(t.entry)); w.i32(t.value); }
  w.u32(uint32_t(c.rows.size()));
  for (const auto& r : c.rows) {
    w.u8(uint8_t(r.dist)); w.u64(r.seed); w.u32(r.param);
    w.u32(uint32_t(r.injections.size()));
    for (const auto& in : r.injections) {
      w.u8(uint8_t(in.kind)); w.i32(in.pos); w.i32(in.count); w.i32(in.arg); w.i32(in.delta); w.u32(in.bits);
    }
    w.vu32(r.literal);
  }
  w.u8(uint8_t(c.poison));
  const Knobs& k = c.knobs;
  w.u8(k.validate ? 1 : 0);
  for (int32_t v : {k.force_path, k.tie_capacity, k.register2_max, k.register4_max, k.cluster_floor_small,
                    k.cluster_floor_large, k.small_batch_cut, k.cluster_max_batch, k.plan_t_min,
                    k.cluster_enable, k.inject_probe_c8, k.inject_probe_c16, k.early_read,
                    k.static_threshold, k.amax_topk})
    w.i32(v);
  w.u8(c.schedule.policy);
  w.u64(c.schedule.seed);
}

enum ProvTag : uint8_t { kImplPath = 1, kAbi = 2, kName, kVersion, kBackend, kDevice, kDate, kHarness, kTagEnd };

void encode_provenance(Writer& w, const Provenance& p) {
  auto str = [&](uint8_t tag, const std::string& v) {
    if (v.empty()) return;
    const size_t n = std::min<size_t>(v.size(), kMaxProvenanceString);
    w.u8(tag);
    w.u32(uint32_t(n));
    for (size_t i = 0; i < n; ++i) {
      const unsigned char ch = static_cast<unsigned char>(v[i]);
      w.u8(ch >= 0x20 && ch < 0x7f ? ch : '?');  // printable ASCII only (the decoder insists)
    }
  };
  str(kImplPath, p.impl_path);
  if (p.abi_version) { w.u8(kAbi); w.u32(4); w.u32(p.abi_version); }
  str(kName, p.impl_name);
  str(kVersion, p.impl_version);
  str(kBackend, p.backend);
  str(kDevice, p.device);
  str(kDate, p.date);
  str(kHarness, p.harness_version);
}

// Reads fields up to the end of the reader (the section's end).
Provenance decode_provenance(Reader& r) {
  Provenance p;
  int last = 0;
  while (r.pos() < r.size()) {
    const uint8_t tag = r.u8("provenance tag");
    if (tag == 0 || tag >= kTagEnd) r.fail("unknown provenance tag " + std::to_string(tag));
    if (tag <= last) r.fail("provenance tag " + std::to_string(tag) + " repeated or out of order");
    last = tag;
    const uint32_t len = r.u32("provenance field length");
    if (tag == kAbi) {
      if (len != 4) r.fail("provenance abi_version has length " + std::to_string(len) + ", not 4");
      p.abi_version = r.u32("provenance abi_version");
      continue;
    }
    if (len == 0 || len > kMaxProvenanceString)
      r.fail("provenance string length " + std::to_string(len) + " outside [1, " +
             std::to_string(kMaxProvenanceString) + "]");
    r.need(len, "provenance string");
    std::string v;
    for (uint32_t i = 0; i < len; ++i) {
      const uint8_t ch = r.u8("provenance string");
      if (ch < 0x20 || ch >= 0x7f) r.fail("provenance string holds non-printable byte " + std::to_string(ch));
      v.push_back(char(ch));
    }
    std::string* dst[] = {nullptr, &p.impl_path, nullptr, &p.impl_name, &p.impl_version,
                          &p.backend, &p.device, &p.date, &p.harness_version};
    *dst[tag] = std::move(v);
  }
  if (p.empty()) r.fail("empty provenance section in a version-2 file");
  return p;
}

}  // namespace

std::vector<uint8_t> encode_case(const Case& c) { return encode_case(c, Provenance{}); }

std::vector<uint8_t> encode_case(const Case& c, const Provenance& prov) {
  Writer payload;
  encode_payload(payload, c);
  Writer w;
  w.out.insert(w.out.end(), kCaseMagic, kCaseMagic + 8);
  w.u32(prov.empty() ? kCaseVersion : kCaseVersionProvenance);
  w.u32(uint32_t(payload.out.size()));
  w.out.insert(w.out.end(), payload.out.begin(), payload.out.end());
  if (!prov.empty()) {
    Writer sec;
    encode_provenance(sec, prov);
    w.u32(uint32_t(sec.out.size()));
    w.out.insert(w.out.end(), sec.out.begin(), sec.out.end());
  }
  return w.out;
}

Case decode_case_strict(const uint8_t* data, size_t size, const std::string& source) {
  return decode_case_strict(data, size, source, nullptr);
}

Case decode_case_strict(const uint8_t* data, size_t size, const std::string& source, Provenance* prov) {
  if (prov) *prov = Provenance{};
  Reader h(data, size, source);
  h.need(8, "magic");
  if (std::memcmp(data, kCaseMagic, 8) != 0) h.fail("bad magic: not a DSV4CASE file");
  for (int i = 0; i < 8; ++i) h.u8("magic");
  const uint32_t version = h.u32("version");
  if (version != kCaseVersion && version != kCaseVersionProvenance)
    h.fail("unsupported case version " + std::to_string(version) + " (this build reads " +
           std::to_string(kCaseVersion) + " and " + std::to_string(kCaseVersionProvenance) + ")");
  const uint32_t len = h.u32("payload length");
  const size_t rest = size - h.pos();
  if (version == kCaseVersion && size_t(len) != rest)
    h.fail("payload length " + std::to_string(len) + " but " + std::to_string(rest) +
           " bytes follow (truncated or trailing bytes)");
  if (version == kCaseVersionProvenance && size_t(len) > rest)
    h.fail("payload length " + std::to_string(len) + " but only " + std::to_string(rest) + " bytes follow (truncated)");
  const size_t payload_end = h.pos() + len;
  if (version == kCaseVersionProvenance) {
    Reader ps(data, size, source, payload_end);
    const uint32_t sec = ps.u32("provenance section length");
    if (size_t(sec) != size - ps.pos())
      ps.fail("provenance section length " + std::to_string(sec) + " but " + std::to_string(size - ps.pos()) +
              " bytes follow (truncated or trailing bytes)");
    const Provenance p = decode_provenance(ps);
    if (prov) *prov = p;
  }
  Reader r(data, payload_end, source, h.pos());
  Case c;
  c.kernel = r.en<KernelId>("kernel", kKernelIdCount);
  Shape& s = c.shape;
  s.batch = r.i32("shape.batch");
  if (s.batch < 0 || s.batch > kMaxBatch) r.fail("shape.batch = " + std::to_string(s.batch) + " outside [0, 65536]");
  s.width = r.i32("shape.width");
  if (s.width < 0) r.fail("shape.width = " + std::to_string(s.width) + " is negative");
  s.stride_pad = r.i32("shape.stride_pad");
  if (s.stride_pad < 0 || s.stride_pad > (1 << 20)) r.fail("shape.stride_pad outside [0, 2^20]");
  s.k = r.i32("shape.k");
  s.k2 = r.i32("shape.k2");
  if (s.k > (1 << 20) || s.k2 > (1 << 20)) r.fail("shape.k / k2 above 2^20");
  s.page_size = r.i64("shape.page_size");
  s.base_offset = r.i32("shape.base_offset");
  if (s.base_offset < 0 || s.base_offset > (1 << 20)) r.fail("shape.base_offset outside [0, 2^20]");
  s.width_delta = r.i32("shape.width_delta");
  s.out_pad = r.i32("shape.out_pad");
  if (s.out_pad > (1 << 16)) r.fail("shape.out_pad above 65536");
  c.seq_lens = r.vi32("seq_lens", kMaxBatch);
  c.has_row_starts = r.boolean("has_row_starts");
  c.row_starts = r.vi32("row_starts", kMaxBatch);
  c.out_offsets = r.vi32("out_offsets", kMaxBatch);
  c.mode = r.en<PagedMode>("mode", kPagedModeCount);
  c.table_kind = r.en<TableKind>("table_kind", kTableKindCount);
  c.table_seed = r.u64("table_seed");
  const uint32_t nti = r.count("table_injections", kMaxTableInjections, 13);
  for (uint32_t i = 0; i < nti; ++i) {
    TableInjection t;
    t.row = r.i32("table_injection.row");
    t.col = r.i32("table_injection.col");
    t.entry = r.en<TableEntry>("table_injection.entry", kTableEntryCount);
    t.value = r.i32("table_injection.value");
    c.table_injections.push_back(t);
  }
  const uint32_t nrows = r.count("rows", kMaxRecipes, 17);
  for (uint32_t i = 0; i < nrows; ++i) {
    RowRecipe rr;
    rr.dist = r.en<Dist>("row.dist", kDistCount);
    rr.seed = r.u64("row.seed");
    rr.param = r.u32("row.param");
    const uint32_t ni = r.count("row.injections", kMaxInjections, 21);
    for (uint32_t j = 0; j < ni; ++j) {
      Injection in;
      in.kind = r.en<InjKind>("injection.kind", kInjKindCount);
      in.pos = r.i32("injection.pos");
      in.count = r.i32("injection.count");
      in.arg = r.i32("injection.arg");
      in.delta = r.i32("injection.delta");
      in.bits = r.u32("injection.bits");
      rr.injections.push_back(in);
    }
    rr.literal = r.vu32("row.literal", kMaxLiteral);
    c.rows.push_back(std::move(rr));
  }
  c.poison = r.en<Poison>("poison", kPoisonCount);
  Knobs& k = c.knobs;
  k.validate = r.boolean("knobs.validate");
  for (int32_t* f : {&k.force_path, &k.tie_capacity, &k.register2_max, &k.register4_max,
                     &k.cluster_floor_small, &k.cluster_floor_large, &k.small_batch_cut,
                     &k.cluster_max_batch, &k.plan_t_min, &k.cluster_enable, &k.inject_probe_c8,
                     &k.inject_probe_c16, &k.early_read, &k.static_threshold, &k.amax_topk})
    *f = r.i32("knobs");
  c.schedule.policy = r.u8("schedule.policy");
  if (c.schedule.policy >= kSchedulePolicyCount) r.fail("schedule.policy out of range");
  c.schedule.seed = r.u64("schedule.seed");
  if (r.pos() != r.size()) r.fail("trailing bytes after the case");
  return c;
}

Case decode_case_strict(const std::vector<uint8_t>& bytes, const std::string& source) {
  return decode_case_strict(bytes.data(), bytes.size(), source);
}

std::vector<uint8_t> read_file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw CodecError(path + ": cannot open for reading");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) throw CodecError(path + ": read error");
  return bytes;
}

Case read_case_file(const std::string& path) { return decode_case_strict(read_file_bytes(path), path); }

Case read_case_file(const std::string& path, Provenance* prov) {
  const std::vector<uint8_t> bytes = read_file_bytes(path);
  return decode_case_strict(bytes.data(), bytes.size(), path, prov);
}

void write_case_file(const std::string& path, const Case& c) { write_case_file(path, c, Provenance{}); }

void write_case_file(const std::string& path, const Case& c, const Provenance& prov) {
  const std::vector<uint8_t> bytes = encode_case(c, prov);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw CodecError(path + ": cannot open for writing");
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!f) throw CodecError(path + ": write error");
}

}  // namespace dsv4::harness
