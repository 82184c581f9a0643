// What differs between two JSON settings records, by dotted key, for messages such as
// "--resume: the checkpoint differs in lr (checkpoint 0.001, this run 0.0003)".
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace flashnerd {

// "key (A_NAME a, B_NAME b); other.key (...)" over every differing leaf (objects compared
// key by key, anything else as a whole); empty when equal.
std::string json_differences(const nlohmann::json& a, const nlohmann::json& b, const std::string& a_name,
                             const std::string& b_name);

}  // namespace flashnerd
