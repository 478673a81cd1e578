// kernels/common/status_host.cu -- status block, row-path buffer, config snapshot and the
// ABI functions shared by every family (version, capabilities, config, status, row paths).
#include <cstddef>
#include <cstring>
#include <mutex>

#include "kernels/common/config.hpp"
#include "kernels/common/status.cuh"
#include "kernels/common/validate.hpp"
#include "simt/portable.h"

namespace dsv4::ours {
namespace {
std::mutex g_mu;
StatusBlock* g_status = nullptr;   // one device per process in this version
int* g_paths = nullptr;
long long g_paths_cap = 0;
long long g_paths_rows = 0;
dsv4_config g_cfg = [] {
  dsv4_config c;
  std::memset(&c, 0xff, sizeof c);  // every field -1 = default
  c.struct_size = sizeof(dsv4_config);
  c.force_path = DSV4_PATH_AUTO;
  c.early_read = 0;
  return c;
}();
unsigned g_gen = 1;
}  // namespace

StatusBlock* status_block(dsv4_message* msg) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_status) return g_status;
  void* p = nullptr;
  auto e = simt::rt::device_malloc(&p, sizeof(StatusBlock));
  if (e != simt::rt::kSuccess) {
    fail(msg, DSV4_ERR_CUDA, "status block: allocation failed: %s", simt::rt::error_string(e));
    return nullptr;
  }
  e = simt::rt::memset_async(p, 0, sizeof(StatusBlock), nullptr);
  if (e == simt::rt::kSuccess) e = simt::rt::stream_sync(nullptr);
  if (e != simt::rt::kSuccess) {
    fail(msg, DSV4_ERR_CUDA, "status block: clear failed: %s", simt::rt::error_string(e));
    return nullptr;
  }
  g_status = static_cast<StatusBlock*>(p);
  return g_status;
}

int* row_path_buffer(long long rows, dsv4_message* msg) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (rows < 1) rows = 1;
  if (rows > g_paths_cap) {
    if (g_paths) simt::rt::device_free(g_paths);
    g_paths = nullptr;
    g_paths_cap = 0;
    void* p = nullptr;
    auto e = simt::rt::device_malloc(&p, static_cast<size_t>(rows) * sizeof(int));
    if (e != simt::rt::kSuccess) {
      fail(msg, DSV4_ERR_CUDA, "row path buffer: allocation failed: %s", simt::rt::error_string(e));
      return nullptr;
    }
    g_paths = static_cast<int*>(p);
    g_paths_cap = rows;
  }
  return g_paths;
}
long long row_path_rows() { return g_paths_rows; }
void set_row_path_rows(long long rows) { g_paths_rows = rows; }

const dsv4_config& user_config() { return g_cfg; }
unsigned config_generation() { return g_gen; }
void set_user_config(const dsv4_config* cfg) {
  std::lock_guard<std::mutex> lock(g_mu);
  std::memset(&g_cfg, 0xff, sizeof g_cfg);
  g_cfg.struct_size = sizeof(dsv4_config);
  g_cfg.force_path = DSV4_PATH_AUTO;
  g_cfg.early_read = 0;
  if (cfg) {
    size_t n = cfg->struct_size < sizeof(dsv4_config) ? cfg->struct_size : sizeof(dsv4_config);
    if (n > sizeof(uint32_t))
      std::memcpy(reinterpret_cast<char*>(&g_cfg) + sizeof(uint32_t),
                  reinterpret_cast<const char*>(cfg) + sizeof(uint32_t), n - sizeof(uint32_t));
    g_cfg.struct_size = sizeof(dsv4_config);
  }
  ++g_gen;
}

}  // namespace dsv4::ours

using namespace dsv4::ours;

extern "C" {

DSV4_EXPORT uint32_t dsv4_abi_version(void) { return DSV4_ABI_VERSION; }

DSV4_EXPORT dsv4_result dsv4_set_config(const dsv4_config* cfg, dsv4_message* msg) {
  if (cfg && cfg->struct_size < sizeof(uint32_t) * 2)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "dsv4_set_config: struct_size %u too small",
                cfg->struct_size);
  if (cfg && cfg->tie_capacity > 2048)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT,
                "dsv4_set_config: tie_capacity = %d violates 0 <= tie_capacity <= 2048",
                cfg->tie_capacity);
  if (cfg && (cfg->force_path < 0 || cfg->force_path >= DSV4_PATH_COUNT || cfg->force_path == DSV4_PATH_TRIVIAL ||
              cfg->force_path == DSV4_PATH_ROW_ERROR))
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "dsv4_set_config: force_path = %d is not a forcible path",
                cfg->force_path);
  const bool has_bf16 = cfg && cfg->struct_size >= offsetof(dsv4_config, bf16_ctas_per_sm) + sizeof(int32_t);
  if (has_bf16 && cfg->bf16_ctas_per_sm > 0 && cfg->bf16_ctas_per_sm != 3 && cfg->bf16_ctas_per_sm != 4)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT,
                "dsv4_set_config: bf16_ctas_per_sm = %d violates: 3, 4, or <= 0 (by batch)",
                cfg->bf16_ctas_per_sm);
  const bool has_split = cfg && cfg->struct_size >= offsetof(dsv4_config, bf16_split_ranks) + sizeof(int32_t);
  if (has_split && cfg->bf16_split_ranks > 0 && cfg->bf16_split_ranks != 1 && cfg->bf16_split_ranks != 2 &&
      cfg->bf16_split_ranks != 4)
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT,
                "dsv4_set_config: bf16_split_ranks = %d violates: 1, 2, 4, or <= 0 (by batch)",
                cfg->bf16_split_ranks);
  set_user_config(cfg);
  return ok(msg);
}

DSV4_EXPORT dsv4_result dsv4_check_status(void* stream, dsv4_device_status* out, dsv4_message* msg) {
  if (!out) return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "dsv4_check_status: out is NULL");
  StatusBlock* s = status_block(msg);
  if (!s) return DSV4_ERR_CUDA;
  auto st = static_cast<simt::rt::stream_t>(stream);
  StatusBlock h;
  auto e = simt::rt::memcpy_d2h(&h, s, sizeof h, st);
  if (e == simt::rt::kSuccess) e = simt::rt::memset_async(s, 0, sizeof(StatusBlock), st);
  if (e == simt::rt::kSuccess) e = simt::rt::stream_sync(st);
  if (e != simt::rt::kSuccess)
    return fail(msg, DSV4_ERR_CUDA, "dsv4_check_status: %s", simt::rt::error_string(e));
  std::memset(out, 0, sizeof *out);
  out->code_mask = h.code_mask;
  out->count = h.count;
  out->code = h.claimed ? h.code : 0;
  out->kernel = h.claimed ? h.kernel : 0;
  out->row = h.claimed ? h.row : -1;
  out->value = h.claimed ? h.value : 0;
  return ok(msg);
}

DSV4_EXPORT dsv4_result dsv4_read_row_paths(void* stream, int32_t* host_paths, int64_t rows,
                                            dsv4_message* msg) {
  if (rows < 0 || (rows > 0 && !host_paths))
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "dsv4_read_row_paths: bad arguments");
  if (rows > row_path_rows())
    return fail(msg, DSV4_ERR_INVALID_ARGUMENT,
                "dsv4_read_row_paths: rows = %lld exceeds the %lld rows of the last transform",
                (long long)rows, row_path_rows());
  if (rows == 0) return ok(msg);
  int* d = row_path_buffer(rows, msg);
  if (!d) return DSV4_ERR_CUDA;
  auto e = simt::rt::memcpy_d2h(host_paths, d, static_cast<size_t>(rows) * 4,
                                static_cast<simt::rt::stream_t>(stream));
  if (e != simt::rt::kSuccess)
    return fail(msg, DSV4_ERR_CUDA, "dsv4_read_row_paths: %s", simt::rt::error_string(e));
  return ok(msg);
}

}  // extern "C"
