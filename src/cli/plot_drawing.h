// Draws plot specs (core/plot_spec.h, NAME.plot.json) as NAME.png with matplotlib, through the
// project's python/flashnerd/plot.py. A plot that cannot be drawn (no Python, no matplotlib)
// is a warning, never a failed command: the spec stays, and `flashnerd plot` draws it later.
#pragma once

#include <string>
#include <vector>

namespace flashnerd::cli {

// Draws each spec beside itself; returns the PNGs written (all, or none when drawing failed,
// after a warning on stderr). The interpreter is $FLASHNERD_PYTHON, else /usr/bin/python3
// (where Debian's matplotlib lives), else python3 on PATH.
std::vector<std::string> draw_plots(const std::vector<std::string>& specs);

}  // namespace flashnerd::cli
