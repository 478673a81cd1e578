// harness/cli/cmd_fuzz.cpp -- `dsv4-harness fuzz`: placeholder, replaced by the fuzz campaign work.
#include <cstdio>

int cmd_fuzz(int argc, char** argv) {
  (void)argc;
  (void)argv;
  std::fprintf(stderr, "fuzz: campaign not built yet\n");
  return 2;
}
