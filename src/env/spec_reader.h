// SpecReader: one JSON object of a task spec file, read field by field. Every error names the
// file, the field's path ("rewards[2].sigma") and what would be accepted; finish() refuses
// fields nobody read, so a typo is an error rather than a silently ignored setting.
#pragma once

#include <array>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace flashnerd::env {

class SpecReader {
 public:
  // j must be an object (throws otherwise); file and path name it in errors.
  SpecReader(const nlohmann::json& j, std::string file, std::string path);

  bool has(const std::string& key) const;
  // Finite numbers; the _or forms give def when the key is absent.
  double number(const std::string& key);
  double number_or(const std::string& key, double def);
  int integer_or(const std::string& key, int def);
  bool boolean_or(const std::string& key, bool def);
  std::string string(const std::string& key);
  std::string string_or(const std::string& key, const std::string& def);
  std::vector<std::string> strings_or(const std::string& key, const std::vector<std::string>& def);
  // [lo, hi] with lo <= hi.
  std::array<double, 2> range(const std::string& key);
  std::array<double, 2> range_or(const std::string& key, std::array<double, 2> def);
  // A number or a list of numbers; a number is repeated `width` times, a list must have it.
  std::vector<double> numbers_or(const std::string& key, int width, double def);
  std::vector<int> indices_or(const std::string& key, const std::vector<int>& def);
  // A nested object, or each object of a list ("rewards" -> rewards[0], rewards[1]...).
  SpecReader object(const std::string& key);
  std::vector<SpecReader> objects_or_empty(const std::string& key);
  const nlohmann::json& raw(const std::string& key);

  // An error about this object or one of its fields (key may be empty), with the fix.
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  std::string field(const std::string& key) const;  // "rewards[2].sigma"
  const std::string& file() const { return file_; }
  // Throws naming the first field of this object that was never read.
  void finish() const;

 private:
  const nlohmann::json& at(const std::string& key);
  const nlohmann::json* j_;
  std::string file_, path_;
  std::shared_ptr<std::set<std::string>> read_;
};

}  // namespace flashnerd::env
