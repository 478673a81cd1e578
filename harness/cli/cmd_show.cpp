// harness/cli/cmd_show.cpp -- `dsv4-harness show FILE...`: a case file as readable text.
#include <cstdio>

#include "cli_common.hpp"
#include "codec.hpp"

int cmd_show(int argc, char** argv) {
  using namespace dsv4::harness;
  cli::CommonArgs a;
  const std::string err = cli::parse_common(argc, argv, 2, &a);
  if (!err.empty() || a.files.empty()) {
    std::fprintf(stderr, "show: %s\nusage: dsv4-harness show FILE...\n", err.empty() ? "no file given" : err.c_str());
    return 2;
  }
  int rc = 0;
  for (const auto& f : a.files) {
    try {
      Provenance prov;
      const Case c = read_case_file(f, &prov);
      std::printf("# %s\n%s", f.c_str(), show_case(c).c_str());
      if (prov.empty()) std::printf("recorded with    (no provenance: a version-1 file)\n");
      else std::printf("file format v%u  (case + provenance record)\n%s", kCaseVersionProvenance,
                       show_provenance(prov).c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "show: %s\n", e.what());
      rc = 2;
    }
  }
  return rc;
}
