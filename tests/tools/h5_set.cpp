// h5_set FILE ARRAY INDEX VALUE: overwrites one element (flat index) of an int32 array of a
// saved dataset in place, so CLI tests can feed the commands corrupt files (no h5py here).
#include <cstdio>
#include <string>

#include "core/h5_edit.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: h5_set FILE ARRAY INDEX VALUE\n");
    return 2;
  }
  try {
    flashnerd::testing::h5_set<int32_t>(argv[1], argv[2], std::stoull(argv[3]), std::stoi(argv[4]));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "h5_set: %s\n", e.what());
    return 1;
  }
  return 0;
}
