// simple_topk_plugin.cu -- a minimal implementation of the dsv4 plugin ABI (dsv4/indexer_abi.h).
//
// Implements only the required entries plus dsv4_topk_v2_transform_paged in INDICES mode
// (no page table, no raw output). Everything else is simply not exported, which the harness
// reads as "not implemented". Semantics: spec/topk_v2.md §2.3 and §3 (trivial rows, NaN absent,
// -inf selectable, -1 suffix when fewer than K non-NaN scores). Built twice: PLANTED_BUG=0 (the
// correct plugin) and PLANTED_BUG=1 (bug class 1, see simple_topk_kernel.cuh).
#include <dsv4/indexer_abi.h>

#include <cuda_runtime.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include "simple_topk_kernel.cuh"

namespace {

constexpr const char* kEntry = "dsv4_topk_v2_transform_paged";
constexpr int32_t kMaxK = 2048;
constexpr int64_t kMaxPageSize = int64_t{1} << 30;

dsv4_result fail(dsv4_message* msg, dsv4_result code, const char* fmt, ...) {
  if (msg != nullptr) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg->text, DSV4_MESSAGE_CAPACITY, fmt, ap);
    va_end(ap);
  }
  return code;
}

dsv4_result ok(dsv4_message* msg) {
  if (msg != nullptr) msg->text[0] = '\0';
  return DSV4_OK;
}

int64_t elem_size(int32_t dtype) { return dtype == DSV4_BFLOAT16 ? 2 : 4; }

// Metadata check of one tensor: present, dtype, rank, non-negative sizes, last stride 1,
// non-negative row stride, data non-NULL when non-empty, natural alignment.
bool check_tensor(const dsv4_tensor* t, const char* name, int32_t dtype, int32_t ndim,
                  dsv4_message* msg, dsv4_result* rc) {
  const char* dt = dtype == DSV4_FLOAT32 ? "float32" : "int32";
  if (t == nullptr) { *rc = fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: %s is NULL", kEntry, name); return false; }
  if (t->dtype != dtype) {
    *rc = fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: %s must be %s (dtype %d given)", kEntry, name, dt, t->dtype);
    return false;
  }
  if (t->ndim != ndim) {
    *rc = fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: %s must have rank %d (rank %d given)", kEntry, name, ndim, t->ndim);
    return false;
  }
  for (int d = 0; d < ndim; ++d) {
    if (t->sizes[d] < 0) {
      *rc = fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: %s.sizes[%d] = %lld is negative", kEntry, name, d, (long long)t->sizes[d]);
      return false;
    }
  }
  if (t->strides[ndim - 1] != 1) {
    *rc = fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: %s column stride must be 1 (%lld given)", kEntry, name, (long long)t->strides[ndim - 1]);
    return false;
  }
  if (ndim == 2 && t->strides[0] < 0) {
    *rc = fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: %s row stride %lld is negative", kEntry, name, (long long)t->strides[0]);
    return false;
  }
  const int64_t numel = ndim == 2 ? t->sizes[0] * t->sizes[1] : t->sizes[0];
  if (numel > 0 && t->data == nullptr) {
    *rc = fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: %s.data is NULL but the tensor is not empty", kEntry, name);
    return false;
  }
  if (reinterpret_cast<uintptr_t>(t->data) % elem_size(dtype) != 0) {
    *rc = fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: %s.data is not %lld-byte aligned", kEntry, name, (long long)elem_size(dtype));
    return false;
  }
  return true;
}

// Byte range [lo, hi) a tensor view can touch; empty views touch nothing.
struct Span { uintptr_t lo = 0, hi = 0; };
Span span_of(const dsv4_tensor* t) {
  Span s;
  if (t == nullptr || t->data == nullptr) return s;
  const int64_t rows = t->ndim == 2 ? t->sizes[0] : 1;
  const int64_t cols = t->ndim == 2 ? t->sizes[1] : t->sizes[0];
  if (rows == 0 || cols == 0) return s;
  const int64_t row_stride = t->ndim == 2 ? t->strides[0] : 0;
  s.lo = reinterpret_cast<uintptr_t>(t->data);
  s.hi = s.lo + static_cast<uintptr_t>(((rows - 1) * row_stride + cols) * elem_size(t->dtype));
  return s;
}
bool overlaps(Span a, Span b) { return a.lo < a.hi && b.lo < b.hi && a.lo < b.hi && b.lo < a.hi; }

}  // namespace

extern "C" {

DSV4_EXPORT uint32_t dsv4_abi_version(void) { return DSV4_ABI_VERSION; }

DSV4_EXPORT dsv4_result dsv4_query_capabilities(dsv4_capabilities* caps, dsv4_message* msg) {
  if (caps == nullptr) return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "dsv4_query_capabilities: caps is NULL");
  memset(caps, 0, sizeof(*caps));
  caps->struct_size = sizeof(*caps);
  snprintf(caps->name, sizeof(caps->name), "%s", PLANTED_BUG ? "simple-sort-topk-buggy" : "simple-sort-topk");
  snprintf(caps->version, sizeof(caps->version), "%s", PLANTED_BUG ? "1.0-planted-bug-class-1" : "1.0");
  caps->memory_space = DSV4_MEMORY_CUDA_DEVICE;
  caps->entries = DSV4_ENTRY_TOPK_V2_PAGED;
  caps->topk_v2_modes = DSV4_MODE_INDICES;
  caps->paths = 0;              // no dispatch paths in the sense of topk_v2.md §5
  caps->can_force_path = 0;
  caps->nan_supported = 1;      // NaN is absent, as specified
  caps->writes_ragged_head = 0;
  caps->has_tunables = 0;
  caps->has_row_path_report = 0;
  caps->block_threads = 0;      // not an instantiation of the spec's kernels
  caps->bf16_block_threads = 0;
  caps->k_max = kMaxK;
  caps->page_size_max = static_cast<int32_t>(kMaxPageSize);
  caps->bf16_len_max = 0;
  caps->candidate_capacity = 0;
  return ok(msg);
}

DSV4_EXPORT dsv4_result dsv4_topk_v2_transform_paged(
    const dsv4_tensor* scores, const dsv4_tensor* seq_lens, const dsv4_tensor* page_table,
    dsv4_tensor* out_page_indices, int64_t page_size, const dsv4_tensor* metadata,
    dsv4_tensor* out_raw_indices, void* stream, int32_t validate, dsv4_message* msg) {
  dsv4_result rc = DSV4_OK;
  // ---- metadata checks (both modes; topk_v2.md §9) -------------------------------------------
  if (out_raw_indices != nullptr && page_table == nullptr)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: raw_indices requires a page table", kEntry);
  if (!check_tensor(scores, "scores", DSV4_FLOAT32, 2, msg, &rc)) return rc;
  if (!check_tensor(seq_lens, "seq_lens", DSV4_INT32, 1, msg, &rc)) return rc;
  if (!check_tensor(out_page_indices, "out_page_indices", DSV4_INT32, 2, msg, &rc)) return rc;
  const int64_t B = scores->sizes[0], L = scores->sizes[1], S = scores->strides[0];
  const int64_t K = out_page_indices->sizes[1];
  if (K <= 0 || K > kMaxK)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: topk must be in (0, 2048] (K = %lld)", kEntry, (long long)K);
  if (S % 4 != 0)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: scores row stride %lld is not a multiple of 4", kEntry, (long long)S);
  if (B > 1 && S < L)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: scores row stride %lld < width %lld", kEntry, (long long)S, (long long)L);
  if (reinterpret_cast<uintptr_t>(scores->data) % 16 != 0)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: scores base address is not 16-byte aligned", kEntry);
  if (seq_lens->sizes[0] != B)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: seq_lens has %lld entries, scores has %lld rows", kEntry,
                (long long)seq_lens->sizes[0], (long long)B);
  if (out_page_indices->sizes[0] != B)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: out_page_indices has %lld rows, scores has %lld", kEntry,
                (long long)out_page_indices->sizes[0], (long long)B);
  if (B > 1 && out_page_indices->strides[0] < K)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: out_page_indices row stride %lld < K = %lld", kEntry,
                (long long)out_page_indices->strides[0], (long long)K);
  if (page_size < 1 || page_size > kMaxPageSize || (page_size & (page_size - 1)) != 0)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: page_size %lld is not a power of two in [1, 2^30]", kEntry,
                (long long)page_size);
  if (metadata != nullptr) {  // never read (this plugin has no plan), but its shape is a contract
    if (!check_tensor(metadata, "metadata", DSV4_INT32, 2, msg, &rc)) return rc;
    if (metadata->sizes[0] != B + 1 || metadata->sizes[1] != 2 || metadata->strides[0] != 2)
      return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: invalid metadata shape (must be contiguous [B+1, 2] = [%lld, 2])",
                  kEntry, (long long)(B + 1));
  }
  const Span out_span = span_of(out_page_indices);
  if (overlaps(out_span, span_of(scores)) || overlaps(out_span, span_of(seq_lens)) ||
      overlaps(out_span, span_of(metadata)))
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: out_page_indices aliases an input", kEntry);
  if (page_table != nullptr) {
    // A well-formed PAGE_TABLE / DUAL request is valid but not implemented here: UNSUPPORTED.
    if (!check_tensor(page_table, "page_table", DSV4_INT32, 2, msg, &rc)) return rc;
    if (page_table->sizes[0] != B)
      return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: page_table has %lld rows, scores has %lld", kEntry,
                  (long long)page_table->sizes[0], (long long)B);
    if (out_raw_indices != nullptr &&
        !check_tensor(out_raw_indices, "out_raw_indices", DSV4_INT32, 2, msg, &rc)) return rc;
    return fail(msg, DSV4_ERR_UNSUPPORTED,
                "%s: this plugin implements INDICES mode only (page_table must be NULL)", kEntry);
  }
  if (B == 0) return ok(msg);  // empty batch: successful no-op, nothing launched
  if (B > 0x7FFFFFFF)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: batch %lld exceeds the grid limit", kEntry, (long long)B);

  cudaStream_t st = static_cast<cudaStream_t>(stream);
  // ---- checked mode: per-row values on the host ----------------------------------------------
  if (validate != 0) {
    std::vector<int32_t> lens(static_cast<size_t>(B));
    cudaError_t e = cudaMemcpyAsync(lens.data(), seq_lens->data, sizeof(int32_t) * lens.size(),
                                    cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    if (e != cudaSuccess)
      return fail(msg, DSV4_ERR_CUDA, "%s: copying seq_lens to the host failed: %s (%d)", kEntry,
                  cudaGetErrorString(e), static_cast<int>(e));
    for (int64_t b = 0; b < B; ++b) {
      if (lens[b] < 0 || lens[b] > L)
        return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: seq_lens[%lld] = %d violates 0 <= seq_len <= L = %lld",
                    kEntry, (long long)b, lens[b], (long long)L);
    }
  }
  // ---- launch ---------------------------------------------------------------------------------
  simple_topk::topk_rows_kernel<<<static_cast<unsigned>(B), simple_topk::kThreads, 0, st>>>(
      static_cast<const float*>(scores->data), S, L, static_cast<const int32_t*>(seq_lens->data),
      static_cast<int32_t*>(out_page_indices->data), out_page_indices->strides[0], static_cast<int32_t>(K));
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    return fail(msg, DSV4_ERR_CUDA, "%s: kernel launch failed: %s (%d)", kEntry, cudaGetErrorString(e),
                static_cast<int>(e));
  return ok(msg);
}

}  // extern "C"
