// kernels/common/status.cuh -- the library-owned device status block (spec README §4).
#pragma once
#include "simt/portable.h"
#include "dsv4/indexer_abi.h"

namespace dsv4::ours {

// Device layout of the status block. One per device, allocated on first use, cleared by
// dsv4_check_status.
struct StatusBlock {
  unsigned int code_mask;   // bit c = code c raised
  unsigned int count;       // rows / slots / ids / plan parts, per code rules
  int claimed;              // 0 until one representative record is written
  int code;
  int kernel;
  int row;
  long long value;
};

// Record a violation. `count` per README §4 (1 per row for codes 1-4/16/17, per slot for 5...).
SIMT_DEVICE void raise_status(StatusBlock* s, int code, int kernel, int row, long long value,
                              unsigned int count = 1) {
  atomicOr(&s->code_mask, 1u << code);
  atomicAdd(&s->count, count);
  if (atomicCAS(&s->claimed, 0, 1) == 0) {
    s->code = code;
    s->kernel = kernel;
    s->row = row;
    s->value = value;
  }
}

// Host side (kernels/common/status_host.cu): the block of the current device, allocated and
// zeroed on first use. Returns nullptr and fills msg on a CUDA error.
StatusBlock* status_block(dsv4_message* msg);

// Library-owned per-row path report (DSV4_PATH_* per row of the last Top-K v2 transform).
// Grows as needed; device pointer. nullptr + msg on error.
int* row_path_buffer(long long rows, dsv4_message* msg);
long long row_path_rows();          // rows written by the last transform (0 if none)
void set_row_path_rows(long long rows);

}  // namespace dsv4::ours
