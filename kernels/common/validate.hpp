// kernels/common/validate.hpp -- host-side argument validation with clear messages.
//
// Every public entry validates metadata (both modes) and, in checked mode, per-row values after a
// host copy. Messages follow "entry: argument[row] = value violates rule". On error nothing is
// launched and nothing is written.
#pragma once
#include <cstdarg>
#include <cstdint>
#include <cstdio>

#include "dsv4/indexer_abi.h"

namespace dsv4::ours {

// Writes the message (printf-style) and returns `code`.
inline dsv4_result fail(dsv4_message* msg, dsv4_result code, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
inline dsv4_result fail(dsv4_message* msg, dsv4_result code, const char* fmt, ...) {
  if (msg) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg->text, sizeof msg->text, fmt, ap);
    va_end(ap);
  }
  return code;
}
inline dsv4_result ok(dsv4_message* msg) {
  if (msg) msg->text[0] = '\0';
  return DSV4_OK;
}

inline const char* dtype_name(int32_t d) {
  switch (d) {
    case DSV4_INT32: return "int32";
    case DSV4_FLOAT32: return "float32";
    case DSV4_BFLOAT16: return "bfloat16";
    default: return "unknown";
  }
}
inline int64_t dtype_size(int32_t d) { return d == DSV4_BFLOAT16 ? 2 : 4; }

inline bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
inline int log2_exact(int64_t v) { int b = 0; while ((int64_t{1} << b) < v) ++b; return b; }

// Shape requirements of one tensor argument.
struct TensorRule {
  const char* name;        // argument name in messages
  int32_t dtype;
  int32_t ndim;            // 1 or 2
  int64_t rows = -1;       // required sizes[0] (-1 = any)
  int64_t cols = -1;       // required sizes[1] (-1 = any, 2-D only)
  int64_t min_cols = -1;   // sizes[1] >= min_cols
  int64_t stride_multiple = 1;   // row stride % multiple == 0 (2-D)
  int64_t base_align = 4;  // base address alignment in bytes
  bool row_stride_ge_cols = true;  // stride >= cols when rows > 1
  bool allow_zero_row_stride = false;  // read-only tables may share one row (stride 0)
};

// Checks dtype, rank, sizes, column stride 1, row stride rules, base alignment, null data with
// non-zero extent. Returns DSV4_OK or DSV4_ERR_INVALID_ARGUMENT with a message.
dsv4_result check_tensor(const char* entry, const dsv4_tensor* t, const TensorRule& r,
                         dsv4_message* msg);

// Byte extent [lo, hi) touched by a tensor view (for aliasing checks); empty if numel == 0.
struct Extent { uintptr_t lo = 0, hi = 0; bool empty() const { return hi <= lo; } };
Extent extent_of(const dsv4_tensor* t);
// DSV4_ERR_INVALID_ARGUMENT if the two views overlap ("entry: a aliases b").
dsv4_result check_no_alias(const char* entry, const dsv4_tensor* a, const char* an,
                           const dsv4_tensor* b, const char* bn, dsv4_message* msg);

// Reads t->sizes[0] int32 values from device (or host, on simt) memory into `out` (checked mode).
dsv4_result copy_i32_to_host(const char* entry, const dsv4_tensor* t, int32_t* out, void* stream,
                             dsv4_message* msg);

}  // namespace dsv4::ours
