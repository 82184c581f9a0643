// Integers read from JSON without undefined behaviour. nlohmann's get<int>() converts a JSON
// float (1e90) to an integer with a plain cast, which is undefined behaviour out of range, and
// wraps an integer too large for the type (found by fuzz/: a shape of [3.9e19] in a safetensors
// header, "d_model": 1.7e90 in config.json). These accept only JSON integers in T's range.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace flashnerd {

// `j` as T; throws flashnerd::Error "<what> has the wrong type: expected an integer in
// [min, max], got <j>".
template <typename T>
T json_int(const nlohmann::json& j, const std::string& what) {
  using Limits = std::numeric_limits<T>;
  const bool fits = (j.is_number_unsigned() && j.get<uint64_t>() <= uint64_t(Limits::max())) ||
                    (j.is_number_integer() && !j.is_number_unsigned() && j.get<int64_t>() >= int64_t(Limits::min()) &&
                     j.get<int64_t>() <= int64_t(Limits::max()));
  FN_CHECK(fits, what, " has the wrong type: expected an integer in [", int64_t(Limits::min()), ", ",
           uint64_t(Limits::max()), "], got ", j.dump().substr(0, 40));
  return j.is_number_unsigned() ? T(j.get<uint64_t>()) : T(j.get<int64_t>());
}

// `j`, an array of integers, as std::vector<T>; throws like json_int, naming the element.
template <typename T>
std::vector<T> json_int_list(const nlohmann::json& j, const std::string& what) {
  FN_CHECK(j.is_array(), what, " has the wrong type: expected an array of integers, got ", j.dump().substr(0, 40));
  std::vector<T> out;
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) out.push_back(json_int<T>(j[i], str_cat(what, "[", i, "]")));
  return out;
}

}  // namespace flashnerd
