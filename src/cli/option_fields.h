// The command line's names for the library's option fields: the one table from a field
// ("batch", "refresh.updates": what an OptionError names, core/option_error.h) to its flag
// ("--batch", "--refresh-updates"), and an OptionError's message in those names.
#pragma once

#include <string>

#include "core/option_error.h"

namespace flashnerd::cli {

// The flag of `field`; the field itself when the table has none (a name the caller passed
// as a flag already, "--data", or a field no command sets).
std::string option_flag(const std::string& field);

// "--batch: must be divisible by the world size 2": the error with every field as its flag.
std::string flag_message(const OptionError& e);

}  // namespace flashnerd::cli
