// harness/impl.hpp -- the implementation under test: a dsv4 ABI function table (the ONE door).
//
// Sources of a table:
//   - a plugin .so, loaded with dlopen/dlsym (`--impl PATH.so`, env DSV4_IMPL). Required symbols:
//     dsv4_abi_version, dsv4_query_capabilities; every other one is optional (= capability).
//   - "ours-simt": our kernels compiled for the host (target dsv4_kernels_simt), linked into the
//     harness as a whole archive. CHOICE: the table is built from the symbols' DIRECT ADDRESSES,
//     declared weak (impl_builtin.cpp), so a family not built yet is simply absent, no -rdynamic
//     or dlsym(RTLD_DEFAULT) is needed, and a plugin .so loaded next to it can never interpose.
//   - "ours-cuda": the CUDA plugin .so whose path is baked in at build time
//     (DSV4_OURS_CUDA_PLUGIN=$<TARGET_FILE:dsv4_ours_cuda>).
//   - a table built in code (tests: fake plugins that misbehave on purpose).
// Selection (select_impl): "ours" (default) = ours-cuda when that plugin exists and a GPU is
// present (DSV4_BACKEND=auto|cuda), else ours-simt (DSV4_BACKEND=simt forces it).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "dsv4/indexer_abi.h"

namespace dsv4::harness {

struct ImplTable {
  dsv4_abi_version_fn abi_version = nullptr;
  dsv4_query_capabilities_fn query_capabilities = nullptr;
  dsv4_set_config_fn set_config = nullptr;
  dsv4_check_status_fn check_status = nullptr;
  dsv4_read_row_paths_fn read_row_paths = nullptr;
  dsv4_topk_v2_plan_fn topk_v2_plan = nullptr;
  dsv4_topk_v2_plan_is_written_fn topk_v2_plan_is_written = nullptr;
  dsv4_topk_v2_transform_paged_fn topk_v2_transform_paged = nullptr;
  dsv4_topk_v2_transform_ragged_fn topk_v2_transform_ragged = nullptr;
  dsv4_topk_bf16_small_transform_fn topk_bf16_small_transform = nullptr;
  dsv4_amax8_varlen_fn amax8_varlen = nullptr;
  dsv4_sort_candidate_blocks_fn sort_candidate_blocks = nullptr;
  dsv4_get_max_active_clusters_fn get_max_active_clusters = nullptr;
};

struct ImplError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Impl {
 public:
  // Validates the ABI version and queries capabilities; throws ImplError (one clear line).
  static std::shared_ptr<Impl> from_table(const ImplTable& t, std::string origin);
  static std::shared_ptr<Impl> load_plugin(const std::string& path);  // dlopen + dlsym
  static std::shared_ptr<Impl> ours_simt();                           // statically linked kernels
  ~Impl();

  const ImplTable& fn() const { return t_; }
  const dsv4_capabilities& caps() const { return caps_; }
  const std::string& origin() const { return origin_; }  // path or "builtin:ours-simt"
  uint32_t abi_version() const { return abi_; }
  bool host_memory() const { return caps_.memory_space == DSV4_MEMORY_HOST; }
  std::string describe() const;  // "name version (origin, ABI v1, host|cuda memory)"

 private:
  Impl() = default;
  ImplTable t_;
  dsv4_capabilities caps_{};
  std::string origin_;
  uint32_t abi_ = 0;
  void* handle_ = nullptr;  // dlopen handle (kept open for the process lifetime)
};

// spec: "" or "ours" (default rule above), "ours-simt", "ours-cuda", or a path to a .so.
// `backend`: "auto" | "cuda" | "simt" ("" = env DSV4_BACKEND or auto).
std::shared_ptr<Impl> select_impl(const std::string& spec, const std::string& backend = "");
// spec from the environment (DSV4_IMPL, default "ours").
std::shared_ptr<Impl> select_impl_from_env();

// True when the CUDA runtime reports at least one device (false without driver / without CUDA).
bool gpu_present();
std::string gpu_name();  // "" when none
// Path of the CUDA plugin baked in at build time ("" when none was built).
std::string ours_cuda_plugin_path();

}  // namespace dsv4::harness
