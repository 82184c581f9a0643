// Wall time of a stage (steady clock): the timings that jobs log and report.
#pragma once

#include <chrono>

namespace flashnerd {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace flashnerd
