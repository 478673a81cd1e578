// simt/src/control.cpp -- schedule selection (API and env SIMT_SCHED), tape, switches, stats.
#include <cstdlib>
#include <string>

#include "simt/src/internal.hpp"

namespace simt::detail {

namespace {
bool env_on(const char* name) {
  const char* e = std::getenv(name);
  return e && e[0] == '1';
}
bool parse_schedule(const std::string& t, Schedule* out) {
  Schedule s;
  auto num = [](const std::string& x, uint64_t* v) {
    if (x.empty()) return false;
    char* end = nullptr;
    *v = std::strtoull(x.c_str(), &end, 0);
    return end && *end == '\0';
  };
  if (t == "rr" || t == "roundrobin") {
    s.policy = Policy::kRoundRobin;
  } else if (t.rfind("random:", 0) == 0) {
    s.policy = Policy::kRandom;
    if (!num(t.substr(7), &s.seed)) return false;
  } else if (t.rfind("pct:", 0) == 0) {
    s.policy = Policy::kPCT;
    std::string rest = t.substr(4);
    size_t colon = rest.find(':');
    uint64_t depth = 3;
    if (!num(rest.substr(0, colon), &s.seed)) return false;
    if (colon != std::string::npos && (!num(rest.substr(colon + 1), &depth) || depth < 1 || depth > 64))
      return false;
    s.pct_depth = static_cast<int>(depth);
  } else {
    return false;
  }
  *out = s;
  return true;
}
Schedule initial_schedule() {
  Schedule s;
  if (const char* e = std::getenv("SIMT_SCHED")) {
    if (!parse_schedule(e, &s)) {
      std::fprintf(stderr, "simt: bad SIMT_SCHED='%s' (want rr | random:SEED | pct:SEED[:DEPTH])\n", e);
      std::abort();
    }
  }
  return s;
}
}  // namespace

Schedule g_sched = initial_schedule();
bool g_strict = env_on("SIMT_STRICT");
bool g_quiet = env_on("SIMT_QUIET");
bool g_adv_activemask = env_on("SIMT_ADVERSARIAL_ACTIVEMASK");
bool g_dsmem_sync_check = true;
bool g_fill_garbage = true;
std::vector<uint8_t> g_tape;
size_t g_tape_pos = 0;
uint64_t g_tape_hash = 0;
uint64_t g_tape_launch = 0;

}  // namespace simt::detail

namespace simt {
using namespace detail;

void set_schedule(const Schedule& s) { g_sched = s; }
Schedule schedule() { return g_sched; }
bool set_schedule_from_string(const std::string& text) {
  Schedule s;
  if (!parse_schedule(text, &s)) return false;
  g_sched = s;
  return true;
}
std::string schedule_string() {
  switch (g_sched.policy) {
    case Policy::kRoundRobin: return "rr";
    case Policy::kRandom: return "random:" + std::to_string(g_sched.seed);
    case Policy::kPCT: return "pct:" + std::to_string(g_sched.seed) + ":" + std::to_string(g_sched.pct_depth);
    case Policy::kTape: {
      char buf[96];
      std::snprintf(buf, sizeof buf, "tape(%zu bytes, hash 0x%016llx, at %zu)", g_tape.size(),
                    static_cast<unsigned long long>(g_tape_hash), g_tape_pos);
      return buf;
    }
  }
  return "?";
}
void set_schedule_tape(const uint8_t* data, size_t size) {
  g_tape.assign(data, data + (data ? size : 0));
  g_tape_pos = 0;
  g_tape_launch = 0;
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (uint8_t b : g_tape) h = (h ^ b) * 0x100000001b3ull;
  g_tape_hash = h;
  g_sched.policy = Policy::kTape;
}
void set_strict(bool on) { g_strict = on; }
void set_adversarial_activemask(bool on) { g_adv_activemask = on; }
void set_dsmem_before_sync_check(bool on) { g_dsmem_sync_check = on; }
void set_fill_garbage(bool on) { g_fill_garbage = on; }
void set_stack_size(size_t bytes) { stack_pool().set_size(bytes); }
void set_quiet(bool on) { g_quiet = on; }
void set_max_switches(uint64_t n) { g_max_switches = n ? n : 1; }
Stats stats() { return g_stats; }
void reset_stats() { g_stats = Stats{}; }

}  // namespace simt
