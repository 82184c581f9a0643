#include "core/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <system_error>

#include "core/error.h"
#include "core/option_error.h"

namespace flashnerd {

namespace {

// Spinning before sleeping: long enough to bridge the gaps between the GEMMs of a step,
// short enough that an idle pool gives its cores back at once.
constexpr auto kSpin = std::chrono::microseconds(200);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = int(std::thread::hardware_concurrency());
  if (threads <= 0) threads = 1;
  workers_.reserve(size_t(threads - 1));
  for (int i = 1; i < threads; ++i) {
    try {
      workers_.emplace_back([this, i] { worker_loop(i); });
    } catch (const std::system_error& e) {
      stop_workers();
      throw Error(str_cat("could not start worker thread ", i, " of ", threads, ": ", e.what(),
                          "; use fewer threads or raise the process limit (ulimit -u)"));
    }
  }
}

ThreadPool::~ThreadPool() { stop_workers(); }

void ThreadPool::stop_workers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
    generation_.fetch_add(1);
  }
  wake_cv_.notify_all();
  for (auto& t : workers_) t.join();
  workers_.clear();
}

void ThreadPool::run_chunk(int worker) {
  const int64_t parts = size();
  const int64_t begin = job_n_ * worker / parts;
  const int64_t end = job_n_ * (worker + 1) / parts;
  if (begin >= end) return;
  try {
    (*job_)(begin, end, worker);
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!error_) error_ = std::current_exception();
  }
}

void ThreadPool::worker_loop(int index) {
  uint64_t seen = 0;
  for (;;) {
    // spin, then sleep, until a new generation (a job or stop) is published
    const auto spin_until = std::chrono::steady_clock::now() + kSpin;
    int polls = 0;
    while (generation_.load(std::memory_order_acquire) == seen) {
      cpu_relax();
      if (++polls % 64 == 0 && std::chrono::steady_clock::now() > spin_until) {
        std::unique_lock<std::mutex> lock(mutex_);
        sleeping_.fetch_add(1);
        wake_cv_.wait(lock, [&] { return generation_.load() != seen; });
        sleeping_.fetch_sub(1);
        break;
      }
    }
    seen = generation_.load(std::memory_order_acquire);
    if (stop_.load()) return;
    run_chunk(index);
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void ThreadPool::parallel_for(int64_t n, ChunkFn fn) {
  if (n <= 0) return;
  if (workers_.empty() || n == 1) {
    fn(0, n, 0);
    return;
  }
  job_ = &fn;
  job_n_ = n;
  pending_.store(int(workers_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1);  // publishes job_, job_n_ (seq_cst: pairs with sleeping_)
  if (sleeping_.load() > 0) {
    // a worker that saw the old generation holds the mutex until it waits: lock, then notify
    { std::lock_guard<std::mutex> lock(mutex_); }
    wake_cv_.notify_all();
  }
  run_chunk(0);
  int polls = 0;
  while (pending_.load(std::memory_order_acquire) != 0)
    if (++polls < 4096)
      cpu_relax();
    else
      std::this_thread::yield();  // a worker was descheduled: give it the core
  job_ = nullptr;
  std::exception_ptr error;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    error = error_;
    error_ = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace flashnerd

namespace flashnerd {

double ThreadPool::handoff_microseconds(int calls) {
  if (workers_.empty()) return 0;
  using clock = std::chrono::steady_clock;
  const std::function<void(int64_t, int64_t, int)> nothing = [](int64_t, int64_t, int) {};
  std::vector<double> us;
  us.reserve(size_t(std::max(calls, 1)));
  const auto start = clock::now();
  for (int i = 0; i < calls; ++i) {
    const auto t0 = clock::now();
    parallel_for(size(), nothing);
    us.push_back(std::chrono::duration<double, std::micro>(clock::now() - t0).count());
    if (clock::now() - start > std::chrono::milliseconds(2)) break;
  }
  std::nth_element(us.begin(), us.begin() + long(us.size() / 2), us.end());
  return us[us.size() / 2];
}

int checked_thread_count(int requested, bool force, const std::string& option, const std::string& force_option) {
  const unsigned cores = std::thread::hardware_concurrency();  // 0: unknown
  FN_CHECK_OPTION(requested >= 0, option, requested, " is negative; give 0 (all ", cores,
                  " cores) or a count from 1 to ", cores);
  FN_CHECK_OPTION(force || cores == 0 || unsigned(requested) <= cores, option, requested, " exceeds the ", cores,
                  " cores of this machine; give at most ", cores, " (0 = all cores)",
                  force_option.empty() ? "" : str_cat(", or add ", option_ref(force_option), " to oversubscribe"));
  return requested;
}

}  // namespace flashnerd
