// harness/codec_total.cpp -- the TOTAL decoder: any byte string -> a valid, size-bounded case.
// Bytes are consumed in a fixed order; a missing byte reads as 0, so every prefix is meaningful
// and libFuzzer mutations map to local changes of the case.
#include <algorithm>
#include <climits>

#include "codec.hpp"

namespace dsv4::harness {
namespace {

class Bytes {
 public:
  Bytes(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  uint8_t u8() { return pos_ < n_ ? p_[pos_++] : 0; }
  uint16_t u16() { return uint16_t(u8() | (uint16_t(u8()) << 8)); }
  uint32_t u32() { return uint32_t(u16()) | (uint32_t(u16()) << 16); }
  uint64_t u64() { return uint64_t(u32()) | (uint64_t(u32()) << 32); }
  int64_t below(int64_t n) { return n <= 1 ? 0 : int64_t(u32() % uint64_t(n)); }

 private:
  const uint8_t* p_;
  size_t n_, pos_ = 0;
};

const Dist kScoreDists[] = {Dist::Randn,  Dist::Uniform,     Dist::Distinct12, Dist::Distinct10,
                            Dist::Tiny,   Dist::Ties,        Dist::Huge,       Dist::NegInf,
                            Dist::SignedZeros, Dist::Midpoints, Dist::SmallInts, Dist::Constant,
                            Dist::Bf16Bits, Dist::AllNaN};
const Dist kCandDists[] = {Dist::CandUniform,    Dist::CandClustered, Dist::CandNewest,
                           Dist::CandQueueOnly,  Dist::CandDuplicates, Dist::CandMinusOne,
                           Dist::CandOutOfRange};

int32_t bad_length(Bytes& in, int32_t L) {
  const int32_t v[] = {-1, -7, -8, INT32_MIN, L + 1, L + 8, INT32_MAX};
  return v[in.u8() % 7];
}

int32_t pick_len(Bytes& in, int32_t L, int32_t k, const TotalLimits& lim) {
  const uint8_t sel = in.u8();
  if (sel < 96) return int32_t(in.below(int64_t(L) + 1));
  if (sel < 160) return L;
  if (sel < 208) return std::clamp<int32_t>(k + int32_t(sel % 5) - 2, 0, L);
  if (sel < 240 || !lim.allow_out_of_contract) return std::min<int32_t>(sel % 16, L);
  return bad_length(in, L);
}

}  // namespace

Case decode_case_total(const uint8_t* data, size_t size, const TotalLimits& lim, int forced_kernel) {
  Bytes in(data, size);
  Case c;
  const uint8_t kb = in.u8();
  c.kernel = static_cast<KernelId>(forced_kernel >= 0 && forced_kernel < kKernelIdCount
                                       ? forced_kernel : kb % kKernelIdCount);
  const KernelId K = c.kernel;
  Shape& s = c.shape;
  const uint8_t bsel = in.u8();
  s.batch = bsel == 0xFF ? 0 : 1 + bsel % std::max(lim.max_batch, 1);
  int32_t max_w = std::max(lim.max_width, 1);
  if (K == KernelId::Bf16Small) max_w = std::min(max_w, 16384);
  s.width = int32_t(in.below(int64_t(max_w) + 1));
  const int32_t L = s.width;
  const int32_t align = (K == KernelId::Bf16Small || K == KernelId::Amax8 || K == KernelId::Pipeline) ? 8 : 4;
  const uint8_t psel = in.u8();
  const int32_t aligned_pad = (align - L % align) % align;
  s.stride_pad = psel < 200 ? aligned_pad + align * (psel % 3) : psel % 8;
  const int32_t nb = (L + 7) / 8;
  const int32_t kcap = K == KernelId::CandidateTable ? std::max(1, nb + nb / 2) : std::max(1, L + L / 4 + 1);
  s.k = 1 + int32_t(in.below(std::min(lim.max_k, kcap)));
  if (K == KernelId::Pipeline)
    s.k2 = 1 + int32_t(in.below(std::min({lim.max_k, std::max(1, lim.max_pipeline_k2), std::max(1, nb)})));
  const uint8_t pg = in.u8();
  if (K == KernelId::CandidateTable || K == KernelId::Pipeline) s.page_size = int64_t(8) << (pg % 5);
  else if (K == KernelId::Bf16Small) s.page_size = int64_t(1) << (pg % 7);
  else s.page_size = int64_t(1) << (pg % 8);
  if (lim.allow_out_of_contract && pg >= 250) s.page_size = pg == 255 ? 0 : 3;  // host errors
  const uint8_t bo = in.u8();
  s.base_offset = bo < 232 ? 0 : 1 + bo % 3;
  const uint8_t wd = in.u8();
  s.width_delta = wd < 208 ? 0 : int32_t(wd % 5) - 2;
  s.out_pad = in.u8() % 4;

  for (int32_t b = 0; b < s.batch; ++b) c.seq_lens.push_back(pick_len(in, L, s.k, lim));
  if (K == KernelId::Pipeline) {  // the chain is only meaningful in contract (else it is skipped)
    if (s.width == 0) s.width = 8;
    s.stride_pad = (8 - s.width % 8) % 8 + 8 * (psel % 3);
    s.base_offset = 0;
    s.width_delta = std::max(s.width_delta, 0);
    if (s.page_size < 8) s.page_size = 64;
    for (auto& n : c.seq_lens) n = std::clamp(n, 0, s.width);
  }
  if (K == KernelId::TopkV2Ragged) {
    c.has_row_starts = in.u8() & 1;
    for (int32_t b = 0; b < s.batch; ++b) {
      int32_t rs = int32_t(in.below(int64_t(L) + 1));
      int32_t& n = c.seq_lens[size_t(b)];
      if (n >= 0 && n <= L && rs + n > L) rs = L - n;  // keep in-contract lengths in contract
      if (!c.has_row_starts) rs = 0;
      const uint8_t osel = in.u8();
      int32_t off = osel < 128 ? 0 : osel < 192 ? rs : osel < 240 ? 4321 : 0;
      if (lim.allow_out_of_contract && osel >= 248) {
        if (osel & 1) off = -1; else off = INT32_MAX - 1;
        if (osel == 255 && c.has_row_starts) rs = -3;
      }
      c.row_starts.push_back(rs);
      c.out_offsets.push_back(off);
    }
  }
  c.mode = static_cast<PagedMode>(in.u8() % kPagedModeCount);
  c.table_kind = static_cast<TableKind>(in.u8() % kTableKindCount);
  c.table_seed = in.u64();
  const uint8_t ntsel = in.u8();
  const int nti = lim.allow_out_of_contract && ntsel >= 224 ? 1 + ntsel % 3 : 0;
  for (int i = 0; i < nti; ++i) {
    TableInjection t;
    t.row = int32_t(in.below(int64_t(s.batch) + 1)) - 1;
    t.col = int32_t(int8_t(in.u8()));
    t.entry = static_cast<TableEntry>(in.u8() % kTableEntryCount);
    t.value = int32_t(in.u32());
    c.table_injections.push_back(t);
  }
  const int nrec = 1 + int(in.below(std::max(1, std::min<int32_t>(s.batch, 4))));
  const int64_t row_cap = K == KernelId::CandidateTable ? std::max(s.k, 1) : std::max(L, 1);
  for (int i = 0; i < nrec; ++i) {
    RowRecipe r;
    const uint8_t d = in.u8();
    r.dist = K == KernelId::CandidateTable ? kCandDists[d % 7] : kScoreDists[d % 14];
    if (r.dist == Dist::AllNaN && !(d & 0x80)) r.dist = Dist::Randn;  // rarer
    r.seed = in.u64();
    r.param = r.dist == Dist::Constant ? in.u32() : in.u16() % 64;
    if (r.dist == Dist::Midpoints) r.param = (r.param & 1) ? 10 : 12;
    const int ni = int(in.below(int64_t(lim.max_injections) + 1));
    for (int j = 0; j < ni; ++j) {
      Injection x;
      x.kind = static_cast<InjKind>(in.u8() % kInjKindCount);
      x.pos = int32_t(int16_t(in.u16())) % int32_t(row_cap);
      x.count = int32_t(in.below(std::min<int64_t>(row_cap, 4200) + 1));
      x.arg = (in.u8() & 1) ? 10 : 12;
      x.delta = int32_t(in.u8() % 5) - 2;
      x.bits = in.u32();
      r.injections.push_back(x);
    }
    const uint8_t lsel = in.u8();
    if (lsel < 32) {
      const int nl = int(in.below(int64_t(lim.max_literal) + 1));
      for (int j = 0; j < nl; ++j) r.literal.push_back(in.u32());
    }
    c.rows.push_back(std::move(r));
  }
  c.poison = static_cast<Poison>(in.u8() % kPoisonCount);
  Knobs& k = c.knobs;
  const uint8_t v = in.u8();
  k.validate = !(lim.allow_out_of_contract && (v & 1));
  const uint8_t fsel = in.u8();
  // forcible paths only (2..7); ragged mostly single-CTA ones (5..7 there expect a host error)
  k.force_path = fsel < 128 ? 0 : 2 + fsel % 6;
  if (K == KernelId::TopkV2Ragged && k.force_path >= 5 && fsel < 250) k.force_path = 2 + fsel % 3;
  const uint8_t tsel = in.u8();
  k.tie_capacity = tsel < 160 ? -1 : int32_t(in.below(2049));
  if (K == KernelId::TopkV2Plan || K == KernelId::TopkV2Paged) {
    const uint8_t st = in.u8();
    k.static_threshold = st < 128 ? -1 : st < 192 ? 0 : int32_t(in.below(int64_t(L) + 1));
  }
  if (K == KernelId::Amax8) {
    const uint8_t at = in.u8();
    k.amax_topk = at < 160 ? 0 : int32_t(in.below(int64_t(nb) + 2));
  }
  c.schedule.policy = in.u8() % kSchedulePolicyCount;
  c.schedule.seed = in.u64();
  return c;
}

}  // namespace dsv4::harness
