// An op-level profile of training updates (libtorch's profiler): the self time of each op
// kind, so a table tells whether products, elementwise ops, autograd bookkeeping or the
// optimizer dominate an update (docs/TRAINING.md). No libtorch in this header.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flashnerd::train {

struct OpTime {
  std::string name;    // aten op ("aten::addmm", "aten::mul", ...) or autograd node
  double self_ms = 0;  // time inside the op minus the ops it called
  int64_t calls = 0;
};

class OpProfiler {
 public:
  OpProfiler() = default;
  ~OpProfiler();
  OpProfiler(const OpProfiler&) = delete;
  OpProfiler& operator=(const OpProfiler&) = delete;
  void start();                 // begins recording on every thread libtorch runs ops on
  std::vector<OpTime> stop();   // ends it; op kinds by decreasing self time
  bool running() const { return running_; }

 private:
  bool running_ = false;
};

}  // namespace flashnerd::train
