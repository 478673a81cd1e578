// kernels/topk_bf16_small/topk_bf16_small.cu -- host entry of the bf16 small-row top-k
// (spec topk_bf16_small.md §2, §5): validation, B = 0 no-op, launch.
#include <vector>

#include "kernels/common/config.hpp"
#include "kernels/common/status.cuh"
#include "kernels/common/validate.hpp"
#include "kernels/topk_bf16_small/topk_bf16_small_kernel.cuh"
#include "kernels/topk_bf16_small/topk_bf16_small_split.cuh"
#include "simt/portable.h"

using namespace dsv4::ours;

extern "C" DSV4_EXPORT dsv4_result dsv4_topk_bf16_small_transform(
    const dsv4_tensor* scores, const dsv4_tensor* seq_lens, const dsv4_tensor* page_table,
    dsv4_tensor* out_page_indices, int64_t page_size, void* stream, int32_t validate,
    dsv4_message* msg) {
  static const char* kEntry = "topk_bf16_small_transform";
  const auto E = DSV4_ERR_INVALID_ARGUMENT;
  dsv4_result r;

  TensorRule sr{.name = "scores", .dtype = DSV4_BFLOAT16, .ndim = 2};
  sr.stride_multiple = 8;
  sr.base_align = 16;
  if ((r = check_tensor(kEntry, scores, sr, msg)) != DSV4_OK) return r;
  const int64_t B = scores->sizes[0], L = scores->sizes[1];
  if (L > bf16::kRowCapacity)
    return fail(msg, E, "%s: scores width L = %lld violates L <= %d (threads %d x 32)", kEntry,
                (long long)L, bf16::kRowCapacity, bf16::kThreads);
  if (B > 0x7FFFFFFF)
    return fail(msg, E, "%s: batch %lld exceeds INT32_MAX rows", kEntry, (long long)B);

  TensorRule lr{.name = "seq_lens", .dtype = DSV4_INT32, .ndim = 1, .rows = B};
  if ((r = check_tensor(kEntry, seq_lens, lr, msg)) != DSV4_OK) return r;

  TensorRule tr{.name = "page_table", .dtype = DSV4_INT32, .ndim = 2, .rows = B};
  tr.row_stride_ge_cols = false;
  tr.allow_zero_row_stride = true;
  if ((r = check_tensor(kEntry, page_table, tr, msg)) != DSV4_OK) return r;
  const int64_t W = page_table->sizes[1];

  TensorRule outr{.name = "out_page_indices", .dtype = DSV4_INT32, .ndim = 2, .rows = B};
  if ((r = check_tensor(kEntry, out_page_indices, outr, msg)) != DSV4_OK) return r;
  const int64_t k = out_page_indices->sizes[1];
  if (k <= 0 || k > bf16::kMaxK)
    return fail(msg, E, "%s: k = out_page_indices width = %lld violates 0 < k <= %d", kEntry,
                (long long)k, bf16::kMaxK);
  if (page_size < 1 || page_size > (int64_t{1} << 30) || !is_pow2(page_size))
    return fail(msg, E, "%s: page_size = %lld violates: power of two in [1, 2^30]", kEntry,
                (long long)page_size);
  if ((r = check_no_alias(kEntry, out_page_indices, "out_page_indices", scores, "scores", msg)) ||
      (r = check_no_alias(kEntry, out_page_indices, "out_page_indices", seq_lens, "seq_lens", msg)) ||
      (r = check_no_alias(kEntry, out_page_indices, "out_page_indices", page_table, "page_table", msg)))
    return r;
  const int page_bits = log2_exact(page_size);

  if (B == 0) return ok(msg);  // empty batch: successful no-op, nothing launched

  if (validate) {
    std::vector<int32_t> h(static_cast<size_t>(B));
    if ((r = copy_i32_to_host(kEntry, seq_lens, h.data(), stream, msg)) != DSV4_OK) return r;
    for (int64_t b = 0; b < B; ++b) {
      const int64_t n = h[b];
      if (n < 0)
        return fail(msg, E, "%s: seq_lens[%lld] = %lld violates 0 <= seq_len", kEntry,
                    (long long)b, (long long)n);
      if (n > L)
        return fail(msg, E, "%s: seq_lens[%lld] = %lld violates seq_len <= L = %lld", kEntry,
                    (long long)b, (long long)n, (long long)L);
      const int64_t need = (n + page_size - 1) >> page_bits;
      if (W < need)
        return fail(msg, E,
                    "%s: page_table width W = %lld violates W >= ceil(seq_lens[%lld] / page_size) "
                    "= %lld (seq_len %lld, page_size %lld)",
                    kEntry, (long long)W, (long long)b, (long long)need, (long long)n,
                    (long long)page_size);
    }
  }

  StatusBlock* status = status_block(msg);
  if (!status) return DSV4_ERR_CUDA;
  bf16::Params p;
  p.scores = static_cast<const uint16_t*>(scores->data);
  p.score_stride = scores->strides[0];
  p.L = L;
  p.seq_lens = static_cast<const int*>(seq_lens->data);
  p.table = static_cast<const int*>(page_table->data);
  p.table_stride = page_table->strides[0];
  p.W = W;
  p.out = static_cast<int*>(out_page_indices->data);
  p.out_stride = out_page_indices->strides[0];
  p.k = static_cast<int>(k);
  p.page_bits = page_bits;
  p.status = status;

  // the kernel: the split over a cluster (bf16::split_ranks_for) or the one-CTA instantiation
  // (bf16::ctas_per_sm_for), by the batch and the SM count, or as the configuration forces them
  // (bf16_split_ranks; bf16_ctas_per_sm, which alone forced means one CTA a row)
  const dsv4_config& uc = user_config();
  const int forced = uc.bf16_ctas_per_sm;
  const bool ctas_forced = forced == bf16::kMinCtasPerSm || forced == bf16::kWideCtasPerSm;
  const int split_forced = ctas_forced && uc.bf16_split_ranks != 2 && uc.bf16_split_ranks != 4 ? 1 : uc.bf16_split_ranks;
  const bool split_by_batch = DSV4_BF16_SPLIT && split_forced != 1 && split_forced != 2 && split_forced != 4;
  int sms = 0;
  if ((DSV4_BF16_WIDE_AUTO && !ctas_forced && B > 3) || split_by_batch) {
    simt::rt::DeviceProps dp;
    const auto de = simt::rt::device_props(&dp);
    if (de != simt::rt::kSuccess)
      return fail(msg, DSV4_ERR_CUDA, "%s: device query failed: %s", kEntry, simt::rt::error_string(de));
    sms = dp.sm_count;
  }
  int split = bf16::split_ranks_for(B, sms, split_forced);
  if (B * split > 0x7FFFFFFF) split = 1;  // the grid's x limit
  const int ctas = bf16::ctas_per_sm_for(B, sms, forced);

  simt::rt::LaunchConfig cfg;
  cfg.grid = {static_cast<unsigned>(B * split), 1u, 1u};
  cfg.block = {static_cast<unsigned>(bf16::kThreads), 1u, 1u};
  cfg.cluster = {static_cast<unsigned>(split), 1u, 1u};
  cfg.stream = static_cast<simt::rt::stream_t>(stream);
  cfg.pdl = true;
  simt::rt::error_t e;
  if (split == 4 && bf16::kVecsPerThread % 4 == 0)
    e = simt::rt::launch(cfg, bf16::topk_bf16_split_kernel<bf16::kVecsPerThread % 4 == 0 ? 4 : 2>, p);
  else if (split == 2)
    e = simt::rt::launch(cfg, bf16::topk_bf16_split_kernel<2>, p);
  else if (ctas == bf16::kWideCtasPerSm)
    e = simt::rt::launch(cfg, bf16::topk_bf16_small_kernel<bf16::kWideCtasPerSm>, p);
  else
    e = simt::rt::launch(cfg, bf16::topk_bf16_small_kernel<bf16::kMinCtasPerSm>, p);
  if (e != simt::rt::kSuccess)
    return fail(msg, DSV4_ERR_CUDA, "%s: kernel launch failed: %s", kEntry,
                simt::rt::error_string(e));
  return ok(msg);
}
