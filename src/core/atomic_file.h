// Crash-safe file output: everything is written to "<path>.tmp.<pid>" and renamed over the
// final name only when complete, so an interrupted job never leaves a partial file under
// the final name. The temporaries that killed jobs left for the same path (their process is
// gone) are removed when the next AtomicFile for that path is made.
#pragma once

#include <string>

namespace flashnerd {

class AtomicFile {
 public:
  explicit AtomicFile(std::string final_path);
  ~AtomicFile();  // removes the temporary file unless commit() succeeded
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::string& temp_path() const { return temp_path_; }
  const std::string& final_path() const { return final_path_; }
  // fsyncs and renames the temporary file to the final name; throws on failure.
  void commit();

 private:
  std::string final_path_;
  std::string temp_path_;
  bool committed_ = false;
};

// Removes "<final_path>.tmp.<pid>" files whose process no longer exists; returns how many.
int remove_stale_temporaries(const std::string& final_path);

// Writes `bytes` to `path` atomically; throws flashnerd::Error naming the path on failure.
void write_file_atomic(const std::string& path, const std::string& bytes);
// Reads a whole file; throws flashnerd::Error naming the path when it cannot.
std::string read_file(const std::string& path);
// Throws unless `dir` exists or can be created and a file can be written inside it.
void ensure_writable_directory(const std::string& dir);

}  // namespace flashnerd
