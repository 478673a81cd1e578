// kernels/topk_bf16_small/topk_bf16_small_keys.cuh -- constants, build-time switches, kernel
// parameters and the per-key helpers of the bf16 small-row top-k (spec topk_bf16_small.md): the
// distorted key D, the range-checked page transform f(i) and the per-warp pivot search. The kernel
// is in topk_bf16_small_kernel.cuh.
//
// Keys live in registers as D(x) (sign-ordered 16-bit key, spec §4.1) with every NaN lane and
// every padding lane canonicalized to 0 (the padding code 0xFFFF has D = 0): D == 0 means
// "absent": never selected (OUR NaN policy, spec §3.2; the histograms count it in bin 0, the
// census leaves it out). Selection compares D integers, so no -0 special case exists (spec §4.4).
#pragma once
#include "kernels/common/faults.h"
#include "kernels/common/half_pair_keys.cuh"
#include "kernels/common/status.cuh"
#include "simt/portable.h"

#ifndef DSV4_IDX_UNROLL
#if defined(__CUDACC__) || defined(__clang__)
#define DSV4_IDX_UNROLL _Pragma("unroll")
#else
#define DSV4_IDX_UNROLL _Pragma("GCC unroll 32")
#endif
#endif

namespace dsv4::ours::bf16 {

constexpr int kThreads = DSV4_BF16_BLOCK_THREADS;
// Vectors of 8 per thread (4: the spec's capacity threads x 32). Build-time tunable for GPU
// experiments (1024 threads x 2 keeps the 16384 capacity with half the lanes per thread).
#ifndef DSV4_BF16_VECS_PER_THREAD
#define DSV4_BF16_VECS_PER_THREAD 4
#endif
constexpr int kVecsPerThread = DSV4_BF16_VECS_PER_THREAD;
static_assert(kVecsPerThread >= 1 && kVecsPerThread <= 4, "1..4 vectors per thread (32-bit lane masks)");
constexpr int kVecLanes = 8;
constexpr int kLanesPerThread = kVecsPerThread * kVecLanes;  // 32
constexpr int kRowCapacity = kThreads * kLanesPerThread;     // 16384 at 512 threads
constexpr int kMaxK = 2048;
// CTAs per SM the register allocation must allow: two instantiations, 3 (upstream's: 40 registers
// at 512 threads) and 4 (32 registers), chosen per launch by ctas_per_sm_for below.
// Build-time tunable for GPU experiments (-DDSV4_BF16_MIN_CTAS_PER_SM=4: both at 4).
#ifndef DSV4_BF16_MIN_CTAS_PER_SM
#define DSV4_BF16_MIN_CTAS_PER_SM 3
#endif
constexpr int kMinCtasPerSm = DSV4_BF16_MIN_CTAS_PER_SM;
constexpr int kWideCtasPerSm = 4;
// The instantiation of a launch of B rows on `sms` SMs (`forced` 3 or 4: that one; dsv4_config
// bf16_ctas_per_sm). 4 only where it makes the launch one wave that is two at 3 a SM,
// 3 * sms < B <= 4 * sms (H200, 132 SMs: B = 397..528); elsewhere 3, whose kernel is faster per
// row (H200, docs/performance.md, twenty-fourth pass: B = 512 k = 512 13.9 us at 4 against 14.8
// at 3, but B = 1 7.1 against 6.9 and, at 6 rows a SM, B = 792 k = 2048 25.2 against 22.7).
// The batch rule is on by default since the twenty-fifth pass (DSV4_BF16_WIDE_AUTO 0: always 3
// unless forced, for A/B runs).
#ifndef DSV4_BF16_WIDE_AUTO
#define DSV4_BF16_WIDE_AUTO 1
#endif
inline int ctas_per_sm_for(long long B, int sms, int forced, bool by_batch = DSV4_BF16_WIDE_AUTO) {
  if (forced == kMinCtasPerSm || forced == kWideCtasPerSm) return forced;
  return by_batch && sms > 0 && B > 3LL * sms && B <= 4LL * sms ? kWideCtasPerSm : kMinCtasPerSm;
}
// Page-table prefetch into shared memory for rows needing at most kTableCache table columns
// (all production rows: 16384 / 8 = 2048). Build-time switch for GPU A/B runs.
#ifndef DSV4_BF16_TABLE_PREFETCH
#define DSV4_BF16_TABLE_PREFETCH 1
#endif
constexpr int kTableCache = 2048;
// Timing-only phase cut (scripts/gpu/bf16_ab.sh; never in a test build: rows are left unwritten):
// 1 = return after the loads, 2 = after pass 1 and its pivot, 3 = after pass 2, 4 = after staging.
#ifndef DSV4_BF16_ABLATE
#define DSV4_BF16_ABLATE 0
#endif
// The twenty-third performance pass (docs/performance.md; each 1 by default, 0 = the earlier code
// for A/B runs): HIST_SKEW stores pass 1's bins >= 128 at bin ^ 16, so that a positive and a
// negative magnitude bin 128 apart (D order: 0x3F / 0xBF, 0x40 / 0xC0 for randn data) fall into
// different shared-memory banks; PRMT_KEYS makes a word's keys with a sign-replicating byte
// permute; PASS2_WORDS runs pass 2 a word at once through a 16x2 minimum; SWAR_CENSUS compares a
// word's two keys at once with borrow-free 16-bit subtractions and packs the result bits with
// byte permutes (lane bit layout census_bit below).
#ifndef DSV4_BF16_HIST_SKEW
#define DSV4_BF16_HIST_SKEW 1
#endif
#ifndef DSV4_BF16_PRMT_KEYS
#define DSV4_BF16_PRMT_KEYS 1
#endif
#ifndef DSV4_BF16_PASS2_WORDS
#define DSV4_BF16_PASS2_WORDS 1
#endif
#ifndef DSV4_BF16_SWAR_CENSUS
#define DSV4_BF16_SWAR_CENSUS 1
#endif
// SHARED_PIVOT (1 by default, the same pass): the pivot searches by warp 0 alone, published
// through shared memory and a barrier, instead of by every warp redundantly without one.
#ifndef DSV4_BF16_SHARED_PIVOT
#define DSV4_BF16_SHARED_PIVOT 1
#endif
// The twenty-fourth pass (1 by default since the twenty-fifth, after the GPU property suites and
// the sanitizer ran on them; 0 = the earlier code, for A/B runs): CENSUS_PAIRS compares and packs the census a pair of words at a time (no 2 x 16 result
// words live: no spills at 40 registers); LATE_NAN drops the loads' per-word NaN probe: NaN keys
// are found after pass 1 from its bins 0x00 and 0xFF and cleared only then (the kernel's
// DSV4_BF16_LATE_NAN block), and the histograms are cleared without a loop.
#ifndef DSV4_BF16_CENSUS_PAIRS
#define DSV4_BF16_CENSUS_PAIRS 1
#endif
#ifndef DSV4_BF16_LATE_NAN
#define DSV4_BF16_LATE_NAN 1
#endif
constexpr int kTableSlots = (kTableCache + kThreads - 1) / kThreads;  // per thread
static_assert(kThreads % 32 == 0 && kThreads >= 32 && kThreads <= 1024, "bad bf16 block size");

struct Params {
  const uint16_t* scores;  // bf16 bits [B, L], row stride score_stride (elements)
  long long score_stride;
  long long L;
  const int* seq_lens;     // [B]
  const int* table;        // [B, W], row stride table_stride (may be 0)
  long long table_stride;
  long long W;
  int* out;                // [B, k], row stride out_stride
  long long out_stride;
  int k;
  int page_bits;
  StatusBlock* status;
};

struct alignas(16) Vec16 {
  uint32_t w[4];
};

// Keys of the two bf16 halves of a 32-bit word at once (kernels/common/half_pair_keys.cuh):
// word_keys = D of spec §4.1, the sign-dependent XOR (0xFFFF or 0x8000 per half; below, by PRMT,
// or sign_order_halves with PRMT_KEYS=0);
// clear_nan_keys = 0 (absent) for the halves that are NaN, in D order the keys >= 0xFF81 and
// <= 0x007E (the one NaN rule; identity under the planted NAN_AS_VALUE);
// pair_nan_probe & 0x80008000 = the NaN halves of the raw word (magnitude bits above 0x7F80
// carry into bit 15 when 0x7F is added): OR-accumulated, it says whether clearing is needed.
SIMT_HD uint32_t pair_nan_probe(uint32_t w) { return nan_halves_carry<0x7Fu>(w); }
// 0xFFFF in each half whose sign bit is set: one PRMT whose selector nibbles 0x9 / 0xB replicate
// the sign of bytes 1 / 3 (SIMT_PRMT); D = w ^ (that | 0x8000 per half).
SIMT_HD uint32_t sign_mask_halves(uint32_t w) { return SIMT_PRMT(w, 0u, 0xBB99u); }
SIMT_HD uint32_t word_keys(uint32_t w) {
  return DSV4_BF16_PRMT_KEYS ? w ^ (sign_mask_halves(w) | 0x80008000u) : sign_order_halves(w);
}
// Unsigned minimum of each 16-bit half (__vminu2; sm_90: one min.u16x2).
SIMT_DEVICE uint32_t min_u16x2(uint32_t a, uint32_t b) { return __vminu2(a, b); }
// Bit 15 of each half = [that half of w >= t] (t: a 16-bit threshold, the same for every word):
// (w | 0x8000) - (t & 0x7FFF) per half borrows nowhere and keeps bit 15 iff the low 15 bits reach
// t's; the sign bits decide otherwise (t's set: both needed; clear: either suffices). Other bits
// are garbage. tlow = (t & 0x7FFF) * 0x10001, thigh = t & 0x8000 ? ~0 : 0.
SIMT_HD uint32_t ge_halves(uint32_t w, uint32_t tlow, uint32_t thigh) {
  const uint32_t d = (w | 0x80008000u) - tlow;
  if (DSV4_FAULT_BF16_GE_HALVES_SIGN) return w & d;  // planted: as if every threshold were >= 0x8000
  return (w & d) | ((w | d) & ~thigh);
}
// Census lane masks (SWAR_CENSUS): lane l (word l / 2, half l % 2) sits at bit census_bit(l); the
// byte-permute packing puts lane 4j + b at bit 8b + j. census_lane inverts it.
SIMT_HD int census_bit(int l) { return DSV4_BF16_SWAR_CENSUS ? 8 * (l & 3) + (l >> 2) : l; }
SIMT_HD int census_lane(int bit) {
  return DSV4_BF16_SWAR_CENSUS ? 4 * (bit & 7) + (bit >> 3) : bit;
}
// Pair j of pack_half_tops' mask: words r0 = r[2j], r1 = r[2j + 1] give the bytes [1, 3, 5, 7] of a
// byte permute, bits 7, 15, 23, 31 of which move down to 8b + j (a template, as __byte_perm is
// device-only in nvcc's view).
template <class U = uint32_t>
SIMT_HD unsigned pack_pair_tops(U r0, U r1, int j) {
  // (planted PACK_PAIR_SWAP: the byte order 3, 1, 7, 5)
  return (__byte_perm(r0, r1, DSV4_FAULT_BF16_PACK_PAIR_SWAP ? 0x5713u : 0x7531u) >> (7 - j)) &
         (0x01010101u << j);
}
// The lanes whose half has bit 15 set in r[] (ge_halves results), as a census mask.
template <int kWords>
SIMT_HD unsigned pack_half_tops(const uint32_t (&r)[kWords]) {
  static_assert(kWords % 2 == 0 && kWords <= 16, "pairs of words, at most 32 lanes");
  unsigned m = 0u;
  DSV4_IDX_UNROLL
  for (int j = 0; j < kWords / 2; ++j) m |= pack_pair_tops(r[2 * j], r[2 * j + 1], j);
  return m;
}
SIMT_HD uint32_t clear_nan_half(uint32_t d) {
  return !DSV4_FAULT_BF16_NAN_AS_VALUE && (d >= 0xFF81u || d <= 0x007Eu) ? 0u : d;
}
SIMT_HD uint32_t clear_nan_keys(uint32_t dw) {
  return clear_nan_half(dw & 0xFFFFu) | (clear_nan_half(dw >> 16) << 16);
}
// One bf16 value's key: D, or 0 for NaN (the partial last vector, lane by lane).
SIMT_HD uint32_t lane_key(uint32_t x) { return clear_nan_half(word_keys(x) & 0xFFFFu); }
template <int kWords>
SIMT_HD uint32_t key_at(const uint32_t (&kw)[kWords], int lane) {
  return (kw[lane >> 1] >> ((lane & 1) * 16)) & 0xFFFFu;
}
#if DSV4_FAULT_BF16_NEGZERO_PIVOT
SIMT_HD float key_value(uint32_t d) {  // bf16 value of a D key, widened to fp32
  const uint32_t x = d ^ ((d & 0x8000u) ? 0x8000u : 0xFFFFu);
  return __uint_as_float(x << 16);
}
#endif

// f(i) of spec §2, evaluated in 64-bit with the column and entry range checks; INT32_MIN + code 5.
// `tcache` (may be null): the row's table columns [col0, ...) staged in shared memory (col0 > 0:
// the split kernel's rank, whose positions start past column 0).
SIMT_DEVICE int map_position(const Params& p, const int* trow, const int* tcache, int i, int row,
                             long long col0 = 0) {
  const long long col = static_cast<long long>(i) >> p.page_bits;
  if (col >= p.W) {
    raise_status(p.status, DSV4_CODE_PAGE_ENTRY_OUT_OF_RANGE, DSV4_KERNEL_TOPK_BF16, row, col);
    return INT32_MIN;
  }
  const int t = tcache ? tcache[col - col0] : trow[col];
  if (t < 0 || t > (0x7FFFFFFF >> p.page_bits)) {
    raise_status(p.status, DSV4_CODE_PAGE_ENTRY_OUT_OF_RANGE, DSV4_KERNEL_TOPK_BF16, row, t);
    return INT32_MIN;
  }
  return static_cast<int>((static_cast<long long>(t) << p.page_bits) |
                          (i & ((1 << p.page_bits) - 1)));
}

// The rows done before any score is read, spec §3.1: an invalid length (status `code`, raised
// once, by `reporter`; every slot -1) and n <= k (every position taken, the rest -1). The slots
// from t0 in steps of `step` are this thread's. True when the row is done. Uniform over the
// row's team (the CTA, or the split kernel's cluster).
SIMT_DEVICE bool row_done_before_scores(const Params& p, const int* trow, int* out, int b, int n, int t0,
                                        int step, bool reporter) {
  const int code = n < 0 ? DSV4_CODE_NEGATIVE_LENGTH
                   : n > p.L ? DSV4_CODE_LENGTH_EXCEEDS_WIDTH
                   : n > kRowCapacity ? DSV4_CODE_LENGTH_EXCEEDS_CAPACITY : 0;
  if (code != 0) {
    if (reporter) raise_status(p.status, code, DSV4_KERNEL_TOPK_BF16, b, n);
    for (int t = t0; t < p.k; t += step) out[t] = -1;
    SIMT_PDL_TRIGGER();
    return true;
  }
  if (n <= p.k) {
    for (int t = t0; t < p.k; t += step) out[t] = t < n ? map_position(p, trow, nullptr, t, b) : -1;
    SIMT_PDL_TRIGGER();
    return true;
  }
  return false;
}

// Warp 0 runs search() (it sets bin, remain), and its lane 0 publishes the result to every thread
// of the CTA through slots[at], slots[at + 1] (a block barrier). Called by every thread.
template <class Search>
SIMT_DEVICE void warp0_pivot(unsigned* slots, int at, unsigned& bin, unsigned& remain, Search&& search) {
  if (threadIdx.x < 32) {
    search();
    if (threadIdx.x == 0) {
      slots[at] = bin;
      slots[at + 1] = remain;
    }
  }
  __syncthreads();
  bin = slots[at];
  remain = slots[at + 1];
}

// Pivot search of spec §4.3 step 4, run redundantly by every warp over a 256-bin histogram in
// D order: the highest bin whose suffix count reaches kk, and kk minus the count above it (bin 0,
// remain 0 when the histogram holds fewer than kk lanes: never in pass 1, which counts every lane
// and n > k, nor in pass 2, which counts the whole of the pass-1 bin). Top-K v2's find_digit
// (topk_v2_select.cuh) is the same search, kept apart on purpose (docs/performance.md, tenth pass).
// kSkew: the histogram is stored with bins >= 128 at bin ^ 16 (DSV4_BF16_HIST_SKEW).
// find_pivot_by: the same search over the counts load(at, c) puts in c[0..7] for the 8 stored
// words from `at` (the split kernel sums its cluster's histograms there).
template <bool kSkew, class Load>
SIMT_DEVICE void find_pivot_by(Load&& load, unsigned kk, unsigned& bin, unsigned& remain) {
  const int lane = threadIdx.x & 31;
  const int at = kSkew ? (8 * lane) ^ (lane & 16) : 8 * lane;
  unsigned c[8];
  load(at, c);
  unsigned own = 0;
  DSV4_IDX_UNROLL
  for (int i = 0; i < 8; ++i) own += c[i];
  unsigned s = own;  // inclusive suffix sum over lanes >= lane
  DSV4_IDX_UNROLL
  for (int off = 1; off < 32; off <<= 1) {
    const unsigned t = __shfl_down_sync(0xFFFFFFFFu, s, off);
    if (lane + off < 32) s += t;
  }
  const unsigned above = s - own;
  const bool mine = above < kk && kk <= s;
  unsigned my_bin = 0, my_rem = 0;
  if (mine) {
    unsigned cum = above;
    bool done = false;
    DSV4_IDX_UNROLL
    for (int i = 7; i >= 0; --i) {
      if (!done && cum + c[i] >= kk) {
        my_bin = 8 * lane + i;
        my_rem = kk - cum;
        done = true;
      }
      cum += c[i];
    }
  }
  const unsigned who = __ballot_sync(0xFFFFFFFFu, mine);
  const int src = who != 0 ? __ffs(who) - 1 : 0;
  bin = __shfl_sync(0xFFFFFFFFu, my_bin, src);
  remain = __shfl_sync(0xFFFFFFFFu, my_rem, src);
}
template <bool kSkew = false>
SIMT_DEVICE void find_pivot(const unsigned* h, unsigned kk, unsigned& bin, unsigned& remain) {
  find_pivot_by<kSkew>([h](int at, unsigned (&c)[8]) {
    DSV4_IDX_UNROLL
    for (int i = 0; i < 8; ++i) c[i] = h[at + i];
  }, kk, bin, remain);
}

// The pivot of a histogram for every thread of the CTA: every warp searching alone, or
// (SHARED_PIVOT) warp 0 searching and publishing it in slots[at], slots[at + 1] before a barrier.
// Called by every thread.
template <bool kSkew>
SIMT_DEVICE void pivot_of(const unsigned* h, unsigned kk, unsigned& bin, unsigned& remain,
                          unsigned* slots, int at) {
  if (DSV4_BF16_SHARED_PIVOT) {
    warp0_pivot(slots, at, bin, remain, [&] { find_pivot<kSkew>(h, kk, bin, remain); });
  } else {
    find_pivot<kSkew>(h, kk, bin, remain);
  }
}

}  // namespace dsv4::ours::bf16
