// tests/simt/conformance_test.cpp -- runs the conformance probes on the emulator.
//   (no args)  compare byte for byte with tests/simt/expected/simt_conformance_*.bin, produced on
//              the H200 by scripts/gpu/simt_conformance.sh; FAILS if they do not exist yet.
//   --self     self-consistency: identical dumps under several schedules, and independent models
//              of shuffle / vote / reduce / barrier / cluster / fp16 results (passes without a GPU).
//   --dump DIR write the emulator's dumps (for diffing against a GPU run).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "conformance_probes.cu"

namespace {

int g_fail = 0;
void expect(bool ok, const std::string& what) {
  if (!ok && g_fail++ < 20) std::fprintf(stderr, "MISMATCH: %s\n", what.c_str());
}

const std::vector<unsigned char>& rec(const std::vector<probes::Record>& r, const char* name) {
  for (const auto& x : r)
    if (x.name == name) return x.bytes;
  static std::vector<unsigned char> none;
  expect(false, std::string("missing record ") + name);
  return none;
}
template <typename T>
T at(const std::vector<unsigned char>& b, size_t i) {
  T v{};
  if ((i + 1) * sizeof(T) <= b.size()) std::memcpy(&v, b.data() + i * sizeof(T), sizeof(T));
  return v;
}

// Reference shuffle straight from the PTX pseudo-code, written independently of simt/src.
int ref_shfl_src(int mode, int lane, int b, int width) {
  int c = ((32 - width) << 8) | (mode == 1 ? 0 : 31);
  int seg = (c >> 8) & 31, cl = c & 31, bv = b & 31;
  int maxl = (lane & seg) | (cl & ~seg), minl = lane & seg, j;
  bool p;
  if (mode == 1) { j = lane - bv; p = j >= maxl; }
  else if (mode == 2) { j = lane + bv; p = j <= maxl; }
  else if (mode == 3) { j = lane ^ bv; p = j <= maxl; }
  else { j = minl | (bv & ~seg); p = j <= maxl; }
  return p ? j : lane;
}

void self_models(const std::vector<probes::Record>& r) {
  using namespace probes;
  const auto& sh = rec(r, "shfl");
  for (int cfg = 0; cfg < kShflConfigs; ++cfg) {
    int mode = cfg % kShflModes, width = shfl_width((cfg / kShflModes) % kWidths);
    int arg = shfl_arg((cfg / (kShflModes * kWidths)) % kArgs), mk = cfg / (kShflModes * kWidths * kArgs);
    unsigned mask = shfl_mask(mk, width);
    if (mode == 3 && mk != 0) arg &= width - 1;
    for (int l = 0; l < 32; ++l) {
      unsigned want = 0xDEADBEEFu;
      if ((mask >> l) & 1u) {
        int j = ref_shfl_src(mode, l, arg, width);
        want = (static_cast<unsigned>(j) * 0x01010101u) ^ 0xA5000000u ^ static_cast<unsigned>(cfg << 8);
      }
      expect(at<unsigned>(sh, cfg * 32 + l) == want, "shfl cfg " + std::to_string(cfg) + " lane " + std::to_string(l));
    }
  }
  const auto& vo = rec(r, "vote_match_reduce");
  for (int cfg = 0; cfg < kVoteMasks * kPreds; ++cfg) {
    unsigned mask = vote_mask(cfg / kPreds);
    int p = cfg % kPreds;
    unsigned ballot = 0, sum = 0, mn = ~0u, mx = 0;
    for (unsigned l = 0; l < 32; ++l) {
      if (!((mask >> l) & 1u)) continue;
      if (vote_pred(p, l)) ballot |= 1u << l;
      unsigned u = l * 2654435761u ^ static_cast<unsigned>(cfg * 977);
      sum += u; mn = u < mn ? u : mn; mx = u > mx ? u : mx;
    }
    for (unsigned l = 0; l < 32; ++l) {
      size_t base = (cfg * 32 + l) * kVoteOut;
      if (!((mask >> l) & 1u)) { expect(at<unsigned>(vo, base) == 0xDEADBEEFu, "vote sentinel"); continue; }
      std::string w = "vote cfg " + std::to_string(cfg) + " lane " + std::to_string(l);
      expect(at<unsigned>(vo, base + 0) == ballot, w + " ballot");
      expect(at<unsigned>(vo, base + 1) == (ballot != 0), w + " any");
      expect(at<unsigned>(vo, base + 2) == (ballot == mask), w + " all");
      expect(at<unsigned>(vo, base + 6) == sum, w + " reduce_add");
      expect(at<unsigned>(vo, base + 7) == mn, w + " reduce_min");
      expect(at<unsigned>(vo, base + 8) == mx, w + " reduce_max");
      unsigned key = (l * 7u + static_cast<unsigned>(p)) % (static_cast<unsigned>(p) + 2u), m = 0;
      for (unsigned k = 0; k < 32; ++k)
        if ((mask >> k) & 1u && (k * 7u + static_cast<unsigned>(p)) % (static_cast<unsigned>(p) + 2u) == key) m |= 1u << k;
      expect(at<unsigned>(vo, base + 3) == m, w + " match_any");
      expect(at<unsigned>(vo, base + 15) == m, w + " match_any 64");
    }
  }
  const auto& ba = rec(r, "barrier");
  for (unsigned b = 0; b < 3; ++b)
    for (unsigned t = 0; t < 96; ++t) {
      size_t base = (b * 96 + t) * 8;
      expect(at<int>(ba, base + 0) == 32 && at<int>(ba, base + 1) == 1 && at<int>(ba, base + 2) == 0 &&
                 at<int>(ba, base + 3) == 1 && at<int>(ba, base + 4) == 0 &&
                 at<int>(ba, base + 5) == (b == 1 ? 96 : 48) && at<int>(ba, base + 6) == static_cast<int>(t) &&
                 at<int>(ba, base + 7) == 24,
             "barrier block " + std::to_string(b) + " thread " + std::to_string(t));
    }
  const auto& cl = rec(r, "cluster_dsmem");
  for (int b = 0; b < 8; ++b)
    for (int t = 0; t < 64; ++t) {
      size_t base = (b * 64 + t) * 8;
      int rk = b % 4, nb = (b / 4) * 4 + (rk + 1) % 4, pr = (rk + 3) % 4;
      expect(at<int>(cl, base) == nb * 1000 + (t + 5) % 64 && at<int>(cl, base + 1) == pr * 77 + t * 3 &&
                 at<int>(cl, base + 2) == rk && at<int>(cl, base + 3) == 4 && at<int>(cl, base + 4) == 411 &&
                 at<int>(cl, base + 5) == rk && at<int>(cl, base + 6) == rk * 64 + t &&
                 at<int>(cl, base + 7) == (rk == 0 ? b * 1000 + 4 : b * 1000),
             "cluster block " + std::to_string(b) + " thread " + std::to_string(t));
    }
  const auto& hb = rec(r, "half_bf16_all_patterns");
  for (unsigned i = 0; i < 65536; ++i) {
    // independent half decoder
    int e = (i >> 10) & 31, m = i & 1023;
    double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(1024 + m, e - 25);
    if (i & 0x8000) v = -v;
    float f = __uint_as_float(at<unsigned>(hb, i * 8));
    expect(std::isnan(v) ? std::isnan(f) : static_cast<double>(f) == v, "half2float " + std::to_string(i));
    expect(at<unsigned>(hb, i * 8 + 1) == (i << 16), "bfloat162float " + std::to_string(i));
    if (!std::isnan(v) && !std::isinf(v)) {
      expect(static_cast<int>(at<unsigned>(hb, i * 8 + 2)) == static_cast<int>(std::nearbyint(v)), "half2int_rn");
      expect(static_cast<int>(at<unsigned>(hb, i * 8 + 3)) == static_cast<int>(std::floor(v)), "half2int_rd");
      expect(static_cast<int>(at<unsigned>(hb, i * 8 + 4)) == static_cast<int>(std::ceil(v)), "half2int_ru");
    }
  }
}

int compare_with_expected(const std::vector<probes::Record>& got) {
  const char* groups[] = {"warp", "block", "numeric"};
  std::map<std::string, const probes::Record*> mine;
  for (const auto& r : got) mine[r.name] = &r;
  for (const char* g : groups) {
    const std::string path = std::string(SIMT_EXPECTED_DIR) + "/simt_conformance_" + g + ".bin";
    std::vector<probes::Record> exp;
    if (!probes::read_records(path, exp)) {
      std::fprintf(stderr,
                   "FAIL: GPU-produced expected file %s is missing or unreadable.\n"
                   "  Produce it on an H200: OUT=/tmp/out scripts/gpu/simt_conformance.sh, then copy\n"
                   "  $OUT/simt_conformance_*.bin to tests/simt/expected/ (see docs/simt.md).\n",
                   path.c_str());
      return 1;
    }
    for (const auto& e : exp) {
      auto it = mine.find(e.name);
      if (it == mine.end()) { expect(false, "probe " + e.name + " not produced by the emulator"); continue; }
      const auto& a = it->second->bytes;
      if (a.size() != e.bytes.size()) { expect(false, e.name + ": size differs"); continue; }
      size_t diffs = 0, first = a.size();
      for (size_t i = 0; i < a.size(); ++i)
        if (a[i] != e.bytes[i]) { if (!diffs) first = i; ++diffs; }
      if (diffs) {
        char buf[256];
        std::snprintf(buf, sizeof buf, "%s: %zu bytes differ, first at byte %zu (emulator 0x%02x, GPU 0x%02x)",
                      e.name.c_str(), diffs, first, a[first], e.bytes[first]);
        expect(false, buf);
      } else {
        std::printf("  %-24s %8zu bytes identical\n", e.name.c_str(), a.size());
      }
    }
  }
  return g_fail ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  std::vector<probes::Record> base;
  simt::set_schedule_from_string("rr");
  if (!probes::run_probes(base)) {
    std::fprintf(stderr, "FAIL: probes did not run: %s\n", simt::last_report().c_str());
    return 1;
  }
  if (mode == "--dump") {
    const std::string dir = argc > 2 ? argv[2] : ".";
    const char* groups[] = {"warp", "block", "numeric"};
    for (const char* g : groups) {
      std::vector<probes::Record> recs;
      simt::set_schedule_from_string("rr");
      if (!probes::run_probes(recs, g) || !probes::write_records(dir + "/simt_conformance_" + g + ".bin", recs))
        return 1;
    }
    return 0;
  }
  if (mode == "--self") {
    const char* scheds[] = {"random:1", "pct:7:3"};
    for (const char* s : scheds) {
      simt::set_schedule_from_string(s);
      std::vector<probes::Record> other;
      if (!probes::run_probes(other, "")) { expect(false, std::string("probes failed under ") + s); continue; }
      for (size_t i = 0; i < base.size() && i < other.size(); ++i)
        expect(base[i].bytes == other[i].bytes, base[i].name + " differs under schedule " + s);
    }
    simt::set_schedule_from_string("rr");
    self_models(base);
    std::printf("self-consistency: %s (%zu probes)\n", g_fail ? "FAIL" : "ok", base.size());
    return g_fail ? 1 : 0;
  }
  return compare_with_expected(base);
}
