// fuzz/fuzz_input.cpp -- bytes -> Case for the fuzz targets, and the structure-aware mutator.
#include "fuzz/fuzz_input.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

#include "harness/fpbits.hpp"
#include "dsv4/indexer_abi.h"
#include "harness/rng.hpp"

namespace dsv4::fuzz {

using namespace dsv4::harness;

namespace {

bool has_magic(const uint8_t* d, size_t n) {
  return n >= sizeof kCaseMagic && std::memcmp(d, kCaseMagic, sizeof kCaseMagic) == 0;
}

int64_t score_cells(const Case& c) {
  const int64_t B = std::max<int64_t>(c.shape.batch, 0);
  const int64_t S = int64_t(std::max(c.shape.width, 0)) + std::max(c.shape.stride_pad, 0);
  if (c.kernel == KernelId::CandidateTable) return B * std::max<int64_t>(c.shape.k, 1);
  if (c.kernel == KernelId::TopkV2Plan) return B;
  return B * S;
}

// Dispatch thresholds of this instantiation plus the K boundaries (topk_v2.md §5). In 64 bits,
// then clamped to int32: a decoded k or width may be any int32 (UBSan: k + 1 at INT32_MAX).
std::vector<int32_t> thresholds(const Case& c, const InputLimits& lim) {
  const int64_t k = std::max(c.shape.k, 1), r2 = int64_t(lim.block_threads) * 8, r4 = int64_t(lim.block_threads) * 16;
  const int64_t w = c.shape.width;
  std::vector<int64_t> t = {0, 1, k - 1, k, k + 1, r2 - 1, r2, r2 + 1, r4 - 1, r4, r4 + 1,
                            2 * r4, 2 * r4 + 1, 4 * r4, 4 * r4 + 1,  // Cluster-2 / -4 register capacities
                            w, w - 1, 8 * (k / 8) - 1, 8 * (k / 8) + 1};
  if (c.kernel == KernelId::CandidateTable)  // tokens: nb around K
    t = {0, 1, 8 * k - 1, 8 * k, 8 * k + 1, 8 * k + 8, 8 * k + 9};
  std::vector<int32_t> out;
  for (const int64_t x : t) out.push_back(int32_t(std::clamp<int64_t>(x, INT32_MIN, INT32_MAX)));
  return out;
}

// Hostile bins to push a value into / next to.
uint32_t pick_bin(Rng& r, int w) {
  static const uint32_t b12[] = {3008, 2047, 2048, 4032, 4031, 63, 64, 1087, 1024, 1023};
  static const uint32_t b10[] = {752, 511, 512, 1008, 1007, 15, 16, 271};
  if (r.chance(1, 4)) return uint32_t(r.below(uint64_t(1) << w));
  return w == 12 ? b12[r.below(10)] : b10[r.below(8)];
}

RowRecipe& some_row(Case& c, Rng& r) {
  if (c.rows.empty()) c.rows.emplace_back();
  return c.rows[size_t(r.below(c.rows.size()))];
}

}  // namespace

bool within_limits(const Case& c, const InputLimits& lim) {
  if (c.shape.batch < 0 || c.shape.batch > std::max(lim.total.max_batch, 1) * 64) return false;
  if (c.kernel != KernelId::TopkV2Plan && c.shape.batch > lim.total.max_batch) return false;
  if (c.shape.width < 0 || c.shape.width > lim.total.max_width) return false;
  if (c.shape.k > lim.total.max_k || c.shape.k2 > lim.total.max_k) return false;
  if (c.shape.stride_pad > 4096 || c.shape.out_pad > 64 || c.shape.base_offset > 64) return false;
  if (c.shape.width_delta > 4096) return false;
  if (score_cells(c) > lim.max_cells) return false;
  if (c.rows.size() > 16 || c.table_injections.size() > 64) return false;
  for (const RowRecipe& r : c.rows)
    if (r.injections.size() > size_t(4 * lim.total.max_injections + 8) ||
        r.literal.size() > size_t(std::max<int64_t>(c.shape.width, 64)))
      return false;
  return true;
}

Case bytes_to_case(const uint8_t* data, size_t size, int kernel, const InputLimits& lim,
                   InputKind* kind) {
  if (has_magic(data, size)) {
    try {
      Case c = decode_case_strict(data, size, "<fuzz input>");
      c.kernel = static_cast<KernelId>(kernel);
      if (kind) *kind = within_limits(c, lim) ? InputKind::Strict : InputKind::Rejected;
      return c;
    } catch (const CodecError&) {
      // not a valid case file: fall through to the total decoder
    }
  }
  if (kind) *kind = InputKind::Total;
  return decode_case_total(data, size, lim.total, kernel);
}

const char* mutate_case(Case& c, uint64_t seed, const InputLimits& lim) {
  Rng r(seed);
  const int32_t B = std::max(c.shape.batch, 0);
  switch (r.below(12)) {
    case 0: {  // nudge a value across a bin edge: LB(bin) -1 / 0 / +1 ulp at either width
      Injection j;
      j.kind = InjKind::BinEdge;
      j.arg = r.chance(1, 2) ? 12 : 10;
      j.bits = pick_bin(r, j.arg);
      j.delta = int32_t(r.below(5)) - 2;
      j.count = 1 + int32_t(r.below(std::max<int64_t>(c.shape.k, 2) + 2));
      j.pos = r.chance(1, 2) ? 0 : -j.count;
      RowRecipe& rr = some_row(c, r);
      for (Injection& e : rr.injections)  // prefer moving an existing edge by one ulp
        if (e.kind == InjKind::BinEdge && r.chance(1, 2)) {
          e.delta = int32_t(std::clamp<int64_t>(int64_t(e.delta) + (r.chance(1, 2) ? 1 : -1), -2, 2));
          return "bin-edge-step";
        }
      rr.injections.push_back(j);
      return "bin-edge-add";
    }
    case 1: {  // resize a tie group / threshold-bin population
      RowRecipe& rr = some_row(c, r);
      for (Injection& e : rr.injections)
        if (e.kind == InjKind::KthTie || e.kind == InjKind::BinOverflow) {
          static const int32_t sizes[] = {2047, 2048, 2049, 4096};
          // (in 64 bits: a decoded count may be any int32)
          e.count = r.chance(1, 3) ? sizes[r.below(4)]
                                   : int32_t(std::clamp<int64_t>(int64_t(e.count) + int64_t(r.below(5)) - 2, 1, INT32_MAX));
          return "tie-resize";
        }
      Injection j;
      j.kind = r.chance(1, 2) ? InjKind::KthTie : InjKind::BinOverflow;
      j.count = 1 + int32_t(r.below(std::max<int64_t>(c.shape.k, 1) + 1));
      j.arg = r.chance(1, 2) ? 12 : 10;
      j.bits = pick_bin(r, j.arg);
      rr.injections.push_back(j);
      return "tie-add";
    }
    case 2: case 3: {  // move a seq_len across a dispatch threshold
      if (B == 0) { c.shape.batch = 1; return "batch-1"; }
      c.seq_lens.resize(size_t(B), c.shape.width);
      const auto t = thresholds(c, lim);
      const int32_t n = t[r.below(t.size())];
      if (c.kernel != KernelId::CandidateTable && n > c.shape.width && n <= lim.total.max_width)
        c.shape.width = n;  // widen so the threshold is reachable
      c.seq_lens[size_t(r.below(uint64_t(B)))] = std::max(0, std::min(n, std::max(c.shape.width, n)));
      return "seqlen-threshold";
    }
    case 4: {  // page size: double, halve or any power of two
      const int64_t ps = std::max<int64_t>(c.shape.page_size, 1);
      const int64_t lo = (c.kernel == KernelId::CandidateTable || c.kernel == KernelId::Pipeline) ? 8 : 1;
      int64_t next = r.chance(1, 3) ? ps * 2 : r.chance(1, 2) ? ps / 2 : int64_t(1) << r.below(13);
      c.shape.page_size = std::clamp<int64_t>(next, lo, int64_t(1) << 20);
      return "page-size";
    }
    case 5: {  // k across the row length
      // (in 64 bits: a decoded seq_len or k may be INT32_MIN / INT32_MAX; UBSan found n - 1)
      const int64_t n = c.seq_lens.empty() ? c.shape.width : c.seq_lens[0], k = c.shape.k;
      const int64_t opts[] = {n - 1, n, n + 1, k - 1, k + 1, 2048, 1};
      c.shape.k = int32_t(std::clamp<int64_t>(opts[r.below(7)], 1, lim.total.max_k));
      return "k";
    }
    case 6:
      c.knobs.force_path = int32_t(r.below(DSV4_PATH_COUNT));
      if (c.knobs.force_path == DSV4_PATH_TRIVIAL || c.knobs.force_path == DSV4_PATH_ROW_ERROR)
        c.knobs.force_path = DSV4_PATH_AUTO;
      return "force-path";
    case 7: {
      static const int32_t caps[] = {-1, 0, 1, 2, 8, 128, 2047, 2048};
      c.knobs.tie_capacity = caps[r.below(8)];
      return "tie-capacity";
    }
    case 8: {
      RowRecipe& rr = some_row(c, r);
      if (c.kernel == KernelId::CandidateTable)
        rr.dist = Dist(int(Dist::CandUniform) + int(r.below(7)));
      else
        rr.dist = Dist(r.below(14));
      rr.seed = r.next();
      return "dist";
    }
    case 9: {  // a hostile scalar at the start or the end of the window
      Injection j;
      static const uint32_t pats[] = {fp::kQNaN, 0xFFC00001u, fp::kPosInf, fp::kNegInf, 0u, 0x80000000u,
                                      1u, 0x80000001u, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x477FF000u, 0xBFFFF000u};
      j.kind = InjKind::Bits;
      j.bits = pats[r.below(12)];
      j.count = 1 + int32_t(r.below(std::max<int64_t>(c.shape.k, 1) + 2));
      j.pos = r.chance(1, 2) ? 0 : -j.count;
      some_row(c, r).injections.push_back(j);
      return "hostile-bits";
    }
    case 10: {
      Injection j;
      const InjKind order[] = {InjKind::LargestLast, InjKind::LargestFirst, InjKind::Shuffle};
      j.kind = order[r.below(3)];
      some_row(c, r).injections.push_back(j);
      return "order";
    }
    default:
      c.schedule.policy = uint8_t(r.below(kSchedulePolicyCount));
      c.schedule.seed = r.next();
      return "schedule";
  }
}

size_t custom_mutate(uint8_t* data, size_t size, size_t max_size, unsigned seed, int kernel,
                     const InputLimits& lim, ByteMutator byte_mutate) {
  // One in four: plain byte mutation (keeps libFuzzer's own strategies, CMP tracing, dictionary).
  if ((seed & 3) == 0 || max_size < 64) return byte_mutate(data, size, max_size);
  InputKind kind;
  Case c = bytes_to_case(data, size, kernel, lim, &kind);
  uint64_t s = mix64(seed);
  const int rounds = 1 + int(s % 3);
  for (int i = 0; i < rounds; ++i) mutate_case(c, mix64(s + uint64_t(i)), lim);
  if (!within_limits(c, lim)) return byte_mutate(data, size, max_size);
  const std::vector<uint8_t> out = encode_case(c);
  if (out.size() > max_size) return byte_mutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

}  // namespace dsv4::fuzz
