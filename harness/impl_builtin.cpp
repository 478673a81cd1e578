// harness/impl_builtin.cpp -- the built-in "ours-simt" table: direct addresses of the dsv4_*
// symbols of the statically linked dsv4_kernels_simt archive, declared WEAK so that an entry not
// built yet (or a harness built without the kernels) yields a null pointer = capability absent.
#include "impl.hpp"

#pragma weak dsv4_abi_version
#pragma weak dsv4_query_capabilities
#pragma weak dsv4_set_config
#pragma weak dsv4_check_status
#pragma weak dsv4_read_row_paths
#pragma weak dsv4_topk_v2_plan
#pragma weak dsv4_topk_v2_plan_is_written
#pragma weak dsv4_topk_v2_transform_paged
#pragma weak dsv4_topk_v2_transform_ragged
#pragma weak dsv4_topk_bf16_small_transform
#pragma weak dsv4_amax8_varlen
#pragma weak dsv4_sort_candidate_blocks
#pragma weak dsv4_get_max_active_clusters

namespace dsv4::harness {

std::shared_ptr<Impl> Impl::ours_simt() {
  ImplTable t;
  t.abi_version = &dsv4_abi_version;
  t.query_capabilities = &dsv4_query_capabilities;
  t.set_config = &dsv4_set_config;
  t.check_status = &dsv4_check_status;
  t.read_row_paths = &dsv4_read_row_paths;
  t.topk_v2_plan = &dsv4_topk_v2_plan;
  t.topk_v2_plan_is_written = &dsv4_topk_v2_plan_is_written;
  t.topk_v2_transform_paged = &dsv4_topk_v2_transform_paged;
  t.topk_v2_transform_ragged = &dsv4_topk_v2_transform_ragged;
  t.topk_bf16_small_transform = &dsv4_topk_bf16_small_transform;
  t.amax8_varlen = &dsv4_amax8_varlen;
  t.sort_candidate_blocks = &dsv4_sort_candidate_blocks;
  t.get_max_active_clusters = &dsv4_get_max_active_clusters;
  if (!t.abi_version)
    throw ImplError("builtin:ours-simt: the simt kernels (target dsv4_kernels_simt) are not linked "
                    "into this binary");
  return from_table(t, "builtin:ours-simt");
}

}  // namespace dsv4::harness
