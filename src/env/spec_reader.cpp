#include "env/spec_reader.h"

#include <cmath>

#include "core/error.h"

namespace flashnerd::env {

SpecReader::SpecReader(const nlohmann::json& j, std::string file, std::string path)
    : j_(&j), file_(std::move(file)), path_(std::move(path)), read_(std::make_shared<std::set<std::string>>()) {
  if (!j.is_object()) fail("", str_cat("must be a JSON object, got ", j.dump()));
}

std::string SpecReader::field(const std::string& key) const {
  if (key.empty()) return path_.empty() ? "(top level)" : path_;
  return path_.empty() ? key : path_ + "." + key;
}

void SpecReader::fail(const std::string& key, const std::string& message) const {
  throw Error(str_cat("task spec ", file_, ": field '", field(key), "' ", message));
}

bool SpecReader::has(const std::string& key) const { return j_->contains(key); }

const nlohmann::json& SpecReader::at(const std::string& key) {
  if (!has(key)) fail(key, "is missing");
  read_->insert(key);
  return (*j_)[key];
}

const nlohmann::json& SpecReader::raw(const std::string& key) { return at(key); }

double SpecReader::number(const std::string& key) {
  const auto& v = at(key);
  if (!v.is_number()) fail(key, str_cat("must be a number, got ", v.dump()));
  const double x = v.get<double>();
  if (!std::isfinite(x)) fail(key, str_cat("must be finite, got ", x));
  return x;
}

double SpecReader::number_or(const std::string& key, double def) { return has(key) ? number(key) : def; }

namespace {

// An integer a spec may hold (counts, steps, component indices): unsigned values above 2^63
// are not read as negative, nor 2^32 as 0.
bool small_integer(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return v.get<unsigned long long>() <= (1ULL << 30);
  return v.is_number_integer() && v.get<long long>() >= -(1LL << 30) && v.get<long long>() <= (1LL << 30);
}

}  // namespace

int SpecReader::integer_or(const std::string& key, int def) {
  if (!has(key)) return def;
  const auto& v = at(key);
  if (!small_integer(v)) fail(key, str_cat("must be an integer in [-2^30, 2^30], got ", v.dump()));
  return v.get<int>();
}

bool SpecReader::boolean_or(const std::string& key, bool def) {
  if (!has(key)) return def;
  const auto& v = at(key);
  if (!v.is_boolean()) fail(key, str_cat("must be true or false, got ", v.dump()));
  return v.get<bool>();
}

std::string SpecReader::string(const std::string& key) {
  const auto& v = at(key);
  if (!v.is_string()) fail(key, str_cat("must be a string, got ", v.dump()));
  return v.get<std::string>();
}

std::string SpecReader::string_or(const std::string& key, const std::string& def) {
  return has(key) ? string(key) : def;
}

std::vector<std::string> SpecReader::strings_or(const std::string& key, const std::vector<std::string>& def) {
  if (!has(key)) return def;
  const auto& v = at(key);
  if (v.is_string()) return {v.get<std::string>()};
  if (!v.is_array()) fail(key, str_cat("must be a name or a list of names, got ", v.dump()));
  std::vector<std::string> out;
  for (const auto& s : v) {
    if (!s.is_string()) fail(key, str_cat("must list names (strings), got ", s.dump()));
    out.push_back(s.get<std::string>());
  }
  return out;
}

std::array<double, 2> SpecReader::range(const std::string& key) {
  const auto& v = at(key);
  if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number())
    fail(key, str_cat("must be a range [low, high], got ", v.dump()));
  const std::array<double, 2> r = {v[0].get<double>(), v[1].get<double>()};
  if (!std::isfinite(r[0]) || !std::isfinite(r[1]) || r[0] > r[1])
    fail(key, str_cat("must be a finite range with low <= high, got ", v.dump()));
  return r;
}

std::array<double, 2> SpecReader::range_or(const std::string& key, std::array<double, 2> def) {
  return has(key) ? range(key) : def;
}

std::vector<double> SpecReader::numbers_or(const std::string& key, int width, double def) {
  if (!has(key)) return std::vector<double>(size_t(width), def);
  const auto& v = at(key);
  std::vector<double> out;
  if (v.is_number()) {
    out.assign(size_t(width), v.get<double>());
  } else if (v.is_array()) {
    if (int(v.size()) != width) fail(key, str_cat("must have ", width, " numbers (one per component), got ", v.size()));
    for (const auto& x : v) {
      if (!x.is_number()) fail(key, str_cat("must list numbers, got ", x.dump()));
      out.push_back(x.get<double>());
    }
  } else {
    fail(key, str_cat("must be a number or a list of ", width, " numbers, got ", v.dump()));
  }
  for (double x : out)
    if (!std::isfinite(x)) fail(key, str_cat("must be finite, got ", x));
  return out;
}

std::vector<int> SpecReader::indices_or(const std::string& key, const std::vector<int>& def) {
  if (!has(key)) return def;
  const auto& v = at(key);
  std::vector<int> out;
  if (v.is_number_integer()) {
    if (!small_integer(v)) fail(key, str_cat("must be a component index, got ", v.dump()));
    out.push_back(v.get<int>());
  } else if (v.is_array()) {
    for (const auto& x : v) {
      if (!small_integer(x)) fail(key, str_cat("must list component indices (integers), got ", x.dump()));
      out.push_back(x.get<int>());
    }
  } else {
    fail(key, str_cat("must be an index or a list of indices, got ", v.dump()));
  }
  return out;
}

SpecReader SpecReader::object(const std::string& key) { return SpecReader(at(key), file_, field(key)); }

std::vector<SpecReader> SpecReader::objects_or_empty(const std::string& key) {
  std::vector<SpecReader> out;
  if (!has(key)) return out;
  const auto& v = at(key);
  if (!v.is_array()) fail(key, str_cat("must be a list of objects, got ", v.dump()));
  for (size_t i = 0; i < v.size(); ++i) out.emplace_back(v[i], file_, str_cat(field(key), "[", i, "]"));
  return out;
}

void SpecReader::finish() const {
  for (auto it = j_->begin(); it != j_->end(); ++it)
    if (!read_->count(it.key()))
      fail(it.key(), "is not a field this object knows (docs/TASKS.md lists the fields of each term); "
                     "remove it or fix its spelling");
}

}  // namespace flashnerd::env
