// tests/simt/race_test.cpp -- race flavour: planted shared-memory races are reported naming
// both threads on every schedule; the correct twins run clean (no false positives).
#include <cstdio>
#include <string>
#include <vector>

#include "simt/host/control.hpp"
#include "simt/host/rt.hpp"

int race_launch(const char* name, bool bug, int* out);

int main() {
  simt::set_quiet(true);
  struct Case {
    const char* name;
    const char* expect;  // substring of the report for the buggy twin ("" = no buggy twin)
  } cases[] = {{"neighbour", "shared-memory data race"},
               {"war_hazard", "shared-memory data race"},
               {"warp_exchange", "shared-memory data race"},
               {"warp_reduce_order", "shared-memory data race"},
               {"warp_reread", "shared-memory data race"},
               {"shared_atomics", ""},
               {"cluster_exchange", "cluster shared-memory"},
               {"cluster_overwrite", "shared-memory data race"},
               {"mbox_read", "shared-memory data race"},
               {"mbox_read_in_flight", "not yet applied"},
               {"mbox_waiter_then_barrier", "shared-memory data race"},
               {"mbox_remote_kind0", "shared-memory data race"},
               {"mbox_remote_kind1", "shared-memory data race"},
               {"mbox_own_kind1", "shared-memory data race"},
               {"mbox_reserve", "shared-memory data race"},
               {"mbox_rounds", "shared-memory data race"},
               {"mbox_applied_local", "which this thread has not waited on"},
               {"mbox_applied_remote", "which this thread has not waited on"}};
  const char* scheds[] = {"rr", "random:1", "random:2", "pct:3:3", "pct:4:1"};
  int failures = 0;
  std::vector<int> out(4 * 64);
  for (const Case& c : cases) {
    for (const char* s : scheds) {
      simt::set_schedule_from_string(s);
      int e = race_launch(c.name, false, out.data());
      if (e != 0) {
        std::fprintf(stderr, "FAIL %s (correct) under %s: false positive\n%s", c.name, s, simt::last_report().c_str());
        ++failures;
      }
      if (!*c.expect) continue;
      e = race_launch(c.name, true, out.data());
      const std::string r = simt::last_report();
      const bool both_threads = r.find("conflicts with") != std::string::npos || *c.expect == 'c';
      if (e == 0 || r.find(c.expect) == std::string::npos || !both_threads ||
          (*c.expect != 'c' && r.find("race_kernels.cpp:") == std::string::npos)) {
        std::fprintf(stderr, "FAIL %s (buggy) under %s: not reported as '%s'\n%s", c.name, s, c.expect, r.c_str());
        ++failures;
      }
    }
  }
  // PDL rule (strict mode): device memory read before SIMT_PDL_WAIT().
  simt::set_schedule_from_string("rr");
  simt::set_strict(true);
  void* dev = nullptr;
  simt::rt::device_malloc(&dev, 64 * sizeof(int));
  simt::rt::memset_async(dev, 0, 64 * sizeof(int), nullptr);
  if (race_launch("pdl_consumer", false, static_cast<int*>(dev)) != 0) {
    std::fprintf(stderr, "FAIL pdl_consumer (correct): %s", simt::last_report().c_str());
    ++failures;
  }
  if (race_launch("pdl_consumer", true, static_cast<int*>(dev)) == 0 ||
      simt::last_report().find("before SIMT_PDL_WAIT") == std::string::npos ||
      simt::last_report().find("race_kernels.cpp:") == std::string::npos) {
    std::fprintf(stderr, "FAIL pdl_consumer (buggy) not reported: %s", simt::last_report().c_str());
    ++failures;
  }
  simt::set_strict(false);
  simt::rt::device_free(dev);
  simt::set_schedule_from_string("rr");
  for (const char* n : {"neighbour", "mbox_read", "mbox_waiter_then_barrier", "mbox_remote_kind1"}) {
    race_launch(n, true, out.data());
    std::printf("example report (%s):\n%s", n, simt::last_report().c_str());
  }
  std::printf("race flavour: %s\n", failures ? "FAIL" : "ok");
  return failures ? 1 : 0;
}
