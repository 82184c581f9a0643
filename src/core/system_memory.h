// How much memory this machine can give a job (MemAvailable of /proc/meminfo, or the
// physical memory where that is unknown), and a human-readable size, so requests that could
// never fit (--trajectories 1e12) are refused up front with what they would need.
#pragma once

#include <string>

namespace flashnerd {

double available_memory_bytes();
std::string format_bytes(double bytes);  // "1.5 GB", "320 MB", "12 kB"

// Throws flashnerd::Error "<what> would need <bytes> of memory, but this machine has
// <available> available; <fix>" when `bytes` exceeds the available memory.
void check_memory_fits(double bytes, const std::string& what, const std::string& fix);

}  // namespace flashnerd
