// kernels/common/capabilities.cu -- what OUR implementation declares through the ABI.
#include <cstdio>
#include <cstring>

#include "kernels/common/validate.hpp"
#include "simt/portable.h"

#ifndef DSV4_TOPK_BLOCK_THREADS
#error "DSV4_TOPK_BLOCK_THREADS must be set by the build (1024 on the GPU)"
#endif
#ifndef DSV4_BF16_BLOCK_THREADS
#error "DSV4_BF16_BLOCK_THREADS must be set by the build (512 on the GPU)"
#endif
#ifndef DSV4_CANDIDATE_CAPACITY
#define DSV4_CANDIDATE_CAPACITY 262144
#endif

extern "C" DSV4_EXPORT dsv4_result dsv4_query_capabilities(dsv4_capabilities* caps,
                                                           dsv4_message* msg) {
  using namespace dsv4::ours;
  if (!caps) return fail(msg, DSV4_ERR_INVALID_ARGUMENT, "dsv4_query_capabilities: caps is NULL");
  std::memset(caps, 0, sizeof *caps);
  caps->struct_size = sizeof *caps;
#if SIMT_IS_HOST_EMULATION
  std::snprintf(caps->name, sizeof caps->name, "dsv4-ours-simt");
  caps->memory_space = DSV4_MEMORY_HOST;
#else
  std::snprintf(caps->name, sizeof caps->name, "dsv4-ours-cuda");
  caps->memory_space = DSV4_MEMORY_CUDA_DEVICE;
#endif
  std::snprintf(caps->version, sizeof caps->version, "0.1.0 (topk %d thr, bf16 %d thr)",
                DSV4_TOPK_BLOCK_THREADS, DSV4_BF16_BLOCK_THREADS);
  caps->entries = DSV4_ENTRY_TOPK_V2_PLAN | DSV4_ENTRY_TOPK_V2_PLAN_IS_WRITTEN |
                  DSV4_ENTRY_TOPK_V2_PAGED | DSV4_ENTRY_TOPK_V2_RAGGED |
                  DSV4_ENTRY_TOPK_BF16_SMALL | DSV4_ENTRY_AMAX8_VARLEN |
                  DSV4_ENTRY_SORT_CANDIDATE_BLOCKS | DSV4_ENTRY_MAX_ACTIVE_CLUSTERS |
                  DSV4_ENTRY_CHECK_STATUS;
  caps->topk_v2_modes = DSV4_MODE_INDICES | DSV4_MODE_PAGE_TABLE | DSV4_MODE_DUAL;
  caps->paths = DSV4_PATH_BIT(DSV4_PATH_TRIVIAL) | DSV4_PATH_BIT(DSV4_PATH_REGISTER2) |
                DSV4_PATH_BIT(DSV4_PATH_REGISTER4) | DSV4_PATH_BIT(DSV4_PATH_STREAMING) |
                DSV4_PATH_BIT(DSV4_PATH_CLUSTER8) | DSV4_PATH_BIT(DSV4_PATH_CLUSTER16) |
                DSV4_PATH_BIT(DSV4_PATH_POOL) | DSV4_PATH_BIT(DSV4_PATH_CLUSTER4) |
                DSV4_PATH_BIT(DSV4_PATH_CLUSTER2);
  caps->can_force_path = 1;
  caps->nan_supported = 1;
  caps->writes_ragged_head = 0;
  caps->has_tunables = 1;
  caps->has_row_path_report = 1;
  caps->block_threads = DSV4_TOPK_BLOCK_THREADS;
  caps->bf16_block_threads = DSV4_BF16_BLOCK_THREADS;
  caps->k_max = 2048;
  caps->page_size_max = 1 << 30;
  caps->bf16_len_max = DSV4_BF16_BLOCK_THREADS * 32;
  caps->candidate_capacity = DSV4_CANDIDATE_CAPACITY;
  return ok(msg);
}
