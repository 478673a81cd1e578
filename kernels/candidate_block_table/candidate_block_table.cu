// kernels/candidate_block_table/candidate_block_table.cu -- host entry of sort_candidate_blocks
// (spec candidate_block_table.md §2, §5, §7): validation, bitmap variant choice, launch.
#include <vector>

#include "kernels/candidate_block_table/candidate_block_table_kernel.cuh"
#include "kernels/common/status.cuh"
#include "kernels/common/validate.hpp"
#include "simt/portable.h"

using namespace dsv4::ours;

extern "C" DSV4_EXPORT dsv4_result dsv4_sort_candidate_blocks(
    dsv4_tensor* blocks, const dsv4_tensor* seq_lens, const dsv4_tensor* page_table,
    int64_t page_size, dsv4_tensor* out_pages, void* stream, int32_t validate, dsv4_message* msg) {
  static const char* kEntry = "sort_candidate_blocks";
  const auto E = DSV4_ERR_INVALID_ARGUMENT;
  dsv4_result r;

  TensorRule br{.name = "blocks", .dtype = DSV4_INT32, .ndim = 2};
  if ((r = check_tensor(kEntry, blocks, br, msg)) != DSV4_OK) return r;
  const int64_t B = blocks->sizes[0], K = blocks->sizes[1];
  if (K <= 0 || K > cand::kMaxK)
    return fail(msg, E, "%s: K = blocks width = %lld violates 0 < K <= %d", kEntry, (long long)K,
                cand::kMaxK);
  if (B > 0x7FFFFFFF)
    return fail(msg, E, "%s: batch %lld exceeds INT32_MAX rows", kEntry, (long long)B);

  TensorRule lr{.name = "seq_lens", .dtype = DSV4_INT32, .ndim = 1, .rows = B};
  if ((r = check_tensor(kEntry, seq_lens, lr, msg)) != DSV4_OK) return r;

  TensorRule tr{.name = "page_table", .dtype = DSV4_INT32, .ndim = 2, .rows = B};
  tr.row_stride_ge_cols = false;
  tr.allow_zero_row_stride = true;
  if ((r = check_tensor(kEntry, page_table, tr, msg)) != DSV4_OK) return r;
  const int64_t W = page_table->sizes[1];

  TensorRule orl{.name = "out_pages", .dtype = DSV4_INT32, .ndim = 2, .rows = B, .cols = K};
  if ((r = check_tensor(kEntry, out_pages, orl, msg)) != DSV4_OK) return r;

  if (page_size < 8 || page_size > (int64_t{1} << 30) || !is_pow2(page_size))
    return fail(msg, E, "%s: page_size = %lld violates: power of two, 8 <= page_size <= 2^30",
                kEntry, (long long)page_size);
  const int64_t bpp = page_size / 8;
  const int page_bits = log2_exact(bpp);
  if (W > (int64_t{1} << 40) || W * bpp > cand::capacity<8>())
    return fail(msg, E,
                "%s: page_table covers W * page_size / 8 = %lld blocks, above the largest bitmap "
                "capacity %lld (W = %lld, page_size = %lld)",
                kEntry, (long long)(W * bpp), (long long)cand::capacity<8>(), (long long)W,
                (long long)page_size);
  if ((r = check_no_alias(kEntry, out_pages, "out_pages", blocks, "blocks", msg)) ||
      (r = check_no_alias(kEntry, out_pages, "out_pages", seq_lens, "seq_lens", msg)) ||
      (r = check_no_alias(kEntry, out_pages, "out_pages", page_table, "page_table", msg)) ||
      (r = check_no_alias(kEntry, blocks, "blocks", seq_lens, "seq_lens", msg)) ||
      (r = check_no_alias(kEntry, blocks, "blocks", page_table, "page_table", msg)))
    return r;

  if (B == 0) return ok(msg);  // empty batch: successful no-op

  if (validate) {
    std::vector<int32_t> h(static_cast<size_t>(B));
    if ((r = copy_i32_to_host(kEntry, seq_lens, h.data(), stream, msg)) != DSV4_OK) return r;
    for (int64_t b = 0; b < B; ++b) {
      const int64_t n = h[b];
      if (n < 0)
        return fail(msg, E, "%s: seq_lens[%lld] = %lld violates 0 <= seq_len", kEntry,
                    (long long)b, (long long)n);
      const int64_t nb = (n + 7) / 8;
      const int64_t need = (nb + bpp - 1) / bpp;
      if (W < need)
        return fail(msg, E,
                    "%s: page_table width W = %lld violates W >= ceil(nb / (page_size / 8)) = "
                    "%lld for seq_lens[%lld] = %lld (nb = %lld blocks, page_size %lld)",
                    kEntry, (long long)W, (long long)need, (long long)b, (long long)n,
                    (long long)nb, (long long)page_size);
    }
  }

  StatusBlock* status = status_block(msg);
  if (!status) return DSV4_ERR_CUDA;
  cand::Params p;
  p.blocks = static_cast<int*>(blocks->data);
  p.blocks_stride = blocks->strides[0];
  p.K = static_cast<int>(K);
  p.seq_lens = static_cast<const int*>(seq_lens->data);
  p.table = static_cast<const int*>(page_table->data);
  p.table_stride = page_table->strides[0];
  p.W = W;
  p.page_bits = page_bits;
  p.entry_max = 0x7FFFFFFF >> log2_exact(page_size);
  p.out = static_cast<int*>(out_pages->data);
  p.out_stride = out_pages->strides[0];
  p.status = status;

  simt::rt::LaunchConfig cfg;
  cfg.grid = {static_cast<unsigned>(B), 1u, 1u};
  cfg.block = {static_cast<unsigned>(cand::kThreads), 1u, 1u};
  cfg.stream = static_cast<simt::rt::stream_t>(stream);
  cfg.pdl = true;
  // Upstream rule (§5): the 8-word (2M-token) variant when the table covers more than 131072.
  const bool wide = W * bpp > cand::capacity<4>();
  const auto e = wide ? simt::rt::launch(cfg, cand::sort_candidate_blocks_kernel<8>, p)
                      : simt::rt::launch(cfg, cand::sort_candidate_blocks_kernel<4>, p);
  if (e != simt::rt::kSuccess)
    return fail(msg, DSV4_ERR_CUDA, "%s: kernel launch failed: %s", kEntry,
                simt::rt::error_string(e));
  return ok(msg);
}
