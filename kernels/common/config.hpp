// kernels/common/config.hpp -- the per-device configuration snapshot (tunables, forced path,
// probe injections). Set by dsv4_set_config between cases; read by the plan and the transforms.
#pragma once
#include "dsv4/indexer_abi.h"

namespace dsv4::ours {

// User-requested configuration (fields < 0 = default), as last given to dsv4_set_config.
const dsv4_config& user_config();
void set_user_config(const dsv4_config* cfg);   // nullptr = all defaults
// Bumped on every set_user_config; consumers cache resolved values per (device, generation).
unsigned config_generation();

inline int or_default(int v, int d) { return v < 0 ? d : v; }

}  // namespace dsv4::ours
