// Training data without libtorch: NeRD normalization fitted on the training split, the
// index of training windows with batch sampling as a pure function of (seed, update) (what
// makes a resumed run equal an uninterrupted one), and the dataset fingerprint stored in
// the artifact.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/dataset.h"
#include "core/frame_features.h"
#include "core/model_config.h"
#include "core/state_codec.h"

namespace flashnerd::train {

// Per-feature mean and sqrt(var + 1e-5) of inputs and targets over the valid transitions of
// `trajectories` (and of contact rows over their valid rows, when a holds contacts); channel_std over the codec channels of the states s_t of those
// transitions (same epsilon, so a constant channel never divides by zero).
// Throws when those trajectories hold no valid transition.
// Data-parallel: each rank passes its share of the trajectories and a RankSum that adds a
// vector up over the ranks in place; every rank then gets the statistics of all shares
// (equal to one process fitting them all, up to the order of the sums). Empty: one process.
using RankSum = std::function<void(std::vector<double>&)>;
Normalization fit_normalization(const Dataset& d, const TransitionArrays& a, const StateCodec& codec,
                                const std::vector<int64_t>& trajectories, const RankSum& sum_over_ranks = {});

// x̂ = (x − mean) / std and ŷ likewise, in place, for every valid transition (masked rows
// stay zero); contact rows with contact_mean / contact_std.
void standardize_transitions(TransitionArrays& a, const Normalization& n);

// Window of consecutive transitions start..start+length-1 of one trajectory.
struct WindowRef {
  int64_t trajectory = 0;
  int64_t start = 0;
};

// The training (or validation) windows: every start t0 <= T − length (0 when T < length)
// of the given trajectories whose first transition is valid. Positions after the first
// invalid transition of a window are masked (they would see a broken frame).
class WindowIndex {
 public:
  WindowIndex(const TransitionArrays& a, const std::vector<int64_t>& trajectories, int length);

  int length() const { return length_; }
  int64_t size() const { return int64_t(windows_.size()); }
  const WindowRef& operator[](int64_t i) const { return windows_[size_t(i)]; }
  // The `batch` windows of update `update`, drawn uniformly with replacement from a stream
  // that depends only on (seed, update).
  std::vector<WindowRef> sample(uint64_t seed, int64_t update, int batch) const;
  // Up to `count` windows spread evenly over the index (fixed validation set).
  std::vector<WindowRef> evenly(int64_t count) const;

 private:
  int length_;
  std::vector<WindowRef> windows_;
};

// Windows gathered from standardized transitions.
struct WindowBatch {
  int batch = 0, length = 0, input_dim = 0, output_dim = 0;
  std::vector<float> inputs;   // (B, W, input_dim)
  std::vector<float> targets;  // (B, W, output_dim)
  std::vector<float> mask;     // (B, W) 1 while every transition since the window start is valid
  // Contact rows (when the arrays hold them), trimmed to the batch's largest count k >= 1:
  int contact_k = 0;
  std::vector<float> contact_rows;    // (B, W, k, kContactRowDim) standardized, zero padding
  std::vector<int64_t> contact_link;  // (B, W, k) link index, 0 on padding
  std::vector<uint8_t> contact_mask;  // (B, W, k) 1 = a detected contact
};
void gather_windows(const TransitionArrays& a, const std::vector<WindowRef>& windows, int length,
                    WindowBatch& out);

// Starts (n, t0) of validation rollouts: history − 1 ground-truth frames t0.. then `horizon`
// predicted steps, every transition t0 .. t0 + history + horizon − 2 valid.
std::vector<WindowRef> rollout_starts(const TransitionArrays& a,
                                      const std::vector<int64_t>& trajectories, int history,
                                      int horizon, int64_t max_count);

// "fnv1a64:<16 hex digits>" over the dataset's identity and arrays (robot, layout, timestep,
// qpos, qvel, ctrl, valid, probes): equal data gives equal fingerprints.
std::string dataset_fingerprint(const Dataset& d);

}  // namespace flashnerd::train
