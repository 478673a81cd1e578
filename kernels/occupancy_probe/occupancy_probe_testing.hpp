// kernels/occupancy_probe/occupancy_probe_testing.hpp -- test-only hooks of the occupancy probe
// (tests/kernels/indexer): forget the memoized answers, count the real device queries.
#pragma once

namespace dsv4::ours {

void probe_cache_clear_for_testing();
long long probe_device_queries_for_testing();

}  // namespace dsv4::ours
