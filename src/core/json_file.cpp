#include "core/json_file.h"

#include <fstream>

#include "core/atomic_file.h"
#include "core/error.h"

namespace flashnerd {

nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  FN_CHECK(in.good(), what, " '", path, "' cannot be read");
  try {
    return nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw Error(str_cat(what, " '", path, "' is not valid JSON: ", e.what()));
  }
}

void write_json_file(const std::string& path, const nlohmann::json& j) { write_file_atomic(path, j.dump(1) + "\n"); }

}  // namespace flashnerd
