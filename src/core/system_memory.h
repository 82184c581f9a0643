// How much memory this machine can give a job (MemAvailable of /proc/meminfo, or the
// physical memory where that is unknown), and a human-readable size, so requests that could
// never fit (--trajectories 1e12) are refused up front with what they would need.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace flashnerd {

double available_memory_bytes();
std::string format_bytes(double bytes);  // "1.5 GB", "320 MB", "12 kB"

// Throws flashnerd::OptionError (with no field) "<what> would need <bytes> of memory, but this
// machine has <available> available; <fix>" when `bytes` exceeds the available memory; `fix`
// may name options through option_ref (core/option_error.h).
void check_memory_fits(double bytes, const std::string& what, const std::string& fix);

// A run's memory: every part it will allocate, summed, and checked once before the first
// large allocation, so that parts that fit one by one are not let through together.
class MemoryPlan {
 public:
  explicit MemoryPlan(std::string what) : what_(std::move(what)) {}
  MemoryPlan& add(const std::string& part, double bytes);
  double total() const;
  // "a part 1.2 GB, another 300 MB": the parts, largest first.
  std::string breakdown() const;
  // Throws "<what> would need <total> of memory (<breakdown>), but this machine has
  // <available> available; <fix>" when the total exceeds the available memory (the
  // breakdown only when there are several parts).
  void check(const std::string& fix) const;

 private:
  std::string what_;
  std::vector<std::pair<std::string, double>> parts_;
};

}  // namespace flashnerd
