#include "core/progress.h"

#include <unistd.h>

#include <cstdio>

namespace flashnerd {

std::string format_duration(double seconds) {
  char buf[32];
  if (seconds < 0 || seconds != seconds) return "?";
  if (seconds < 60) {
    std::snprintf(buf, sizeof buf, "%.1fs", seconds);
  } else if (seconds < 3600) {
    std::snprintf(buf, sizeof buf, "%dm%02ds", int(seconds) / 60, int(seconds) % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%dh%02dm", int(seconds) / 3600, (int(seconds) % 3600) / 60);
  }
  return buf;
}

ProgressLine::ProgressLine(std::string label, int64_t total, std::string unit, bool enabled)
    : label_(std::move(label)),
      total_(total),
      unit_(std::move(unit)),
      enabled_(enabled),
      tty_(isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {}

double ProgressLine::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressLine::update(int64_t done, const std::string& extra) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  double since = std::chrono::duration<double>(now - last_print_).count();
  // Terminals get ~5 redraws/s; logs one line every 5 s.
  if (since < (tty_ ? 0.2 : 5.0) && done < total_) return;
  last_print_ = now;
  print(done, extra, false);
}

void ProgressLine::finish(const std::string& extra) {
  if (!enabled_) return;
  print(total_, extra, true);
}

void ProgressLine::print(int64_t done, const std::string& extra, bool final_line) {
  double elapsed = elapsed_seconds();
  double rate = elapsed > 0 ? double(done - resumed_from_) / elapsed : 0.0;
  double eta = rate > 0 ? double(total_ - done) / rate : -1.0;
  double pct = total_ > 0 ? 100.0 * double(done) / double(total_) : 100.0;
  char head[256];
  std::snprintf(head, sizeof head, "%s %lld/%lld (%.0f%%) %.4g %s/s, %s elapsed", label_.c_str(),
                (long long)done, (long long)total_, pct, rate, unit_.c_str(),
                format_duration(elapsed).c_str());
  std::string line = head;
  if (!final_line) line += ", ETA " + format_duration(eta);
  if (!extra.empty()) line += ", " + extra;
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s%s", line.c_str(), final_line ? "\n" : "");
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

}  // namespace flashnerd
