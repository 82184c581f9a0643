// A settings file read as JSON, with one clear error for a missing file or bad syntax, and
// written whole or not at all.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace flashnerd {

// Throws flashnerd::Error "<what> '<path>' cannot be read" or "... is not valid JSON: ...".
nlohmann::json read_json_file(const std::string& path, const std::string& what = "file");
// Writes `j` (indented) to `path` atomically: a reader sees the old file or the whole new one.
void write_json_file(const std::string& path, const nlohmann::json& j);

}  // namespace flashnerd
