// A fixed pool of worker threads with a blocking parallel_for. Callers pass the pool they
// use explicitly (no global pool). parallel_for splits [0, n) into contiguous chunks, one
// per worker, so work assignment is deterministic for a given thread count.
//
// Hand-off is built for many short calls (an engine step makes about a dozen): workers spin
// on an atomic job counter for a short while after each job before they sleep on a condition
// variable, and the caller spins on the completion counter, so a call costs about a
// microsecond while the pool is busy and nothing while it is idle.
#pragma once

#include <string>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace flashnerd {

// A non-owning reference to a callable fn(begin, end, worker). A lambda of any capture size
// is passed without the heap allocation that converting it to std::function can make; the
// callable must outlive the call it is passed to (a temporary argument does).
class ChunkFn {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, ChunkFn>>>
  ChunkFn(F&& f)  // NOLINT(google-explicit-constructor): implicit, like std::function
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, int64_t begin, int64_t end, int worker) {
          (*static_cast<std::remove_reference_t<F>*>(o))(begin, end, worker);
        }) {}
  void operator()(int64_t begin, int64_t end, int worker) const { call_(object_, begin, end, worker); }

 private:
  void* object_;
  void (*call_)(void*, int64_t, int64_t, int);
};

// The thread count a user asked for (`option` is its field, "threads"), checked: 0 (all cores)
// or 1..cores, more only with `force`. Throws flashnerd::OptionError otherwise, before anything
// is started; the message offers `force_option` (the field that sets `force`) when there is one.
int checked_thread_count(int requested, bool force, const std::string& option, const std::string& force_option = "");

class ThreadPool {
 public:
  // threads <= 0 means std::thread::hardware_concurrency(). Throws flashnerd::Error, naming
  // the thread and the system's reason, when a worker cannot be started (no thread is left
  // running then).
  explicit ThreadPool(int threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return int(workers_.size()) + 1; }  // the caller works too

  // Calls fn(begin, end, worker) on disjoint chunks covering [0, n); returns when all are
  // done. worker is in [0, size()). Never allocates after construction. Exceptions thrown by
  // fn are rethrown in the caller (the first one). Not reentrant: one caller at a time.
  void parallel_for(int64_t n, ChunkFn fn);

  // Median wall time of an empty parallel_for over all threads, in microseconds, from up to
  // `calls` calls (stops after about 2 ms): about 1 µs when the other cores are free, far
  // more when the workers must wait for the scheduler. 0 for a pool of one thread.
  double handoff_microseconds(int calls = 64);

 private:
  void worker_loop(int index);
  void run_chunk(int worker);
  void stop_workers();

  std::vector<std::thread> workers_;
  std::mutex mutex_;                    // guards sleeping and error_
  std::condition_variable wake_cv_;
  std::atomic<uint64_t> generation_{0};  // one increment per job (or stop)
  std::atomic<int> pending_{0};          // workers still running the current job
  std::atomic<int> sleeping_{0};         // workers waiting on wake_cv_
  std::atomic<bool> stop_{false};
  const ChunkFn* job_ = nullptr;
  int64_t job_n_ = 0;
  std::exception_ptr error_;
};

}  // namespace flashnerd
