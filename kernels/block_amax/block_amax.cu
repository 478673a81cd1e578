// kernels/block_amax/block_amax.cu -- host entry of amax8_varlen (spec block_amax.md §2, §5).
#include <vector>

#include "kernels/block_amax/block_amax_kernel.cuh"
#include "kernels/common/status.cuh"
#include "kernels/common/validate.hpp"
#include "simt/portable.h"

using namespace dsv4::ours;

extern "C" DSV4_EXPORT dsv4_result dsv4_amax8_varlen(const dsv4_tensor* scores,
                                                     const dsv4_tensor* seq_lens, dsv4_tensor* out,
                                                     int32_t topk, void* stream, int32_t validate,
                                                     dsv4_message* msg) {
  static const char* kEntry = "amax8_varlen";
  const auto E = DSV4_ERR_INVALID_ARGUMENT;
  dsv4_result r;

  TensorRule sr{.name = "scores", .dtype = DSV4_FLOAT32, .ndim = 2};
  sr.stride_multiple = 8;
  sr.base_align = 32;
  if ((r = check_tensor(kEntry, scores, sr, msg)) != DSV4_OK) return r;
  const int64_t B = scores->sizes[0], L = scores->sizes[1];
  if (B > 0x7FFFFFFF)
    return fail(msg, E, "%s: batch %lld exceeds INT32_MAX rows", kEntry, (long long)B);

  TensorRule lr{.name = "seq_lens", .dtype = DSV4_INT32, .ndim = 1, .rows = B};
  if ((r = check_tensor(kEntry, seq_lens, lr, msg)) != DSV4_OK) return r;

  TensorRule orl{.name = "out", .dtype = DSV4_FLOAT32, .ndim = 2, .rows = B};
  if ((r = check_tensor(kEntry, out, orl, msg)) != DSV4_OK) return r;
  const int64_t Kk = out->sizes[1];
  if (Kk <= 0)
    return fail(msg, E, "%s: out width Kk = %lld violates Kk > 0", kEntry, (long long)Kk);
  if (topk < 0)
    return fail(msg, E, "%s: topk = %d violates topk >= 0", kEntry, topk);
  if ((r = check_no_alias(kEntry, out, "out", scores, "scores", msg)) ||
      (r = check_no_alias(kEntry, out, "out", seq_lens, "seq_lens", msg)))
    return r;

  if (B == 0) return ok(msg);  // empty batch: successful no-op

  if (validate) {  // same order as the device guard: codes 1, 2, the topk skip, then 3
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
      const int64_t nk = (n + 7) / 8;
      if (nk > topk && nk > Kk)
        return fail(msg, E,
                    "%s: seq_lens[%lld] = %lld violates ceil(seq_len / 8) = %lld <= Kk = %lld",
                    kEntry, (long long)b, (long long)n, (long long)nk, (long long)Kk);
    }
  }

  StatusBlock* status = status_block(msg);
  if (!status) return DSV4_ERR_CUDA;
  amax8::Params p;
  p.scores = static_cast<const float*>(scores->data);
  p.stride = scores->strides[0];
  p.L = L;
  p.seq_lens = static_cast<const int*>(seq_lens->data);
  p.out = static_cast<float*>(out->data);
  p.out_stride = out->strides[0];
  p.Kk = Kk;
  p.topk = topk;
  p.status = status;

  int64_t gy = (Kk + amax8::kKeysPerCta - 1) / amax8::kKeysPerCta;  // clamped to Kk coverage
  if (gy > 65535) gy = 65535;  // the kernel strides over the rest
  simt::rt::LaunchConfig cfg;
  cfg.grid = {static_cast<unsigned>(B), static_cast<unsigned>(gy), 1u};
  cfg.block = {static_cast<unsigned>(amax8::kThreads), 1u, 1u};
  cfg.stream = static_cast<simt::rt::stream_t>(stream);
  cfg.pdl = true;
  const auto e = simt::rt::launch(cfg, amax8::amax8_varlen_kernel, p);
  if (e != simt::rt::kSuccess)
    return fail(msg, DSV4_ERR_CUDA, "%s: kernel launch failed: %s", kEntry,
                simt::rt::error_string(e));
  return ok(msg);
}
