// simt/host/control.hpp -- emulator controls for tests, fuzzers and tools: schedule policy,
// schedule tape, reports, strictness, stack size, statistics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace simt {

enum class Policy { kRoundRobin, kRandom, kPCT, kTape };
struct Schedule {
  Policy policy = Policy::kRoundRobin;
  uint64_t seed = 0;
  int pct_depth = 3;
};
// Default comes from env SIMT_SCHED ("rr", "random:SEED", "pct:SEED:DEPTH"), else round-robin.
void set_schedule(const Schedule& s);
Schedule schedule();
// Parses "rr" | "random:SEED" | "pct:SEED[:DEPTH]"; false (and nothing changed) on bad text.
bool set_schedule_from_string(const std::string& text);
std::string schedule_string();
// Tape policy: each scheduling decision with >1 runnable thread consumes one byte
// (choice = byte % runnable); when exhausted, a PRNG seeded from the tape's hash continues.
// The bytes are copied. Also selects Policy::kTape.
void set_schedule_tape(const uint8_t* data, size_t size);

// The full text of the last kernel error report ("" if the last launch was clean).
std::string last_report();
// abort() on the first report instead of failing the launch (also env SIMT_ABORT_ON_REPORT=1).
void set_abort_on_report(bool on);
// Strict mode (env SIMT_STRICT=1): mismatched __syncthreads call sites, shuffle widths that are
// not powers of two, and (race flavour only) device memory accessed before SIMT_PDL_WAIT().
void set_strict(bool on);
// __activemask() returns a random subset containing the caller (env SIMT_ADVERSARIAL_ACTIVEMASK=1).
void set_adversarial_activemask(bool on);
// Report a DSMEM access (map_shared_rank) before the caller's first completed cluster barrier.
void set_dsmem_before_sync_check(bool on);
// Fill device_malloc'd memory and shared memory with 0xCD garbage (default on).
void set_fill_garbage(bool on);
// Fiber stack size in bytes (default 64 KiB, 256 KiB under ASan; env SIMT_STACK_KB).
void set_stack_size(size_t bytes);
// Watchdog: a launch that needs more fiber switches than this is reported as "no progress"
// (default 1e9, env SIMT_MAX_SWITCHES). Under rr every 4096th atomic of a thread also yields, so
// spin-waits on atomics make progress.
void set_max_switches(uint64_t n);
// Quiet: do not print reports to stderr (tests that expect reports).
void set_quiet(bool on);

struct Stats {
  uint64_t launches = 0;
  uint64_t blocks = 0;
  uint64_t threads = 0;
  uint64_t switches = 0;    // fiber resumptions
  uint64_t decisions = 0;   // scheduling decisions with more than one runnable thread
};
Stats stats();
void reset_stats();

// Register host memory that kernels may receive as "device" memory (is_device_pointer == true).
void register_device_memory(const void* p, size_t n);
void unregister_device_memory(const void* p);

}  // namespace simt
