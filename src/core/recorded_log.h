// Logs a robot writes, read as named numeric columns of equal length (flashnerd import):
// CSV with a header row, or a numpy .npz archive (numpy.savez or savez_compressed) of 1-D
// arrays, one per column (float64, float32, int64 or int32). docs/FINETUNE.md has the
// column names import expects.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flashnerd {

struct RecordedLog {
  std::vector<std::string> names;
  std::vector<std::vector<double>> columns;  // columns[i] has rows() values
  int64_t rows() const { return columns.empty() ? 0 : int64_t(columns.front().size()); }
  const std::vector<double>* find(const std::string& name) const;  // nullptr when absent
};

// By extension (.csv or .npz); throws flashnerd::Error naming the file, line or entry.
RecordedLog read_recorded_log(const std::string& path);
RecordedLog read_log_csv(const std::string& path);
RecordedLog read_log_npz(const std::string& path);

}  // namespace flashnerd
