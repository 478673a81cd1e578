// kernels/common/validate.cu -- host-side validation helpers (compiled for CUDA and simt).
#include "kernels/common/validate.hpp"

#include <vector>

#include "simt/portable.h"

namespace dsv4::ours {

dsv4_result check_tensor(const char* entry, const dsv4_tensor* t, const TensorRule& r,
                         dsv4_message* msg) {
  const auto E = DSV4_ERR_INVALID_ARGUMENT;
  if (t == nullptr) return fail(msg, E, "%s: %s is required (got NULL)", entry, r.name);
  if (t->dtype != r.dtype)
    return fail(msg, E, "%s: %s must be %s (got %s)", entry, r.name, dtype_name(r.dtype),
                dtype_name(t->dtype));
  if (t->ndim != r.ndim)
    return fail(msg, E, "%s: %s must be %d-D (got ndim = %d)", entry, r.name, r.ndim, t->ndim);
  const int64_t rows = t->sizes[0];
  const int64_t cols = r.ndim == 2 ? t->sizes[1] : 1;
  if (rows < 0 || cols < 0)
    return fail(msg, E, "%s: %s has a negative size [%lld, %lld]", entry, r.name,
                (long long)rows, (long long)cols);
  if (r.rows >= 0 && rows != r.rows)
    return fail(msg, E, "%s: %s must have %lld rows (got %lld)", entry, r.name,
                (long long)r.rows, (long long)rows);
  if (r.ndim == 2 && r.cols >= 0 && cols != r.cols)
    return fail(msg, E, "%s: %s must have %lld columns (got %lld)", entry, r.name,
                (long long)r.cols, (long long)cols);
  if (r.ndim == 2 && r.min_cols >= 0 && cols < r.min_cols)
    return fail(msg, E, "%s: %s must have at least %lld columns (got %lld)", entry, r.name,
                (long long)r.min_cols, (long long)cols);
  const int64_t last_stride = r.ndim == 2 ? t->strides[1] : t->strides[0];
  if (last_stride != 1 && rows * cols > 0)
    return fail(msg, E, "%s: %s must have column stride 1 (got %lld)", entry, r.name,
                (long long)last_stride);
  if (r.ndim == 2) {
    const int64_t s = t->strides[0];
    if (s < 0) return fail(msg, E, "%s: %s has a negative row stride %lld", entry, r.name, (long long)s);
    if (s == 0 && rows > 1 && !r.allow_zero_row_stride)
      return fail(msg, E, "%s: %s row stride 0 is not allowed", entry, r.name);
    if (r.stride_multiple > 1 && s % r.stride_multiple != 0)
      return fail(msg, E, "%s: %s row stride %lld must be a multiple of %lld", entry, r.name,
                  (long long)s, (long long)r.stride_multiple);
    if (r.row_stride_ge_cols && rows > 1 && s != 0 && s < cols)
      return fail(msg, E, "%s: %s row stride %lld is smaller than its width %lld", entry, r.name,
                  (long long)s, (long long)cols);
  }
  if (rows * cols > 0) {
    if (t->data == nullptr) return fail(msg, E, "%s: %s data is NULL", entry, r.name);
    const uintptr_t a = reinterpret_cast<uintptr_t>(t->data);
    if (r.base_align > 1 && a % static_cast<uintptr_t>(r.base_align) != 0)
      return fail(msg, E, "%s: %s base address %p is not %lld-byte aligned", entry, r.name,
                  t->data, (long long)r.base_align);
    if (a % static_cast<uintptr_t>(dtype_size(t->dtype)) != 0)
      return fail(msg, E, "%s: %s base address %p is misaligned for %s", entry, r.name, t->data,
                  dtype_name(t->dtype));
  }
  return DSV4_OK;
}

Extent extent_of(const dsv4_tensor* t) {
  Extent e;
  if (t == nullptr || t->data == nullptr) return e;
  const int64_t rows = t->sizes[0];
  const int64_t cols = t->ndim == 2 ? t->sizes[1] : 1;
  if (rows <= 0 || cols <= 0) return e;
  const int64_t es = dtype_size(t->dtype);
  const int64_t row_stride = t->ndim == 2 ? t->strides[0] : t->strides[0];
  const int64_t last = t->ndim == 2 ? (rows - 1) * row_stride + (cols - 1) : (rows - 1) * row_stride;
  e.lo = reinterpret_cast<uintptr_t>(t->data);
  e.hi = e.lo + static_cast<uintptr_t>((last + 1) * es);
  return e;
}

dsv4_result check_no_alias(const char* entry, const dsv4_tensor* a, const char* an,
                           const dsv4_tensor* b, const char* bn, dsv4_message* msg) {
  const Extent x = extent_of(a), y = extent_of(b);
  if (x.empty() || y.empty()) return DSV4_OK;
  if (x.lo < y.hi && y.lo < x.hi)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "%s: %s aliases %s (outputs must not overlap inputs or each other)",
                entry, an, bn);
  return DSV4_OK;
}

dsv4_result copy_i32_to_host(const char* entry, const dsv4_tensor* t, int32_t* out, void* stream,
                             dsv4_message* msg) {
  const int64_t n = t->sizes[0];
  if (n <= 0) return DSV4_OK;
  auto s = static_cast<simt::rt::stream_t>(stream);
  if (t->strides[0] == 1) {
    auto e = simt::rt::memcpy_d2h(out, t->data, static_cast<size_t>(n) * 4, s);
    if (e != simt::rt::kSuccess)
      return fail(msg, DSV4_ERR_CUDA, "%s: copying an int32 argument to the host failed: %s", entry,
                  simt::rt::error_string(e));
    return DSV4_OK;
  }
  for (int64_t i = 0; i < n; ++i) {
    auto e = simt::rt::memcpy_d2h(out + i, static_cast<const int32_t*>(t->data) + i * t->strides[0],
                                  4, s);
    if (e != simt::rt::kSuccess)
      return fail(msg, DSV4_ERR_CUDA, "%s: copying an int32 argument to the host failed: %s", entry,
                  simt::rt::error_string(e));
  }
  return DSV4_OK;
}

}  // namespace dsv4::ours
