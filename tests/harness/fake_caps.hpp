// tests/harness/fake_caps.hpp -- the capabilities both fake plugins report (fake_plugin.cpp, host
// memory; fake_cuda_plugin.cu, CUDA memory): the paged Top-K v2 entry in INDICES / PAGE_TABLE mode
// and check_status. Header-only: the CUDA fake is built standalone by nvcc.
#pragma once
#include <cstring>

#include "dsv4/indexer_abi.h"

inline void fill_fake_caps(dsv4_capabilities* caps, const char* name, const char* version,
                           int32_t memory_space) {
  std::memset(caps, 0, sizeof *caps);
  caps->struct_size = sizeof *caps;
  std::strcpy(caps->name, name);
  std::strcpy(caps->version, version);
  caps->memory_space = memory_space;
  caps->entries = DSV4_ENTRY_TOPK_V2_PAGED | DSV4_ENTRY_CHECK_STATUS;
  caps->topk_v2_modes = DSV4_MODE_INDICES | DSV4_MODE_PAGE_TABLE;
  caps->nan_supported = 1;
  caps->k_max = 2048;
  caps->page_size_max = 1 << 30;
}
