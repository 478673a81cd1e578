// kernels/topk_v2/topk_v2_args.cuh -- kernel arguments, the per-row window and guards
// (README §4 codes 1, 2, 4) and the output stage (modes, 64-bit checked page transform, code 5).
#pragma once
#include "kernels/common/status.cuh"
#include "kernels/topk_v2/topk_v2_keys.cuh"

namespace dsv4::ours::topk {

// Everything a Top-K v2 kernel needs; passed by value. Optional pointers stay NULL (never offset).
struct Args {
  const float* scores = nullptr;
  long long score_stride = 0;  // elements, % 4 == 0
  int L = 0;                   // allocated row width
  int B = 0;
  int K = 0;
  const int* seq_lens = nullptr;
  // ragged (row_starts may be NULL = all 0); paged when out_offsets == NULL
  const int* row_starts = nullptr;
  const int* out_offsets = nullptr;
  // paged output transform
  const int* page_table = nullptr;
  long long pt_stride = 0;
  long long pt_width = 0;
  int page_bits = 0;
  int* out = nullptr;
  long long out_stride = 0;
  int* out_raw = nullptr;  // DUAL mode
  long long raw_stride = 0;
  // plan (pool-aware main kernel / pool): int32 [B+1, 2], NULL when unused
  const int* plan = nullptr;
  // tunables resolved on the host
  int tie_cap = kTieStage;
  int r2_lanes = kRegister2Max;  // 0 = Register2 excluded from this launch
  int r4_lanes = kRegister4Max;  // 0 = Register4 excluded
  int floor = 0;                 // F(B): elected-rank streaming limit of small-batch clusters
  int force = 0;                 // dsv4_path forced (0 = auto)
  int early_read = 0;
  int stage = 0;                 // main kernel: the Streaming stage's capacity in elements (StagedSrc,
                                 // stage_slots x kThreads; launched with 8 bytes each of dynamic
                                 // shared memory), 0 = none; Cluster-4 / -2: 1 = rank shares in smem
  int ring = 0;                  // StagedSrc: slots a thread of the rest's cp.async ring, after the
                                 // stage in dynamic shared memory (16 bytes each); 0 = none
  StatusBlock* status = nullptr;
  int* row_paths = nullptr;
#if DSV4_TOPK_TIMELINE
  unsigned long long* tl = nullptr;  // [CTA][2][kTlPoints]: ns, then SM cycles (timing instrument only)
#endif
};

// Timeline stamp of phase boundary `i` (DSV4_TOPK_TIMELINE builds; thread 0 of the CTA).
SIMT_DEVICE void tl_mark(const Args& a, int i) {
#if DSV4_TOPK_TIMELINE
  if (threadIdx.x == 0 && a.tl != nullptr) {
    unsigned long long* t = a.tl + blockIdx.x * 2 * kTlPoints;
    t[i] = SIMT_GLOBALTIMER();
    t[kTlPoints + i] = static_cast<unsigned long long>(SIMT_CLOCK64());
  }
#else
  (void)a;
  (void)i;
#endif
}

// One row's window: real lanes [head, head + lim) of the 16-byte aligned `base`; the vectors
// [0, nvec) cover them. Positions are lane - head.
struct RowWin {
  const float* base = nullptr;
  int head = 0;
  int n = 0;     // seq_len
  int lim = 0;   // lanes treated as real (n; n + 1 under the READ_PAST_SEQLEN fault)
  int nvec = 0;
  long long offset = 0;  // ragged out offset (added to emitted positions)
};

// CTAs per row of a path that runs a row on one cluster (0: any other path, the pool included).
SIMT_HD constexpr int cluster_ranks(int p) {
  return p == DSV4_PATH_CLUSTER16 ? 16 : p == DSV4_PATH_CLUSTER8 ? 8 : p == DSV4_PATH_CLUSTER4 ? 4
         : p == DSV4_PATH_CLUSTER2 ? 2 : 0;
}
SIMT_HD constexpr bool is_cluster_path(int p) { return cluster_ranks(p) > 0; }

SIMT_DEVICE int read_len(const Args& a, int b) { return a.seq_lens[b]; }

// Guards in code order 1, 2, 4 (README §4); returns the DSV4_CODE_* of the first failure or 0
// and fills `w`. Does not raise (the caller raises once per row).
SIMT_DEVICE int prepare_row(const Args& a, int b, int n, RowWin* w, long long* bad_value) {
  if (n < 0) { *bad_value = n; return DSV4_CODE_NEGATIVE_LENGTH; }
  long long rs = 0, off = 0;
  if (a.out_offsets != nullptr) {
    rs = a.row_starts != nullptr ? a.row_starts[b] : 0;
    off = a.out_offsets[b];
  }
  if (rs + static_cast<long long>(n) > a.L) { *bad_value = n; return DSV4_CODE_LENGTH_EXCEEDS_WIDTH; }
  if (rs < 0) { *bad_value = rs; return DSV4_CODE_BAD_WINDOW_OR_OFFSET; }
  if (off < 0 || off + static_cast<long long>(n) - 1 > 2147483647LL) {
    *bad_value = off;
    return DSV4_CODE_BAD_WINDOW_OR_OFFSET;
  }
  const long long head = rs & 3;
  w->base = a.scores + static_cast<long long>(b) * a.score_stride + (rs - head);
  w->head = static_cast<int>(head);
  w->n = n;
  w->lim = n + DSV4_FAULT_TOPK_READ_PAST_SEQLEN;
  w->nvec = (w->head + w->lim + 3) >> 2;
  w->offset = off;
  return 0;
}

// Vector v of the window with padding lanes filled in registers; partial vectors are loaded
// lane by lane so nothing outside the window is read (§8).
template <class T>
SIMT_DEVICE T load_row(const T* p) {
#if DSV4_TOPK_ROW_LOAD == 1
  return SIMT_LOAD_L2ONLY(p);
#elif DSV4_TOPK_ROW_LOAD == 2
  return SIMT_LOAD_STREAM(p);
#else
  return *p;
#endif
}
SIMT_DEVICE void load_vec(const RowWin& w, int v, float (&x)[4]) {
  const int l0 = v * 4;
  if (l0 >= w.head && l0 + 4 <= w.head + w.lim) {
    const float4 q = load_row(reinterpret_cast<const float4*>(w.base) + v);
    x[0] = q.x; x[1] = q.y; x[2] = q.z; x[3] = q.w;
    return;
  }
  for (int c = 0; c < 4; ++c) {
    const int l = l0 + c;
    x[c] = (l >= w.head && l < w.head + w.lim) ? load_row(w.base + l) : pad_value();
  }
}

// Emitted value of raw position p (§2.3 page transform in 64-bit, checked; ragged offset).
SIMT_DEVICE int transform_pos(const Args& a, int b, const RowWin& w, int p) {
  if (a.out_offsets != nullptr) return static_cast<int>(p + w.offset);
  if (a.page_table == nullptr) return p;
  const long long col = static_cast<long long>(p) >> a.page_bits;
  long long t = -1;
  if (p >= 0 && col < a.pt_width) t = a.page_table[static_cast<long long>(b) * a.pt_stride + col];
  if (t < 0 || t > (2147483647LL >> a.page_bits)) {
    raise_status(a.status, DSV4_CODE_PAGE_ENTRY_OUT_OF_RANGE, DSV4_KERNEL_TOPK_V2, b, t);
    return static_cast<int>(0x80000000u);  // INT32_MIN
  }
  const long long mask = (1LL << a.page_bits) - 1;
  return static_cast<int>((t << a.page_bits) | (static_cast<long long>(p) & mask));
}

// Writes slots [0, K) of row b: slot s < v holds sel[s] (or s itself when `sel` is NULL:
// trivial rows), the rest -1. All threads of the block call it.
SIMT_DEVICE void write_row(const Args& a, int b, const RowWin& w, const int* sel, int v) {
  int* out = a.out + static_cast<long long>(b) * a.out_stride;
  int* raw = a.out_raw != nullptr ? a.out_raw + static_cast<long long>(b) * a.raw_stride : nullptr;
  if (v > a.K) v = a.K;
  if (DSV4_TOPK_WRITE_TWO_PHASE) {  // a thread's slots: every transform (table read), then the stores
    constexpr int kSlots = (kMaxTopK + kThreads - 1) / kThreads;
    int p[kSlots], o[kSlots];
#pragma unroll
    for (int u = 0; u < kSlots; ++u) {
      const int s = static_cast<int>(threadIdx.x) + u * kThreads;
      p[u] = s < v ? (sel != nullptr ? sel[s] : s) : -1;
      o[u] = s < v ? transform_pos(a, b, w, p[u]) : -1;
    }
#pragma unroll
    for (int u = 0; u < kSlots; ++u) {
      const int s = static_cast<int>(threadIdx.x) + u * kThreads;
      if (s < a.K) {
        out[s] = o[u];
        if (raw != nullptr) raw[s] = p[u];
      }
    }
  } else {
    for (int s = threadIdx.x; s < a.K; s += kThreads) {
      const int p = s < v ? (sel != nullptr ? sel[s] : s) : -1;
      out[s] = s < v ? transform_pos(a, b, w, p) : -1;
      if (raw != nullptr) raw[s] = s < v ? p : -1;
    }
  }
#if DSV4_FAULT_TOPK_WRITE_PAST_K
  if (threadIdx.x == 0 && (b & 1) == 0) out[a.K] = -1;  // planted: one slot past K
#endif
}

// Empty output of a row in error (all -1); reads no scores.
SIMT_DEVICE void write_empty(const Args& a, int b) {
  int* out = a.out + static_cast<long long>(b) * a.out_stride;
  int* raw = a.out_raw != nullptr ? a.out_raw + static_cast<long long>(b) * a.raw_stride : nullptr;
  for (int s = threadIdx.x; s < a.K; s += kThreads) {
    out[s] = -1;
    if (raw != nullptr) raw[s] = -1;
  }
}

SIMT_DEVICE void report_path(const Args& a, int b, int path) {
  if (threadIdx.x == 0 && a.row_paths != nullptr) a.row_paths[b] = path;
}

}  // namespace dsv4::ours::topk
