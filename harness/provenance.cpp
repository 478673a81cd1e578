// harness/provenance.cpp -- see provenance.hpp.
#include "provenance.hpp"

#include <ctime>
#include <sstream>

#include "backend.hpp"
#include "impl.hpp"

#ifndef DSV4_HARNESS_VERSION
#define DSV4_HARNESS_VERSION "unknown"
#endif

namespace dsv4::harness {

std::string harness_version() { return std::string("dsv4-harness ") + DSV4_HARNESS_VERSION; }

Provenance make_provenance(const Impl& impl, const Backend& be) {
  Provenance p;
  p.impl_path = impl.origin();
  p.abi_version = impl.abi_version();
  p.impl_name = impl.caps().name;
  p.impl_version = impl.caps().version;
  p.backend = be.name();
  p.device = be.host_memory() ? std::string("cpu (simt)") : be.device_name();
  if (p.device.empty()) p.device = "unknown GPU";
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  p.date = buf;
  p.harness_version = harness_version();
  return p;
}

std::string provenance_line(const Provenance& p) {
  auto or_unknown = [](const std::string& s) { return s.empty() ? std::string("?") : s; };
  std::ostringstream o;
  o << or_unknown(p.impl_name) << " " << or_unknown(p.impl_version) << " (" << or_unknown(p.impl_path)
    << ", ABI v" << p.abi_version << ") on " << or_unknown(p.backend) << ": " << or_unknown(p.device);
  if (!p.date.empty()) o << ", " << p.date;
  if (!p.harness_version.empty()) o << ", " << p.harness_version;
  return o.str();
}

std::string show_provenance(const Provenance& p) {
  std::ostringstream o;
  o << "recorded with    " << provenance_line(p) << "\n";
  o << "  impl path      " << p.impl_path << "\n";
  o << "  ABI version    " << p.abi_version << "\n";
  o << "  impl name      " << p.impl_name << "\n";
  o << "  impl version   " << p.impl_version << "\n";
  o << "  backend        " << p.backend << "\n";
  o << "  device         " << p.device << "\n";
  o << "  date           " << p.date << "\n";
  o << "  harness        " << p.harness_version << "\n";
  return o.str();
}

bool same_origin(const Provenance& a, const Provenance& b) {
  return a.impl_path == b.impl_path && a.abi_version == b.abi_version && a.impl_name == b.impl_name &&
         a.impl_version == b.impl_version && a.backend == b.backend && a.device == b.device;
}

}  // namespace dsv4::harness
