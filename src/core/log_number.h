// How logs write numbers: CSV cells with 9 significant digits and an empty cell where a value
// is missing or not finite; JSON with null in its place, read back as NaN. Every log of the
// project (training, PPO) spells a missing value the same way.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace flashnerd {

std::string csv_number(double v);
nlohmann::json finite_or_null(double v);
double number_or_nan(const nlohmann::json& j);

}  // namespace flashnerd
