// kernels/block_amax/block_amax_kernel.cuh -- amax8_varlen (spec block_amax.md): one fp32 key per
// block of 8 scores = their maxNum; the newest block's key is +inf and that block is never read.
// Grid (B, ceil(Kk / 1024) clamped), 512 threads; thread tx of CTA y handles keys
// 1024*y + tx and 1024*y + tx + 512 (coalesced), striding by the grid when Kk exceeds it.
#pragma once
#include "kernels/common/faults.h"
#include "kernels/common/status.cuh"
#include "simt/portable.h"

namespace dsv4::ours::amax8 {

constexpr int kThreads = 512;
constexpr int kKeysPerCta = 1024;

struct Params {
  const float* scores;  // [B, L], row stride % 8 == 0, base 32-byte aligned
  long long stride;
  long long L;
  const int* seq_lens;  // [B]
  float* out;           // [B, Kk], row stride out_stride
  long long out_stride;
  long long Kk;
  int topk;
  StatusBlock* status;
};

struct alignas(16) F4 {
  float v[4];
};

// IEEE maxNum (the fmaxf chain): a NaN operand is ignored.
SIMT_HD float max_num(float a, float b) {
#if DSV4_FAULT_AMAX_NAN_PROPAGATES
  if (a != a || b != b) return a + b;  // planted defect: NaN-propagating max
  return a > b ? a : b;
#else
  return (b > a || a != a) ? b : a;
#endif
}

SIMT_DEVICE float block_max(const float* blk) {
  const F4 x = reinterpret_cast<const F4*>(blk)[0];
  const F4 y = reinterpret_cast<const F4*>(blk)[1];
  const float a = max_num(max_num(x.v[0], x.v[1]), max_num(x.v[2], x.v[3]));
  const float c = max_num(max_num(y.v[0], y.v[1]), max_num(y.v[2], y.v[3]));
  return max_num(a, c);
}

SIMT_KERNEL void SIMT_LAUNCH_BOUNDS(kThreads, 4) amax8_varlen_kernel(Params p) {
  SIMT_PDL_WAIT();  // lengths may come from the previous kernel: nothing global before this
  const int b = blockIdx.x;
  const int n = p.seq_lens[b];
  const long long nk = n >= 0 ? (static_cast<long long>(n) + 7) / 8 : 0;
  int code = 0;
  if (n < 0) code = DSV4_CODE_NEGATIVE_LENGTH;
  else if (n > p.L) code = DSV4_CODE_LENGTH_EXCEEDS_WIDTH;
  if (code == 0 && nk <= p.topk) {  // skipped row (includes n == 0): nothing written
    SIMT_PDL_TRIGGER();
    return;
  }
  if (code == 0 && nk > p.Kk) code = DSV4_CODE_LENGTH_EXCEEDS_CAPACITY;
  if (code != 0) {
    if (blockIdx.y == 0 && threadIdx.x == 0)
      raise_status(p.status, code, DSV4_KERNEL_AMAX8, b, n);
    SIMT_PDL_TRIGGER();
    return;
  }
#if DSV4_FAULT_AMAX_WRITE_PAST_NK
  // Planted defect (class 5): coverage not clamped to nk, one key written past the row's blocks.
  const long long limit = nk + 1 < p.Kk ? nk + 1 : p.Kk;
#else
  const long long limit = nk;  // <= Kk here
#endif
  const float* row = p.scores + static_cast<long long>(b) * p.stride;
  float* orow = p.out + static_cast<long long>(b) * p.out_stride;
  const float inf = __uint_as_float(0x7F800000u);
  const long long step = static_cast<long long>(gridDim.y) * kKeysPerCta;
  for (long long first = static_cast<long long>(blockIdx.y) * kKeysPerCta; first < limit;
       first += step) {
    const long long i0 = first + threadIdx.x;
    const long long i1 = i0 + kThreads;
    // Issue both loads before either max (two keys in flight per thread).
    float k0 = inf, k1 = inf;
    const bool r0 = i0 < nk - 1, r1 = i1 < nk - 1;
    if (r0) k0 = block_max(row + 8 * i0);
    if (r1) k1 = block_max(row + 8 * i1);
    if (i0 < limit) orow[i0] = k0;
    if (i1 < limit) orow[i1] = k1;
  }
  SIMT_PDL_TRIGGER();
}

}  // namespace dsv4::ours::amax8
