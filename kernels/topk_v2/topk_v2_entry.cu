// kernels/topk_v2/topk_v2_entry.cu -- the Top-K v2 ABI entry points (spec topk_v2.md §2, §9):
// metadata validation in both modes, per-row checks after a host copy in checked mode (unchecked
// mode never synchronizes), then the one dispatch function. On any error nothing is launched.
#include <vector>

#include "kernels/common/status.cuh"
#include "kernels/common/validate.hpp"
#include "kernels/topk_v2/topk_v2_host.hpp"

using namespace dsv4::ours;
using namespace dsv4::ours::topk;

namespace {

constexpr dsv4_result kBad = DSV4_ERR_INVALID_ARGUMENT;

TensorRule scores_rule(const char* name) {
  TensorRule r{name, DSV4_FLOAT32, 2};
  r.stride_multiple = 4;
  r.base_align = 16;
  return r;
}
TensorRule vec_rule(const char* name, int64_t B) {
  TensorRule r{name, DSV4_INT32, 1};
  r.rows = B;
  return r;
}
dsv4_result check_contiguous_1d(const char* entry, const dsv4_tensor* t, const char* name,
                                 dsv4_message* msg) {
  if (t != nullptr && t->sizes[0] > 1 && t->strides[0] != 1)
    return fail(msg, kBad, "%s: %s must be contiguous (stride %lld)", entry, name, (long long)t->strides[0]);
  return DSV4_OK;
}
dsv4_result check_out(const char* entry, const dsv4_tensor* t, const char* name, int64_t B,
                      dsv4_message* msg) {
  TensorRule r{name, DSV4_INT32, 2};
  r.rows = B;
  if (dsv4_result e = check_tensor(entry, t, r, msg); e != DSV4_OK) return e;
  const int64_t K = t->sizes[1];
  if (K <= 0 || K > kMaxTopK)
    return fail(msg, kBad, "%s: %s has K = %lld: topk must be in (0, 2048]", entry, name, (long long)K);
  if (B > 0 && t->strides[0] < K)
    return fail(msg, kBad, "%s: %s row stride %lld is smaller than K = %lld", entry, name,
                (long long)t->strides[0], (long long)K);
  return DSV4_OK;
}
dsv4_result check_metadata(const char* entry, const dsv4_tensor* m, int64_t B, dsv4_message* msg) {
  if (m->dtype != DSV4_INT32 || m->ndim != 2 || m->sizes[0] != B + 1 || m->sizes[1] != 2 ||
      m->strides[1] != 1 || m->strides[0] != 2 || m->data == nullptr ||
      reinterpret_cast<uintptr_t>(m->data) % 4 != 0)
    return fail(msg, kBad, "%s: invalid metadata shape: metadata must be a contiguous int32 [B+1, 2] = [%lld, 2]",
                entry, (long long)(B + 1));
  return DSV4_OK;
}
// Outputs must not alias any input or each other.
dsv4_result check_aliasing(const char* entry, const dsv4_tensor* const* outs, const char* const* on,
                           int no, const dsv4_tensor* const* ins, const char* const* in, int ni,
                           dsv4_message* msg) {
  for (int i = 0; i < no; ++i) {
    for (int j = 0; j < ni; ++j)
      if (dsv4_result e = check_no_alias(entry, outs[i], on[i], ins[j], in[j], msg); e != DSV4_OK) return e;
    for (int j = i + 1; j < no; ++j)
      if (dsv4_result e = check_no_alias(entry, outs[i], on[i], outs[j], on[j], msg); e != DSV4_OK) return e;
  }
  return DSV4_OK;
}

Args common_args(const dsv4_tensor* scores, const dsv4_tensor* seq_lens, dsv4_tensor* out,
                 const Sizing& z) {
  Args a;
  a.scores = static_cast<const float*>(scores->data);
  a.score_stride = scores->strides[0];
  a.B = static_cast<int>(scores->sizes[0]);
  a.L = static_cast<int>(scores->sizes[1]);
  a.seq_lens = static_cast<const int*>(seq_lens->data);
  a.out = static_cast<int*>(out->data);
  a.out_stride = out->strides[0];
  a.K = static_cast<int>(out->sizes[1]);
  a.tie_cap = z.tie_cap;
  a.r2_lanes = z.r2;
  a.r4_lanes = z.r4;
  a.force = z.force;
  a.early_read = z.early_read;
  return a;
}

dsv4_result finish_args(Args* a, dsv4_message* msg) {
  a->status = status_block(msg);
  if (!a->status) return DSV4_ERR_CUDA;
  a->row_paths = row_path_buffer(a->B, msg);
  if (!a->row_paths) return DSV4_ERR_CUDA;
  return DSV4_OK;
}

}  // namespace

extern "C" {

DSV4_EXPORT dsv4_result dsv4_topk_v2_plan_is_written(int64_t batch, int32_t* written, dsv4_message* msg) {
  if (!written) return fail(msg, kBad, "topk_v2_plan_is_written: written is NULL");
  if (batch < 0) return fail(msg, kBad, "topk_v2_plan_is_written: batch = %lld must be >= 0", (long long)batch);
  Sizing z;
  if (dsv4_result e = resolve_sizing(&z, msg); e != DSV4_OK) return e;
  *written = plan_is_written(z, batch) ? 1 : 0;
  return ok(msg);
}

DSV4_EXPORT dsv4_result dsv4_topk_v2_plan(const dsv4_tensor* seq_lens, dsv4_tensor* metadata,
                                          int32_t static_threshold, void* stream, int32_t validate,
                                          dsv4_message* msg) {
  const char* E = "topk_v2_plan";
  if (dsv4_result e = check_tensor(E, seq_lens, vec_rule("seq_lens", -1), msg); e != DSV4_OK) return e;
  if (dsv4_result e = check_contiguous_1d(E, seq_lens, "seq_lens", msg); e != DSV4_OK) return e;
  const int64_t B = seq_lens->sizes[0];
  if (!metadata) return fail(msg, kBad, "%s: metadata is required (got NULL)", E);
  if (dsv4_result e = check_metadata(E, metadata, B, msg); e != DSV4_OK) return e;
  if (dsv4_result e = check_no_alias(E, metadata, "metadata", seq_lens, "seq_lens", msg); e != DSV4_OK) return e;
  if (B > INT32_MAX - 1) return fail(msg, kBad, "%s: batch %lld too large", E, (long long)B);
  Sizing z;
  if (dsv4_result e = resolve_sizing(&z, msg); e != DSV4_OK) return e;
  if (z.force == DSV4_PATH_POOL && !z.cluster_capable)
    return fail(msg, kBad, "%s: force_path = pool needs a cluster-capable device", E);
  if (validate && B > 0) {
    std::vector<int32_t> n(static_cast<size_t>(B));
    if (dsv4_result e = copy_i32_to_host(E, seq_lens, n.data(), stream, msg); e != DSV4_OK) return e;
    for (int64_t b = 0; b < B; ++b)
      if (n[b] < 0) return fail(msg, kBad, "%s: seq_lens[%lld] = %d violates seq_lens >= 0", E, (long long)b, n[b]);
  }
  if (!plan_is_written(z, B)) return ok(msg);
  if (dsv4_result e = launch_plan(z, static_cast<const int*>(seq_lens->data), static_cast<int>(B),
                                  static_cast<int*>(metadata->data), static_threshold, stream, msg);
      e != DSV4_OK)
    return e;
  return ok(msg);
}

DSV4_EXPORT dsv4_result dsv4_topk_v2_transform_paged(
    const dsv4_tensor* scores, const dsv4_tensor* seq_lens, const dsv4_tensor* page_table,
    dsv4_tensor* out_page_indices, int64_t page_size, const dsv4_tensor* metadata,
    dsv4_tensor* out_raw_indices, void* stream, int32_t validate, dsv4_message* msg) {
  const char* E = "topk_v2_transform_paged";
  if (dsv4_result e = check_tensor(E, scores, scores_rule("scores"), msg); e != DSV4_OK) return e;
  const int64_t B = scores->sizes[0], L = scores->sizes[1];
  if (L > INT32_MAX || B > INT32_MAX / 16) return fail(msg, kBad, "%s: scores shape too large", E);
  if (dsv4_result e = check_tensor(E, seq_lens, vec_rule("seq_lens", B), msg); e != DSV4_OK) return e;
  if (dsv4_result e = check_contiguous_1d(E, seq_lens, "seq_lens", msg); e != DSV4_OK) return e;
  if (dsv4_result e = check_out(E, out_page_indices, "out_page_indices", B, msg); e != DSV4_OK) return e;
  const int64_t K = out_page_indices->sizes[1];
  if (page_size < 1 || page_size > (int64_t{1} << 30) || !is_pow2(page_size))
    return fail(msg, kBad, "%s: page_size = %lld must be a power of two in [1, 2^30]", E, (long long)page_size);
  if (page_table) {
    TensorRule r{"page_table", DSV4_INT32, 2};
    r.rows = B;
    r.row_stride_ge_cols = false;
    r.allow_zero_row_stride = true;
    if (dsv4_result e = check_tensor(E, page_table, r, msg); e != DSV4_OK) return e;
  }
  if (out_raw_indices) {
    if (!page_table) return fail(msg, kBad, "%s: raw_indices requires a page table", E);
    if (dsv4_result e = check_out(E, out_raw_indices, "out_raw_indices", B, msg); e != DSV4_OK) return e;
    if (out_raw_indices->sizes[1] != K)
      return fail(msg, kBad, "%s: out_raw_indices must be [B, K] = [%lld, %lld]", E, (long long)B, (long long)K);
  }
  if (metadata)
    if (dsv4_result e = check_metadata(E, metadata, B, msg); e != DSV4_OK) return e;
  const dsv4_tensor* outs[] = {out_page_indices, out_raw_indices};
  const char* on[] = {"out_page_indices", "out_raw_indices"};
  const dsv4_tensor* ins[] = {scores, seq_lens, page_table, metadata};
  const char* in[] = {"scores", "seq_lens", "page_table", "metadata"};
  if (dsv4_result e = check_aliasing(E, outs, on, 2, ins, in, 4, msg); e != DSV4_OK) return e;
  Sizing z;
  if (dsv4_result e = resolve_sizing(&z, msg); e != DSV4_OK) return e;
  const bool forced_cluster = is_cluster_path(z.force) || z.force == DSV4_PATH_POOL;
  if (forced_cluster && !z.cluster_capable)
    return fail(msg, kBad, "%s: force_path = %d needs a cluster-capable device", E, z.force);
  const Decision d = decide(z, B, L, false);
  const bool pool = d.kernel == DSV4_PATH_POOL;
  if (pool && B > 0 && !metadata)  // B = 0 is a no-op: plan_is_written(0) is false
    return fail(msg, kBad, "%s: metadata is required: the plan is written for B = %lld", E, (long long)B);
  const int page_bits = log2_exact(page_size);
  if (validate && B > 0) {
    std::vector<int32_t> n(static_cast<size_t>(B));
    if (dsv4_result e = copy_i32_to_host(E, seq_lens, n.data(), stream, msg); e != DSV4_OK) return e;
    for (int64_t b = 0; b < B; ++b) {
      if (n[b] < 0) return fail(msg, kBad, "%s: seq_lens[%lld] = %d violates seq_lens >= 0", E, (long long)b, n[b]);
      if (n[b] > L)
        return fail(msg, kBad, "%s: seq_lens[%lld] = %d violates seq_lens <= L = %lld", E, (long long)b, n[b], (long long)L);
      if (page_table && ((int64_t{n[b]} + page_size - 1) >> page_bits) > page_table->sizes[1])
        return fail(msg, kBad, "%s: page_table[%lld] width %lld violates W >= ceil(seq_lens / page_size) = %lld",
                    E, (long long)b, (long long)page_table->sizes[1],
                    (long long)((int64_t{n[b]} + page_size - 1) >> page_bits));
    }
  }
  if (B == 0) return ok(msg);
  Args a = common_args(scores, seq_lens, out_page_indices, z);
  if (page_table) {
    a.page_table = static_cast<const int*>(page_table->data);
    a.pt_stride = page_table->strides[0];
    a.pt_width = page_table->sizes[1];
  }
  a.page_bits = page_bits;
  if (out_raw_indices) {
    a.out_raw = static_cast<int*>(out_raw_indices->data);
    a.raw_stride = out_raw_indices->strides[0];
  }
  a.plan = pool ? static_cast<const int*>(metadata->data) : nullptr;
  a.floor = d.floor;
  if (dsv4_result e = finish_args(&a, msg); e != DSV4_OK) return e;
  if (dsv4_result e = launch_transform(a, d, stream, msg); e != DSV4_OK) return e;
  set_row_path_rows(B);
  return ok(msg);
}

DSV4_EXPORT dsv4_result dsv4_topk_v2_transform_ragged(
    const dsv4_tensor* scores, const dsv4_tensor* seq_lens, const dsv4_tensor* out_offsets,
    const dsv4_tensor* row_starts, dsv4_tensor* out_indices, void* stream, int32_t validate,
    dsv4_message* msg) {
  const char* E = "topk_v2_transform_ragged";
  if (dsv4_result e = check_tensor(E, scores, scores_rule("scores"), msg); e != DSV4_OK) return e;
  const int64_t B = scores->sizes[0], L = scores->sizes[1];
  if (L > INT32_MAX || B > INT32_MAX / 16) return fail(msg, kBad, "%s: scores shape too large", E);
  if (dsv4_result e = check_tensor(E, seq_lens, vec_rule("seq_lens", B), msg); e != DSV4_OK) return e;
  if (dsv4_result e = check_tensor(E, out_offsets, vec_rule("out_offsets", B), msg); e != DSV4_OK) return e;
  if (row_starts)
    if (dsv4_result e = check_tensor(E, row_starts, vec_rule("row_starts", B), msg); e != DSV4_OK) return e;
  for (const auto& [t, nm] : {std::pair{seq_lens, "seq_lens"}, {out_offsets, "out_offsets"}, {row_starts, "row_starts"}})
    if (dsv4_result e = check_contiguous_1d(E, t, nm, msg); e != DSV4_OK) return e;
  if (dsv4_result e = check_out(E, out_indices, "out_indices", B, msg); e != DSV4_OK) return e;
  const dsv4_tensor* outs[] = {out_indices};
  const char* on[] = {"out_indices"};
  const dsv4_tensor* ins[] = {scores, seq_lens, out_offsets, row_starts};
  const char* in[] = {"scores", "seq_lens", "out_offsets", "row_starts"};
  if (dsv4_result e = check_aliasing(E, outs, on, 1, ins, in, 4, msg); e != DSV4_OK) return e;
  Sizing z;
  if (dsv4_result e = resolve_sizing(&z, msg); e != DSV4_OK) return e;
  if (z.force >= DSV4_PATH_CLUSTER8)
    return fail(msg, kBad, "%s: force_path = %d: the ragged entry has no cluster or pool path", E, z.force);
  if (validate && B > 0) {
    std::vector<int32_t> n(B), off(B), rs(B, 0);
    if (dsv4_result e = copy_i32_to_host(E, seq_lens, n.data(), stream, msg); e != DSV4_OK) return e;
    if (dsv4_result e = copy_i32_to_host(E, out_offsets, off.data(), stream, msg); e != DSV4_OK) return e;
    if (row_starts)
      if (dsv4_result e = copy_i32_to_host(E, row_starts, rs.data(), stream, msg); e != DSV4_OK) return e;
    for (int64_t b = 0; b < B; ++b) {
      const long long bb = b;
      if (n[b] < 0) return fail(msg, kBad, "%s: seq_lens[%lld] = %d violates seq_lens >= 0", E, bb, n[b]);
      if (int64_t{rs[b]} + n[b] > L)
        return fail(msg, kBad, "%s: seq_lens[%lld] = %d violates row_starts + seq_lens <= L = %lld (row_starts = %d)",
                    E, bb, n[b], (long long)L, rs[b]);
      if (rs[b] < 0) return fail(msg, kBad, "%s: row_starts[%lld] = %d violates row_starts >= 0", E, bb, rs[b]);
      if (off[b] < 0) return fail(msg, kBad, "%s: out_offsets[%lld] = %d violates out_offsets >= 0", E, bb, off[b]);
      if (int64_t{off[b]} + n[b] - 1 > INT32_MAX)
        return fail(msg, kBad, "%s: out_offsets[%lld] = %d violates out_offsets + seq_lens - 1 <= INT32_MAX", E, bb, off[b]);
    }
  }
  if (B == 0) return ok(msg);
  Args a = common_args(scores, seq_lens, out_indices, z);
  a.out_offsets = static_cast<const int*>(out_offsets->data);
  a.row_starts = row_starts ? static_cast<const int*>(row_starts->data) : nullptr;
  const Decision d = decide(z, B, L, true);
  a.floor = d.floor;
  if (dsv4_result e = finish_args(&a, msg); e != DSV4_OK) return e;
  if (dsv4_result e = launch_transform(a, d, stream, msg); e != DSV4_OK) return e;
  set_row_path_rows(B);
  return ok(msg);
}

}  // extern "C"
