#include "core/system_memory.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/option_error.h"

namespace flashnerd {

double available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    double kb = 0;
    if (std::sscanf(line.c_str(), "MemAvailable: %lf kB", &kb) == 1) return kb * 1024.0;
  }
  return double(::sysconf(_SC_PHYS_PAGES)) * double(::sysconf(_SC_PAGESIZE));
}

std::string format_bytes(double bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (bytes >= 1000.0 && u < 5) {
    bytes /= 1000.0;
    ++u;
  }
  char b[64];
  std::snprintf(b, sizeof b, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return b;
}

void check_memory_fits(double bytes, const std::string& what, const std::string& fix) {
  MemoryPlan(what).add(what, bytes).check(fix);
}

MemoryPlan& MemoryPlan::add(const std::string& part, double bytes) {
  if (bytes > 0) parts_.push_back({part, bytes});
  return *this;
}

double MemoryPlan::total() const {
  double sum = 0;
  for (const auto& p : parts_) sum += p.second;
  return sum;
}

std::string MemoryPlan::breakdown() const {
  auto parts = parts_;
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string s;
  for (const auto& [part, bytes] : parts) s += (s.empty() ? "" : ", ") + part + " " + format_bytes(bytes);
  return s;
}

void MemoryPlan::check(const std::string& fix) const {
  const double available = available_memory_bytes();
  const std::string parts = parts_.size() > 1 ? " (" + breakdown() + ")" : "";  // one part: its name is `what`
  // a fix naming options (option_ref) is shown in each front end's names
  FN_CHECK_OPTION(total() <= available, "", what_, " would need ", format_bytes(total()), " of memory", parts,
                  ", but this machine has ", format_bytes(available), " available; ", fix);
}

}  // namespace flashnerd
