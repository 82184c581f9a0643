#include "core/json_file.h"

#include <fstream>

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

}  // namespace flashnerd
