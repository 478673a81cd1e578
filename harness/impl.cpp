// harness/impl.cpp -- loading and describing implementations (see impl.hpp).
#include "impl.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

namespace dsv4::harness {

std::shared_ptr<Impl> Impl::from_table(const ImplTable& t, std::string origin) {
  if (!t.abi_version) throw ImplError(origin + ": missing required symbol dsv4_abi_version");
  if (!t.query_capabilities) throw ImplError(origin + ": missing required symbol dsv4_query_capabilities");
  std::shared_ptr<Impl> impl(new Impl());
  impl->t_ = t;
  impl->origin_ = std::move(origin);
  impl->abi_ = t.abi_version();
  if (impl->abi_ != DSV4_ABI_VERSION)
    throw ImplError(impl->origin_ + ": ABI version " + std::to_string(impl->abi_) +
                    " but this harness speaks ABI version " + std::to_string(DSV4_ABI_VERSION));
  dsv4_message msg{};
  dsv4_capabilities caps{};
  caps.struct_size = sizeof caps;
  const dsv4_result r = t.query_capabilities(&caps, &msg);
  msg.text[DSV4_MESSAGE_CAPACITY - 1] = 0;
  if (r != DSV4_OK)
    throw ImplError(impl->origin_ + ": dsv4_query_capabilities failed (" + std::to_string(int(r)) +
                    "): " + msg.text);
  caps.name[sizeof caps.name - 1] = 0;
  caps.version[sizeof caps.version - 1] = 0;
  if (caps.memory_space != DSV4_MEMORY_HOST && caps.memory_space != DSV4_MEMORY_CUDA_DEVICE)
    throw ImplError(impl->origin_ + ": unknown memory_space " + std::to_string(caps.memory_space));
  impl->caps_ = caps;
  return impl;
}

std::shared_ptr<Impl> Impl::load_plugin(const std::string& path) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    throw ImplError(path + ": cannot load plugin: " + (e ? e : "dlopen failed"));
  }
  auto sym = [&](const char* name) { return dlsym(h, name); };
  ImplTable t;
  t.abi_version = reinterpret_cast<dsv4_abi_version_fn>(sym("dsv4_abi_version"));
  t.query_capabilities = reinterpret_cast<dsv4_query_capabilities_fn>(sym("dsv4_query_capabilities"));
  t.set_config = reinterpret_cast<dsv4_set_config_fn>(sym("dsv4_set_config"));
  t.check_status = reinterpret_cast<dsv4_check_status_fn>(sym("dsv4_check_status"));
  t.read_row_paths = reinterpret_cast<dsv4_read_row_paths_fn>(sym("dsv4_read_row_paths"));
  t.topk_v2_plan = reinterpret_cast<dsv4_topk_v2_plan_fn>(sym("dsv4_topk_v2_plan"));
  t.topk_v2_plan_is_written =
      reinterpret_cast<dsv4_topk_v2_plan_is_written_fn>(sym("dsv4_topk_v2_plan_is_written"));
  t.topk_v2_transform_paged =
      reinterpret_cast<dsv4_topk_v2_transform_paged_fn>(sym("dsv4_topk_v2_transform_paged"));
  t.topk_v2_transform_ragged =
      reinterpret_cast<dsv4_topk_v2_transform_ragged_fn>(sym("dsv4_topk_v2_transform_ragged"));
  t.topk_bf16_small_transform =
      reinterpret_cast<dsv4_topk_bf16_small_transform_fn>(sym("dsv4_topk_bf16_small_transform"));
  t.amax8_varlen = reinterpret_cast<dsv4_amax8_varlen_fn>(sym("dsv4_amax8_varlen"));
  t.sort_candidate_blocks = reinterpret_cast<dsv4_sort_candidate_blocks_fn>(sym("dsv4_sort_candidate_blocks"));
  t.get_max_active_clusters =
      reinterpret_cast<dsv4_get_max_active_clusters_fn>(sym("dsv4_get_max_active_clusters"));
  auto impl = from_table(t, path);  // throws on version / required symbols (handle stays open)
  impl->handle_ = h;
  return impl;
}

Impl::~Impl() = default;  // plugin handles stay open: kernels may keep device state alive

std::string Impl::describe() const {
  return std::string(caps_.name) + " " + caps_.version + " (" + origin_ + ", ABI v" +
         std::to_string(abi_) + ", " + (host_memory() ? "host" : "cuda") + " memory)";
}

std::string ours_cuda_plugin_path() {
#ifdef DSV4_OURS_CUDA_PLUGIN
  return DSV4_OURS_CUDA_PLUGIN;
#else
  return "";
#endif
}

std::shared_ptr<Impl> select_impl(const std::string& spec, const std::string& backend_in) {
  std::string backend = backend_in;
  if (backend.empty()) {
    const char* e = std::getenv("DSV4_BACKEND");
    backend = e && *e ? e : "auto";
  }
  if (backend != "auto" && backend != "cuda" && backend != "simt")
    throw ImplError("backend '" + backend + "' is not one of auto, cuda, simt");
  const std::string s = spec.empty() ? "ours" : spec;
  if (s == "ours-simt") return Impl::ours_simt();
  if (s == "ours-cuda") {
    const std::string p = ours_cuda_plugin_path();
    if (p.empty()) throw ImplError("ours-cuda: this harness was built without the CUDA plugin");
    return Impl::load_plugin(p);
  }
  if (s == "ours") {
    if (backend == "simt") return Impl::ours_simt();
    const std::string p = ours_cuda_plugin_path();
    const bool gpu = gpu_present();
    if (backend == "cuda") {
      if (p.empty()) throw ImplError("backend cuda: this harness was built without the CUDA plugin");
      if (!gpu) throw ImplError("backend cuda: no CUDA device present");
      return Impl::load_plugin(p);
    }
    if (!p.empty() && gpu) return Impl::load_plugin(p);
    return Impl::ours_simt();
  }
  auto impl = Impl::load_plugin(s);
  if (backend == "simt" && !impl->host_memory())
    throw ImplError(s + ": backend simt requested but the plugin uses CUDA device memory");
  if (backend == "cuda" && impl->host_memory())
    throw ImplError(s + ": backend cuda requested but the plugin uses host memory");
  return impl;
}

std::shared_ptr<Impl> select_impl_from_env() {
  const char* e = std::getenv("DSV4_IMPL");
  return select_impl(e && *e ? e : "ours");
}

}  // namespace dsv4::harness
