// kernels/candidate_block_table/candidate_block_table_kernel.cuh -- sort_candidate_blocks (spec
// candidate_block_table.md): identity path (nb <= K) and bitmap counting sort (nb > K), in place,
// INT32_MAX padding, 64-bit checked pool-slot mapping. One CTA of 1024 threads per row; WPT = 4
// (capacity 131072 blocks) or 8 (262144) bitmap words per thread.
#pragma once
#include "kernels/candidate_block_table/block_word_scan.cuh"
#include "kernels/common/faults.h"
#include "kernels/common/status.cuh"
#include "simt/portable.h"

namespace dsv4::ours::cand {

constexpr int kThreads = 1024;
constexpr int kMaxK = 2048;
constexpr int kQueueWords = 2 * kMaxK;  // queue of (rank << 13 | word, bits) pairs
constexpr int kIntMax = 0x7FFFFFFF;
constexpr int kIntMin = static_cast<int>(0x80000000u);
template <int WPT>
constexpr long long capacity() { return static_cast<long long>(kThreads) * WPT * 32; }

struct Params {
  int* blocks;            // [B, K] IN/OUT
  long long blocks_stride;
  int K;
  const int* seq_lens;    // [B] tokens
  const int* table;       // [B, W] index-pool page table (row stride may be 0)
  long long table_stride;
  long long W;
  int page_bits;          // log2(page_size / 8)
  int entry_max;          // INT32_MAX >> log2(page_size)
  int* out;               // [B, K] pool slot / 8
  long long out_stride;
  StatusBlock* status;
};

// map(id) of spec §2 in 64-bit with the column and entry checks; INT32_MIN + code 5.
SIMT_DEVICE int map_block(const Params& p, const int* trow, int id, int row) {
  const long long col = static_cast<long long>(id) >> p.page_bits;
  if (col >= p.W) {
    raise_status(p.status, DSV4_CODE_PAGE_ENTRY_OUT_OF_RANGE, DSV4_KERNEL_CANDIDATES, row, col);
    return kIntMin;
  }
  const int t = trow[col];
  if (t < 0 || t > p.entry_max) {
    raise_status(p.status, DSV4_CODE_PAGE_ENTRY_OUT_OF_RANGE, DSV4_KERNEL_CANDIDATES, row, t);
    return kIntMin;
  }
  return static_cast<int>((static_cast<long long>(t) << p.page_bits) |
                          (id & ((1 << p.page_bits) - 1)));
}

template <int WPT>
SIMT_KERNEL void SIMT_LAUNCH_BOUNDS(kThreads, 2) sort_candidate_blocks_kernel(Params p) {
  constexpr int kWords = kThreads * WPT;
  constexpr int kSmemWords = kWords > kQueueWords ? kWords : kQueueWords;
  SIMT_SHARED(unsigned, smem, [kSmemWords]);  // bitmap, then (reused) the multi-bit word queue
  SIMT_SHARED(unsigned, warp_sums, [32]);
  SIMT_SHARED(unsigned, qsize, );
  const int tx = threadIdx.x;
  if (tx == 0) qsize = 0u;

  SIMT_PDL_WAIT();  // `blocks` is the previous kernel's output: nothing global before this
  const int b = blockIdx.x;
  const int n = p.seq_lens[b];
  const int K = p.K;
  int* blk = p.blocks + static_cast<long long>(b) * p.blocks_stride;
  int* out = p.out + static_cast<long long>(b) * p.out_stride;
  const int* trow = p.W > 0 ? p.table + static_cast<long long>(b) * p.table_stride : p.table;
  const long long nb = n >= 0 ? (static_cast<long long>(n) + 7) / 8 : 0;

  int code = 0;
  if (n < 0) code = DSV4_CODE_NEGATIVE_LENGTH;
  else if (nb > K && nb > capacity<WPT>()) code = DSV4_CODE_LENGTH_EXCEEDS_CAPACITY;
  if (code != 0) {  // row error: all INT32_MAX, `blocks` not read
    if (tx == 0) raise_status(p.status, code, DSV4_KERNEL_CANDIDATES, b, n);
    for (int t = tx; t < K; t += kThreads) blk[t] = out[t] = kIntMax;
    SIMT_PDL_TRIGGER();
    return;
  }
  if (nb <= K) {  // identity path: the input row is not read
    for (int t = tx; t < K; t += kThreads) {
      const bool v = t < nb;
      blk[t] = v ? t : kIntMax;
      out[t] = v ? map_block(p, trow, t, b) : kIntMax;
    }
    SIMT_PDL_TRIGGER();
    return;
  }

  // ---- build the bitmap ----
  for (int i = 0; i < WPT; ++i) smem[tx * WPT + i] = 0u;
  __syncthreads();
#if DSV4_FAULT_CAND_ACCEPT_PAST_NB
  const long long accept = capacity<WPT>();  // planted defect: ids in [nb, capacity) accepted
#else
  const long long accept = nb;
#endif
  for (int t = tx; t < K; t += kThreads) {
    const int id = blk[t];
    if (id == -1) continue;  // padding
    if (id < 0 || id >= accept) {  // never touch a word outside the bitmap
      raise_status(p.status, DSV4_CODE_ID_OUT_OF_RANGE, DSV4_KERNEL_CANDIDATES, b, id);
      continue;
    }
#if DSV4_FAULT_CAND_NO_DEDUP
    atomicAdd(&smem[id >> 5], 1u << (id & 31));  // planted defect: duplicates carry, not collapse
#else
    atomicOr(&smem[id >> 5], 1u << (id & 31));
#endif
  }
  __syncthreads();  // every read of `blocks` precedes this barrier (in place is safe)

  // ---- scan ----
  unsigned words[WPT], rank[WPT];
  for (int i = 0; i < WPT; ++i) words[i] = smem[tx * WPT + i];
  const unsigned m = block_word_ranks<WPT>(words, rank, warp_sums);
  SIMT_PDL_TRIGGER();
  __syncthreads();  // every thread holds its words: the bitmap memory becomes the queue

  // ---- emit single-bit words, queue the others, pad ----
  for (int i = 0; i < WPT; ++i) {
    const unsigned w = words[i];
    if (w == 0u) continue;
    const int widx = tx * WPT + i;
    if ((w & (w - 1u)) == 0u) {
      const int id = 32 * widx + (__ffs(w) - 1);
      blk[rank[i]] = id;
      out[rank[i]] = map_block(p, trow, id, b);
    } else {
      const unsigned q = atomicAdd(&qsize, 1u);
      smem[2 * q] = (rank[i] << 13) | static_cast<unsigned>(widx);
      smem[2 * q + 1] = w;
    }
  }
  for (int t = static_cast<int>(m) + tx; t < K; t += kThreads) blk[t] = out[t] = kIntMax;
  if (tx == 0 && static_cast<long long>(m) < K)  // sort path: min(K, nb) = K
    raise_status(p.status, DSV4_CODE_INCOMPLETE_TABLE, DSV4_KERNEL_CANDIDATES, b, m);
  __syncthreads();

  // ---- drain: warp w takes items w, w + 32, ...; lane j emits bit j ----
  const int lane = tx & 31;
  const unsigned nq = qsize;
  for (unsigned it = static_cast<unsigned>(tx >> 5); it < nq; it += kThreads / 32) {
    const unsigned head = smem[2 * it], bits = smem[2 * it + 1];
    if ((bits >> lane) & 1u) {
      const int r = static_cast<int>((head >> 13) + __popc(bits & ((1u << lane) - 1u)));
      const int id = 32 * static_cast<int>(head & 0x1FFFu) + lane;
      blk[r] = id;
      out[r] = map_block(p, trow, id, b);
    }
  }
}

}  // namespace dsv4::ours::cand
