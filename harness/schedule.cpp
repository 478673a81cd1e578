// harness/schedule.cpp -- hand the case's CPU schedule to the simt emulator.
// Built-in ours-simt (same process): simt::set_schedule_from_string, directly. Host-memory plugins
// (their own copy of simt): env SIMT_SCHED, which simt reads as its default (best effort: a plugin
// that already started may have read it).
#include <cstdlib>
#include <string>

#include "runner_detail.hpp"

#ifdef DSV4_HARNESS_HAS_SIMT
#include "simt/host/control.hpp"
#endif

namespace dsv4::harness::detail {

std::string schedule_text(const Schedule& s) {
  switch (s.policy) {
    case 1: return "random:" + std::to_string(s.seed);
    case 2: return "pct:" + std::to_string(s.seed);
    default: return "rr";
  }
}

void apply_schedule(const Impl& impl, const Schedule& s) {
  if (!impl.host_memory()) return;
  const std::string text = schedule_text(s);
#ifdef DSV4_HARNESS_HAS_SIMT
  if (impl.origin() == "builtin:ours-simt") {
    simt::set_schedule_from_string(text);
    return;
  }
#endif
  setenv("SIMT_SCHED", text.c_str(), 1);
}

}  // namespace dsv4::harness::detail
