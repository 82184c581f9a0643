// Python's names for the library's option fields: the one table from a field ("envs",
// "model": what an OptionError names, core/option_error.h) to the keyword a Python call takes
// ("num_envs=", "model="), and an OptionError's message in those names.
#pragma once

#include <string>

#include "core/option_error.h"

namespace flashnerd::python {

// The keyword of `field` ("num_envs="); the field itself where no call takes it as a keyword
// (a robot spec's field: "robot_root_body").
std::string option_keyword(const std::string& field);

// "model=: backend flashnerd needs a trained model ...": the error in Python's names.
std::string keyword_message(const OptionError& e);

}  // namespace flashnerd::python
