// simt/src/report.cpp -- kernel error reports: text naming block/thread/warp and the source
// site, a one-line repro, printing, abort-on-report, and unwinding of the failing fiber.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "simt/src/internal.hpp"

namespace simt::detail {

namespace {
std::string g_report;
std::string dim(const dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}
}  // namespace

bool g_abort_on_report = [] {
  const char* e = std::getenv("SIMT_ABORT_ON_REPORT");
  return e && e[0] == '1';
}();
rt::error_t g_last_error = cudaSuccess;
rt::error_t g_sticky_error = cudaSuccess;

// Every error becomes the last error (cudaGetLastError); only a failure of the kernel's execution
// is also reported by the next synchronization, as on the GPU. A launch the runtime rejects
// (configuration, cluster size, shared memory) is reported by the launch call alone.
void set_last_error(rt::error_t e) {
  if (e != cudaSuccess) {
    g_last_error = e;
    if (e == cudaErrorLaunchFailure) g_sticky_error = e;
  }
}

std::string site_str(Site s) {
  if (!s.file) return "<unknown site>";
  return std::string(s.file) + ":" + std::to_string(s.line);
}

std::string who(const Thread* t) {
  if (!t) return "<host>";
  char buf[160];
  std::snprintf(buf, sizeof buf, "block (%u,%u,%u) thread (%u,%u,%u) [warp %u lane %u]", t->bid.x, t->bid.y,
                t->bid.z, t->tid.x, t->tid.y, t->tid.z, t->warp, t->lane);
  return buf;
}

std::string launch_repro() {
  if (!g_launch) return "";
  const rt::LaunchConfig& c = g_launch->cfg;
  return "simt repro: SIMT_SCHED=" + schedule_string() + " grid=" + dim(c.grid) + " block=" + dim(c.block) +
         " cluster=" + dim(c.cluster) + " dynamic_smem=" + std::to_string(c.dynamic_smem) +
         " launch#" + std::to_string(g_launch->index);
}

void begin_launch_reports() { g_report.clear(); }
bool launch_failed() { return g_launch && g_launch->aborted; }

void record_report(const std::string& kind, const std::string& detail) {
  if (g_launch && g_launch->aborted) return;  // first report wins
  g_report = "simt: " + kind + ": " + detail;
  if (!g_report.empty() && g_report.back() != '\n') g_report += '\n';
  g_report += launch_repro() + "\n";
  if (!g_quiet || g_abort_on_report) std::fputs(g_report.c_str(), stderr);
  if (g_abort_on_report) std::abort();
  if (g_launch) g_launch->aborted = true;
}

void fail(const std::string& kind, const std::string& detail) {
  record_report(kind, detail);
  throw KernelAbort{};
}

[[noreturn]] void outside_kernel(const char* what) {
  std::fprintf(stderr, "simt: %s used outside a running kernel (no current CUDA thread)\n", what);
  std::abort();
}

}  // namespace simt::detail

namespace simt {
std::string last_report() { return detail::g_report; }
void set_abort_on_report(bool on) { detail::g_abort_on_report = on; }
}  // namespace simt
