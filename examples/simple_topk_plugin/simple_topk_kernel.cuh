// simple_topk_kernel.cuh -- the device side of the simple example plugin.
//
// One CUDA block per row, exact radix select on a 32-bit order-preserving key:
//   1. count the non-NaN scores n_v of the row;
//   2. if n_v > K: four 8-bit histogram passes find the exact K-th largest key `thr` and how many
//      elements equal to it are still needed (`need_eq`);
//   3. one collect pass writes every position with key > thr, then the first `need_eq` positions
//      with key == thr (arrival order), then -1 in the slots that stay empty (only when n_v < K).
// The row is re-read from global memory on every pass: slow, but obviously correct. No shared
// staging, no coarse bins, no cluster paths: it is a reference point and a template, not a
// competitor.
#pragma once

#include <stdint.h>

#ifndef PLANTED_BUG
#define PLANTED_BUG 0
#endif

namespace simple_topk {

constexpr int kThreads = 512;

// Key 0 means "absent". Every non-NaN float gets a key >= 1 that is increasing in IEEE order
// (-inf = 0x007FFFFF smallest, -0 just below +0, +inf = 0xFF800000 largest); 0 is the key of the
// NaN bit pattern 0xFFFFFFFF only, so no real value collides with "absent".
__device__ __forceinline__ uint32_t order_key(float x) {
  const uint32_t u = __float_as_uint(x);
  if (x != x) {
#if PLANTED_BUG
    // PLANTED BUG (bug class 1, spec/bug_classes.md): a NaN is treated like a -FLT_MAX padding
    // value. -FLT_MAX ranks above every legal -inf, so in a row with fewer than K finite scores
    // the NaN positions are selected ahead of -inf positions, and a row with fewer than K
    // non-NaN scores emits NaN positions instead of -1.
    return ~0xFF7FFFFFu;  // the key of -FLT_MAX
#else
    return 0u;            // NaN is absent (topk_v2.md §3.2)
#endif
  }
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

// scores: row b starts at scores + b * row_stride (only dereferenced for rows with n > k, which
// implies a non-empty tensor). out: row b at out + b * out_stride, k slots.
__global__ void __launch_bounds__(kThreads)
topk_rows_kernel(const float* __restrict__ scores, int64_t row_stride, int64_t width,
                 const int32_t* __restrict__ seq_lens, int32_t* __restrict__ out,
                 int64_t out_stride, int32_t k) {
  __shared__ uint32_t hist[256];
  __shared__ uint32_t s_count, s_prefix, s_need, s_gt, s_eq;

  const int64_t b = blockIdx.x;
  const int tid = threadIdx.x;
  int32_t* orow = out + b * out_stride;
  const int32_t n = seq_lens[b];

  // Device guard (README §4 codes 1 and 2): an out-of-contract length gives the empty row and
  // reads no score. This plugin has no status block, so the code itself is not recorded.
  if (n < 0 || static_cast<int64_t>(n) > width) {
    for (int t = tid; t < k; t += kThreads) orow[t] = -1;
    return;
  }
  // Trivial row (topk_v2.md §3.1): positions 0..n-1 in order, then -1. Scores are not read.
  if (n <= k) {
    for (int t = tid; t < k; t += kThreads) orow[t] = t < n ? t : -1;
    return;
  }

  const float* row = scores + b * row_stride;

  // Pass 1: n_v = number of present (non-NaN) scores.
  if (tid == 0) s_count = 0;
  __syncthreads();
  uint32_t mine = 0;
  for (int64_t i = tid; i < n; i += kThreads) mine += order_key(row[i]) != 0u;
  atomicAdd(&s_count, mine);
  __syncthreads();
  const uint32_t n_v = s_count;

  uint32_t thr = 0;     // select every key > thr ...
  uint32_t need_eq = 0; // ... plus this many keys == thr
  if (n_v > static_cast<uint32_t>(k)) {
    uint32_t prefix = 0, mask = 0, remaining = static_cast<uint32_t>(k);
    for (int shift = 24; shift >= 0; shift -= 8) {
      for (int d = tid; d < 256; d += kThreads) hist[d] = 0;
      __syncthreads();
      for (int64_t i = tid; i < n; i += kThreads) {
        const uint32_t key = order_key(row[i]);
        if (key != 0u && (key & mask) == prefix) atomicAdd(&hist[(key >> shift) & 255u], 1u);
      }
      __syncthreads();
      if (tid == 0) {
        // Walk the digits from the largest down until the remaining quota is reached.
        uint32_t above = 0;
        for (int d = 255; d >= 0; --d) {
          if (above + hist[d] >= remaining) {
            s_prefix = prefix | (static_cast<uint32_t>(d) << shift);
            s_need = remaining - above;
            break;
          }
          above += hist[d];
        }
      }
      __syncthreads();
      prefix = s_prefix;
      remaining = s_need;
      mask |= 255u << shift;
    }
    thr = prefix;
    need_eq = remaining;
  }
  // Keys > thr: exactly k - need_eq of them when n_v > k, else all n_v present ones (thr = 0).
  const uint32_t n_gt = n_v > static_cast<uint32_t>(k) ? static_cast<uint32_t>(k) - need_eq : n_v;

  if (tid == 0) { s_gt = 0; s_eq = 0; }
  __syncthreads();
  for (int64_t i = tid; i < n; i += kThreads) {
    const uint32_t key = order_key(row[i]);
    if (key > thr) {
      orow[atomicAdd(&s_gt, 1u)] = static_cast<int32_t>(i);
    } else if (need_eq != 0u && key == thr) {
      const uint32_t e = atomicAdd(&s_eq, 1u);
      if (e < need_eq) orow[n_gt + e] = static_cast<int32_t>(i);
    }
  }
  // -1 suffix: only when fewer than k present scores exist.
  for (uint32_t t = n_gt + need_eq + tid; t < static_cast<uint32_t>(k); t += kThreads) orow[t] = -1;
}

}  // namespace simple_topk
