#include "cli/worker_launcher.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "cli/child_process.h"
#include "core/error.h"
#include "core/loopback_port.h"
#include "engine/blas.h"

namespace flashnerd::cli {

namespace {


}  // namespace

bool is_worker_process() { return std::getenv("RANK") != nullptr; }

void run_local_workers(int workers, const std::string& job, const std::string& resume_hint) {
  FN_CHECK(workers >= 1 && workers <= 256, "--workers must be in [1, 256], got ", workers);
  const std::vector<std::string> args = own_command_line();
  const int port = free_loopback_port();
  const int blas_threads = std::max(1, int(std::thread::hardware_concurrency()) / workers);
  std::vector<pid_t> pids(size_t(workers), -1);
  for (int r = 0; r < workers; ++r) {
    const pid_t pid = ::fork();
    FN_CHECK(pid >= 0, "cannot start worker ", r, ": ", std::strerror(errno));
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a worker never outlives its launcher
      ::setenv("RANK", std::to_string(r).c_str(), 1);
      ::setenv("LOCAL_RANK", std::to_string(r).c_str(), 1);
      ::setenv("WORLD_SIZE", std::to_string(workers).c_str(), 1);
      ::setenv("MASTER_ADDR", "127.0.0.1", 1);
      ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
      // libtorch's products go to OpenBLAS, whose own pool would take every core in every
      // worker (measured: 2 workers x 2 threads on 2 cores run slower than one process)
      ::setenv("OPENBLAS_NUM_THREADS", std::to_string(blas_threads).c_str(), 0);
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv("/proc/self/exe", argv.data());
      std::fprintf(stderr, "flashnerd: worker %d: cannot start: %s\n", r, std::strerror(errno));
      std::_Exit(127);
    }
    pids[size_t(r)] = pid;
  }
  std::string list;
  for (int r = 0; r < workers; ++r) list += str_cat(r ? ", " : "", "rank ", r, " pid ", pids[size_t(r)]);
  std::fprintf(stderr, "%s: %d local workers (%s), rendezvous at 127.0.0.1:%d\n", job.c_str(), workers, list.c_str(),
               port);

  // Wait for all. At the first failure, collect the workers that ended by themselves within
  // a moment (a killed worker takes its peers down with it: the killed one is the cause),
  // then stop the rest: SIGTERM (+ SIGCONT for a stopped one), SIGKILL after a grace period.
  struct Ended {
    int rank;
    int status;
  };
  std::vector<Ended> failed, stopped;
  auto reap = [&](int flags) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, flags);
    if (pid <= 0) return pid;
    for (int r = 0; r < workers; ++r)
      if (pids[size_t(r)] == pid) {
        pids[size_t(r)] = -1;
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) failed.push_back({r, status});
      }
    return pid;
  };
  auto running = [&] {
    int n = 0;
    for (pid_t p : pids) n += p > 0;
    return n;
  };
  while (running() > 0 && failed.empty())
    if (reap(0) < 0 && errno != EINTR) break;
  if (failed.empty()) return;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  while (running() > 0 && reap(WNOHANG) > 0) {
  }
  const size_t spontaneous = failed.size();
  for (pid_t p : pids)
    if (p > 0) {
      ::kill(p, SIGTERM);
      ::kill(p, SIGCONT);
    }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (running() > 0) {
    if (reap(WNOHANG) > 0) continue;
    if (std::chrono::steady_clock::now() > deadline)
      for (pid_t p : pids)
        if (p > 0) ::kill(p, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  size_t cause = 0;  // a worker killed by a signal first, else the lowest rank that failed
  for (size_t i = 0; i < spontaneous; ++i)
    if (WIFSIGNALED(failed[i].status) && !WIFSIGNALED(failed[cause].status)) cause = i;
  std::string others;
  for (size_t i = 0; i < failed.size(); ++i)
    if (i != cause)
      others += str_cat(others.empty() ? "" : "; ", "rank ", failed[i].rank, " ", describe_exit_status(failed[i].status),
                        i < spontaneous ? "" : " when stopped");
  throw Error(str_cat(job, ": worker rank ", failed[cause].rank, " ", describe_exit_status(failed[cause].status),
                      WIFEXITED(failed[cause].status) ? " (its error is above)" : "",
                      "; the other workers were stopped", others.empty() ? std::string() : str_cat(" (", others, ")"),
                      ". ", resume_hint));
}

}  // namespace flashnerd::cli
