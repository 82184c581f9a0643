// A single progress line for long jobs: done/total, rate, elapsed and ETA, redrawn in place
// on a terminal and printed every few seconds otherwise (logs stay readable in CI).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace flashnerd {

class ProgressLine {
 public:
  ProgressLine(std::string label, int64_t total, std::string unit, bool enabled = true);
  // Reports `done` units of `total`; `extra` is appended (e.g. "loss 0.0123").
  void update(int64_t done, const std::string& extra = "");
  // Prints the final line with the total elapsed time.
  void finish(const std::string& extra = "");
  double elapsed_seconds() const;
  // A resumed job starts at `done`: the rate and ETA count only this process's work.
  void resume_from(int64_t done) { resumed_from_ = done; }

 private:
  void print(int64_t done, const std::string& extra, bool final_line);

  std::string label_;
  int64_t total_;
  int64_t resumed_from_ = 0;
  std::string unit_;
  bool enabled_;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_print_;
};

// Formats seconds as "1h02m", "3m05s" or "4.2s".
std::string format_duration(double seconds);

}  // namespace flashnerd
