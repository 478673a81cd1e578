// kernels/candidate_block_table/block_word_scan.cuh -- the bitmap rank scan of the candidate
// block table (spec candidate_block_table.md §4 step 3), kept separate so that it is unit-tested on
// its own (§6: all-ones, single-bit and random words; tests/kernels/indexer/block_scan_test.cpp).
//
// Every thread of the CTA holds WPT consecutive bitmap words (thread t owns words
// [t*WPT, t*WPT + WPT)). block_word_ranks gives each word the number of set bits in all words
// before it (exclusive prefix over ascending words) and returns the total. Requires blockDim.x a
// multiple of 32, at most 1024, every thread of the CTA calling it (it contains barriers), and
// `warp_sums` a shared array of 32 words that nothing else uses during the call.
#pragma once
#include "simt/portable.h"

namespace dsv4::ours::cand {

// Inclusive prefix sum over the 32 lanes of a full warp.
SIMT_DEVICE unsigned warp_inclusive_scan(unsigned v) {
  const int lane = threadIdx.x & 31;
  for (int off = 1; off < 32; off <<= 1) {
    const unsigned t = __shfl_up_sync(0xFFFFFFFFu, v, off);
    if (lane >= off) v += t;
  }
  return v;
}

template <int WPT>
SIMT_DEVICE unsigned block_word_ranks(const unsigned (&words)[WPT], unsigned (&rank)[WPT],
                                      unsigned* warp_sums) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int nwarps = static_cast<int>(blockDim.x) >> 5;
  unsigned own = 0;
  for (int i = 0; i < WPT; ++i) own += static_cast<unsigned>(__popc(words[i]));
  const unsigned incl = warp_inclusive_scan(own);
  if (lane == 31) warp_sums[warp] = incl;
  __syncthreads();
  // Every warp scans the (at most 32) warp sums itself: no second barrier needed.
  const unsigned ws = lane < nwarps ? warp_sums[lane] : 0u;
  const unsigned ws_incl = warp_inclusive_scan(ws);
  const unsigned total = __shfl_sync(0xFFFFFFFFu, ws_incl, 31);
  const unsigned warp_before = __shfl_sync(0xFFFFFFFFu, ws_incl - ws, warp);
  unsigned r = warp_before + incl - own;
  for (int i = 0; i < WPT; ++i) {
    rank[i] = r;
    r += static_cast<unsigned>(__popc(words[i]));
  }
  return total;
}

}  // namespace dsv4::ours::cand
