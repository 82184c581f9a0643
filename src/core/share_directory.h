// Where the project's data files live at run time (the built-in robots, the plot drawer):
// "share/flashnerd" in the nearest ancestor of the file this code was loaded from (the
// executable or the Python module): the build tree's copy, or an installed prefix's. Falls back
// to the install prefix's data directory.
#pragma once

#include <string>

namespace flashnerd {

std::string share_directory();

}  // namespace flashnerd
