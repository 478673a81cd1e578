// harness/materialize.cpp -- Case -> host tensors (layouts, poison, tables). See materialize.hpp.
#include "materialize.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "fpbits.hpp"
#include "rng.hpp"

namespace dsv4::harness {
namespace {

void fail(const std::string& why) { throw std::invalid_argument("materialize: " + why); }

HostBuf make_buf(int32_t dtype, int32_t ndim, int64_t rows, int64_t cols, int64_t stride,
                 int64_t offset) {
  HostBuf b;
  b.dtype = dtype;
  b.ndim = ndim;
  b.rows = rows;
  b.cols = cols;
  b.stride = stride;
  b.offset = offset;
  b.present = true;
  const int64_t used = rows > 0 ? (rows - 1) * stride + cols : 0;  // tight: ends at the last cell
  const int64_t total = offset + std::max<int64_t>(used, 0);
  if (total > kMaxElements) fail("buffer of " + std::to_string(total) + " elements exceeds the limit");
  b.bytes.assign(size_t(total) * b.elem_size(), 0);
  return b;
}

HostBuf make_vec(const std::vector<int32_t>& v) {
  HostBuf b = make_buf(DSV4_INT32, 1, 1, int64_t(v.size()), int64_t(v.size()), 0);
  if (!v.empty()) std::memcpy(b.bytes.data(), v.data(), v.size() * 4);
  return b;
}

uint32_t poison_bits(Poison p, int64_t cell) {
  switch (p) {
    case Poison::PosInf: return fp::kPosInf;
    case Poison::Huge: return fp::kHuge1e30;
    case Poison::NaN: return fp::kQNaN;
    case Poison::Mixed: {
      static const uint32_t kCycle[4] = {fp::kPosInf, fp::kHuge1e30, fp::kQNaN, 0x477FF000u};
      return kCycle[uint64_t(cell) % 4];
    }
  }
  return fp::kPosInf;
}

bool uses_scores(KernelId k) { return k != KernelId::CandidateTable && k != KernelId::TopkV2Plan; }

// Fill every cell of a score buffer with poison, then write each row's window values.
void fill_scores(const Case& c, Materialized& m, HostBuf& buf, bool bf16, uint64_t seed_salt) {
  const int64_t cells = buf.numel_alloc();
  for (int64_t i = 0; i < cells; ++i) {
    const uint32_t p = poison_bits(c.poison, i);
    if (bf16) reinterpret_cast<uint16_t*>(buf.bytes.data())[i] = fp::f32_to_bf16_rne(p);
    else reinterpret_cast<uint32_t*>(buf.bytes.data())[i] = p;
  }
  for (int64_t b = 0; b < m.batch; ++b) {
    const int64_t len = m.win_len[size_t(b)], start = m.win_start[size_t(b)];
    const uint64_t seed = seed_salt ? mix64(row_seed(c, b) ^ seed_salt) : row_seed(c, b);
    const std::vector<uint32_t> vals = make_row_values(c, b, len, seed);
    for (int64_t p = 0; p < len; ++p) {
      if (bf16) buf.at<uint16_t>(b, start + p) = fp::f32_to_bf16_rne(vals[size_t(p)]);
      else buf.at<uint32_t>(b, start + p) = vals[size_t(p)];
    }
  }
}

int64_t ceil_div(int64_t a, int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }

void fill_table(const Case& c, Materialized& m, int64_t needed, int32_t entry_bits) {
  const int64_t B = m.batch;
  const int64_t W = std::max<int64_t>(0, needed + c.shape.width_delta);
  const bool stride0 = c.table_kind == TableKind::SharedStride0;
  if (W > 0 && B > 0 && W > kMaxElements / (stride0 ? 1 : B)) fail("page table too large");
  m.page_table = make_buf(DSV4_INT32, 2, B, W, stride0 ? 0 : W, 0);
  if (stride0 && B > 0) m.page_table.bytes.resize(size_t(W) * 4);
  // largest legal entry: INT32_MAX >> log2(page_size) (candidate table: of the index page size,
  // so the pool slot 8 * map(id) + 7 fits int32; candidate_block_table.md §2)
  const int64_t max_entry = int64_t(INT32_MAX) >> std::clamp(entry_bits, 0, 30);
  Rng r(mix64(c.table_seed ^ 0x7AB1Eull));
  std::vector<int32_t> shared(static_cast<size_t>(W));
  std::iota(shared.begin(), shared.end(), 0);
  for (int64_t i = W - 1; i > 0; --i) std::swap(shared[size_t(i)], shared[r.below(uint64_t(i + 1))]);
  const int64_t stored_rows = stride0 ? std::min<int64_t>(B, 1) : B;
  for (int64_t b = 0; b < stored_rows; ++b) {
    std::vector<int32_t> row(static_cast<size_t>(W));
    switch (c.table_kind) {
      case TableKind::Identity: std::iota(row.begin(), row.end(), 0); break;
      case TableKind::SharedPermutation: case TableKind::SharedStride0: row = shared; break;
      case TableKind::PerRowPermutation:
        std::iota(row.begin(), row.end(), 0);
        for (int64_t i = W - 1; i > 0; --i) std::swap(row[size_t(i)], row[r.below(uint64_t(i + 1))]);
        break;
      case TableKind::Random:
        for (auto& x : row) x = int32_t(r.below(uint64_t(max_entry) + 1));
        break;
    }
    for (int64_t j = 0; j < W; ++j) m.page_table.at<int32_t>(b, j) = row[size_t(j)];
  }
  for (const TableInjection& ti : c.table_injections) {
    int32_t val = 0;
    switch (ti.entry) {
      case TableEntry::MaxForBits: val = int32_t(max_entry); break;
      case TableEntry::OneAbove: val = int32_t(std::min<int64_t>(max_entry + 1, INT32_MAX)); break;
      case TableEntry::MinusOne: val = -1; break;
      case TableEntry::Int32Max: val = INT32_MAX; break;
      case TableEntry::Int32Min: val = INT32_MIN; break;
      case TableEntry::Literal: val = ti.value; break;
    }
    const int64_t col = ti.col >= 0 ? ti.col : W + ti.col;
    if (col < 0 || col >= W) continue;
    for (int64_t b = 0; b < stored_rows; ++b)
      if (ti.row < 0 || ti.row == b) m.page_table.at<int32_t>(b, col) = val;
  }
}

}  // namespace

Materialized materialize(const Case& c) {
  Materialized m;
  const Shape& s = c.shape;
  if (s.batch < 0 || s.batch > kMaxBatch) fail("batch " + std::to_string(s.batch) + " outside [0, 65536]");
  if (s.width < 0) fail("width " + std::to_string(s.width) + " is negative");
  if (s.base_offset < 0 || s.base_offset > (1 << 20)) fail("base_offset outside [0, 2^20]");
  if (s.stride_pad < 0 || s.stride_pad > (1 << 20)) fail("stride_pad outside [0, 2^20]");
  if (s.out_pad > (1 << 16)) fail("out_pad above 65536");
  if (s.k > (1 << 20) || s.k2 > (1 << 20)) fail("k above 2^20");
  const int64_t B = s.batch, L = s.width, S = row_stride(c);
  if (B > 0 && S > 0 && B > kMaxElements / S) fail("B x S exceeds the element limit");
  m.batch = B;
  m.k = s.k;
  m.page_bits = page_bits_of(s.page_size);

  std::vector<int32_t> lens(static_cast<size_t>(B));
  for (int64_t b = 0; b < B; ++b) lens[size_t(b)] = seq_len_of(c, b);
  m.seq_lens = make_vec(lens);

  // Legal read windows.
  m.win_start.assign(size_t(B), 0);
  m.win_len.assign(size_t(B), 0);
  for (int64_t b = 0; b < B; ++b) {
    const int64_t n = lens[size_t(b)];
    int64_t lo = 0, hi = std::clamp<int64_t>(n, 0, L);
    if (c.kernel == KernelId::TopkV2Ragged) {
      const int64_t rs = row_start_of(c, b);
      lo = std::clamp<int64_t>(rs, 0, L);
      hi = std::clamp<int64_t>(rs + std::max<int64_t>(n, 0), lo, L);
    }
    m.win_start[size_t(b)] = lo;
    m.win_len[size_t(b)] = hi - lo;
  }

  if (uses_scores(c.kernel)) {
    const bool bf16 = c.kernel == KernelId::Bf16Small;
    m.scores = make_buf(bf16 ? DSV4_BFLOAT16 : DSV4_FLOAT32, 2, B, L, S, s.base_offset);
    fill_scores(c, m, m.scores, bf16, 0);
  }
  if (c.kernel == KernelId::Pipeline) {
    m.source_bf16 = make_buf(DSV4_BFLOAT16, 2, B, L, S, 0);
    fill_scores(c, m, m.source_bf16, true, 0xB16B16ull);
  }

  if (c.kernel == KernelId::TopkV2Ragged) {
    std::vector<int32_t> rs(static_cast<size_t>(B)), off(static_cast<size_t>(B));
    for (int64_t b = 0; b < B; ++b) { rs[size_t(b)] = row_start_of(c, b); off[size_t(b)] = out_offset_of(c, b); }
    if (c.has_row_starts) m.row_starts = make_vec(rs);
    m.out_offsets = make_vec(off);
  }

  // Page tables.
  const int64_t ps = std::max<int64_t>(s.page_size, 1);
  const bool paged_table = c.kernel == KernelId::TopkV2Paged && c.mode != PagedMode::Indices;
  if (paged_table || c.kernel == KernelId::Bf16Small) {
    fill_table(c, m, ceil_div(L, ps), m.page_bits);
  } else if (c.kernel == KernelId::CandidateTable || c.kernel == KernelId::Pipeline) {
    const int64_t bpp = std::max<int64_t>(ps / 8, 1);
    m.page_bits = page_bits_of(bpp);
    fill_table(c, m, ceil_div(ceil_div(L, 8), bpp), page_bits_of(ps));
  }

  // Outputs and the candidate-table input.
  if (c.kernel == KernelId::Amax8) {
    m.k = ((ceil_div(L, 8) + 3) / 4) * 4 + s.width_delta;
  }
  const int64_t kk = std::max<int64_t>(m.k, 0);
  m.out_stride = kk + std::max<int32_t>(s.out_pad, 0);
  if (B > 0 && m.out_stride > 0 && B > kMaxElements / m.out_stride) fail("output too large");
  if (c.kernel == KernelId::CandidateTable) {
    m.blocks_in = make_buf(DSV4_INT32, 2, B, kk, m.out_stride, 0);
    for (int64_t b = 0; b < B; ++b) {
      const std::vector<uint32_t> ids = make_row_values(c, b, kk, row_seed(c, b));
      for (int64_t j = 0; j < kk; ++j) m.blocks_in.at<uint32_t>(b, j) = ids[size_t(j)];
    }
  }
  return m;
}

uint64_t hash_materialized(const Materialized& m) {
  uint64_t h = 0xCBF29CE484222325ull;
  auto eat = [&](const void* p, size_t n) {
    const auto* q = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < n; ++i) { h ^= q[i]; h *= 0x100000001B3ull; }
  };
  auto eat64 = [&](int64_t v) { eat(&v, 8); };
  for (const HostBuf* b : {&m.scores, &m.seq_lens, &m.row_starts, &m.out_offsets, &m.page_table,
                           &m.blocks_in, &m.source_bf16}) {
    eat64(b->present);
    eat64(b->dtype); eat64(b->rows); eat64(b->cols); eat64(b->stride); eat64(b->offset);
    eat64(int64_t(b->bytes.size()));
    if (!b->bytes.empty()) eat(b->bytes.data(), b->bytes.size());
  }
  eat64(m.batch); eat64(m.k); eat64(m.out_stride); eat64(m.page_bits);
  for (int64_t v : m.win_start) eat64(v);
  for (int64_t v : m.win_len) eat64(v);
  return h;
}

}  // namespace dsv4::harness
