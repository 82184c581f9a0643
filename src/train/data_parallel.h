// Data-parallel training over c10d's ProcessGroupGloo (the engine PyTorch's DDP runs on CPU).
// The launch contract is PyTorch's: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT; rank 0 holds
// the TCP store every rank rendezvous at. With one rank nothing is created and every call is
// local, so single-process training runs the same code path.
//
// What the trainer does with it (trainer.cpp): the global batch of update u is drawn from
// (seed, u) and rank r takes its slice r; the loss is scaled by the global count of valid
// positions, gradients are summed as one flat buffer and divided by the world size after
// wait(); every rank then clips and steps identical gradients, so parameters stay equal.
//
// Failures: every collective has a timeout (a hung or dead peer ends the run), and each rank
// publishes the last update it finished, so the error names the rank(s) that fell behind.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace at {
class Tensor;
}

namespace flashnerd::train {

struct DistributedConfig {
  int rank = 0;
  int world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  double timeout_seconds = 120;  // rendezvous and every collective
};

// RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (and FLASHNERD_WORKER_TIMEOUT seconds) from the
// environment; one rank when RANK and WORLD_SIZE are unset. Malformed values are refused.
DistributedConfig distributed_from_environment();

class DataParallel {
 public:
  explicit DataParallel(const DistributedConfig& config);  // rendezvous (blocks for the others)
  ~DataParallel();
  DataParallel(const DataParallel&) = delete;
  DataParallel& operator=(const DataParallel&) = delete;

  int rank() const { return config_.rank; }
  int world_size() const { return config_.world_size; }
  bool is_root() const { return config_.rank == 0; }
  bool distributed() const { return config_.world_size > 1; }

  // Element-wise sum over ranks, in place (doubles: statistics and loss sums).
  void sum(std::vector<double>& values, const char* what);
  // Rank 0's bytes to every rank (a checkpoint, a fingerprint).
  void broadcast_bytes(std::string& bytes, const char* what);
  // Rank 0's parameter values to every rank.
  void broadcast_parameters(const std::vector<at::Tensor>& params);
  // One flat all-reduce per update: every rank's gradients of `params` and its `values` (the
  // loss's sum and count) are summed; after wait() `values` holds the sums and each gradient
  // is its sum times scale(values) (the trainer: 1 / global count, i.e. the gradient of the
  // global masked mean, which for equal counts is the average of the ranks' gradients).
  void sum_gradients(const std::vector<at::Tensor>& params, std::vector<double>& values,
                     const std::function<double(const std::vector<double>&)>& scale);
  // Publishes "this rank finished update u" (what a timeout message reports).
  void finished_update(int64_t update);

 private:
  struct Impl;
  // Throws naming the ranks behind; the group is abandoned (this object is unusable after).
  [[noreturn]] void fail(const char* what, const std::exception& e);
  DistributedConfig config_;
  std::unique_ptr<Impl> impl_;
  int64_t last_update_ = 0;
};

}  // namespace flashnerd::train
