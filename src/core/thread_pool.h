// A fixed pool of worker threads with a blocking parallel_for. Callers pass the pool they
// use explicitly (no global pool). parallel_for splits [0, n) into contiguous chunks, one
// per worker, so work assignment is deterministic for a given thread count.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace flashnerd {

class ThreadPool {
 public:
  // threads <= 0 means std::thread::hardware_concurrency().
  explicit ThreadPool(int threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return int(workers_.size()) + 1; }  // the caller works too

  // Calls fn(begin, end, worker) on disjoint chunks covering [0, n); returns when all are
  // done. worker is in [0, size()). Never allocates after construction. Exceptions thrown by
  // fn are rethrown in the caller (the first one).
  void parallel_for(int64_t n, const std::function<void(int64_t, int64_t, int)>& fn);

 private:
  void worker_loop(int index);
  void run_chunk(int worker);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_cv_;
  std::condition_variable done_cv_;
  const std::function<void(int64_t, int64_t, int)>* job_ = nullptr;
  int64_t job_n_ = 0;
  uint64_t generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

}  // namespace flashnerd
