// oracle/candidates.cpp -- candidate block table (candidate_block_table.md §3, §5, §8): identity path,
// sort path (distinct valid ids ascending, INT32_MAX padding), pool-slot mapping, codes 1/3/5/6/17.
#include <algorithm>
#include <limits>
#include <string>

#include "oracle/detail.hpp"
#include "oracle/oracle.hpp"

namespace dsv4::oracle {
namespace {

constexpr int32_t kPad = std::numeric_limits<int32_t>::max();
constexpr int32_t kFail = std::numeric_limits<int32_t>::min();

int32_t log2_exact(int64_t v) {
  int32_t b = 0;
  while ((int64_t{1} << b) < v) ++b;
  return b;
}

}  // namespace

void candidates_expected(const CandidateRow& row, int64_t k, int32_t page_size, int64_t capacity,
                         std::vector<int32_t>* blocks, std::vector<int32_t>* pages, uint32_t* codes) {
  const char* entry = "candidates_expected";
  if (k <= 0) detail::bad_input(entry, "k = " + std::to_string(k) + " must be > 0");
  if (page_size < 8 || (page_size & (page_size - 1)) != 0)
    detail::bad_input(entry, "page_size = " + std::to_string(page_size) + " must be a power of two >= 8");
  if (capacity <= 0) detail::bad_input(entry, "capacity = " + std::to_string(capacity) + " must be > 0");
  if (blocks == nullptr || pages == nullptr) detail::bad_input(entry, "blocks and pages are required");
  if (row.table == nullptr && row.table_width > 0) detail::bad_input(entry, "table is null but table_width > 0");
  uint32_t c = 0;
  blocks->assign(static_cast<size_t>(k), kPad);
  pages->assign(static_cast<size_t>(k), kPad);
  // map(id) = (t << page_bits) | (id & bpp_mask), t = table[id >> page_bits], evaluated in 64-bit.
  Transform map;
  map.kind = Transform::PageTable;
  map.table = row.table;
  map.table_width = row.table_width;
  map.page_bits = log2_exact(page_size / 8);
  auto emit = [&](int64_t slot, int64_t id) {
    (*blocks)[slot] = static_cast<int32_t>(id);
    int64_t p = map.apply(id);
    // Entry range of candidate_block_table.md §2: t <= INT32_MAX >> log2(page_size), so that the
    // consumer's pool slot 8 * map(id) + 7 fits int32 (tighter than the generic transform's).
    if (p != kFail && (p >> map.page_bits) > (kPad >> log2_exact(page_size))) p = kFail;
    (*pages)[slot] = static_cast<int32_t>(p);
    if (p == kFail) c |= 1u << 5;
  };
  if (row.row_error || row.n < 0) {
    if (row.n < 0) c |= 1u << 1;
  } else {
    const int64_t nb = (row.n + 7) / 8;
    if (nb <= k) {  // identity path: the input row is not read
      for (int64_t t = 0; t < nb; ++t) emit(t, t);
    } else if (nb > capacity) {
      c |= 1u << 3;
    } else {
      if (row.blocks_in == nullptr) detail::bad_input(entry, "blocks_in is null on the sort path");
      std::vector<int64_t> ids;
      for (int64_t t = 0; t < k; ++t) {
        const int64_t id = row.blocks_in[t];
        if (id >= 0 && id < nb) ids.push_back(id);
        else if (id != -1) c |= 1u << 6;
      }
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      if (static_cast<int64_t>(ids.size()) < std::min(k, nb)) c |= 1u << 17;
      for (size_t r = 0; r < ids.size(); ++r) emit(static_cast<int64_t>(r), ids[r]);
    }
  }
  if (codes) *codes = c;
}

CheckResult check_candidates(const CandidateCheckArgs& args, uint32_t* codes_seen) {
  CheckResult res;
  uint32_t all = 0;
  for (size_t ri = 0; ri < args.rows.size(); ++ri) {
    const CandidateRow& r = args.rows[ri];
    const int64_t row = static_cast<int64_t>(ri);
    if (r.got_blocks == nullptr || r.got_pages == nullptr)
      detail::bad_input("check_candidates: row " + std::to_string(row), "got_blocks and got_pages are required");
    std::vector<int32_t> blocks, pages;
    uint32_t codes = 0;
    candidates_expected(r, args.k, args.page_size, args.capacity, &blocks, &pages, &codes);
    all |= codes;
    ++res.rows_checked;
    for (int64_t s = 0; s < args.k; ++s) {
      if (r.got_blocks[s] != blocks[s])
        res.add({row, s, "block id", detail::fmt_i32(r.got_blocks[s]),
                 detail::fmt_i32(blocks[s]) + (blocks[s] == kPad ? " (padding)" : " (ascending distinct valid ids)")});
      if (r.got_pages[s] != pages[s])
        res.add({row, s, "page (pool slot / 8)", detail::fmt_i32(r.got_pages[s]),
                 detail::fmt_i32(pages[s]) + (blocks[s] != kPad ? " = map(" + std::to_string(blocks[s]) + ")" : "")});
    }
  }
  if (codes_seen) *codes_seen = all;
  return res;
}

}  // namespace dsv4::oracle
