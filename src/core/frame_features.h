// The model's per-frame input x_t = [codec features of s_t, command u_t, probe features]
// and its target, the increment s_t -> s_{t+1}. Training, evaluation and rollouts all build
// inputs here, so the layout exists once.
#pragma once

#include <vector>

#include "core/dataset.h"
#include "core/state_codec.h"

namespace flashnerd {

class FrameFeatures {
 public:
  FrameFeatures(const StateCodec& codec, int probe_count);

  int state_dim() const { return codec_->feature_dim(); }
  int probe_dim() const { return probe_dim_; }
  int input_dim() const { return codec_->feature_dim() + codec_->layout().nu + probe_dim_; }
  int output_dim() const { return codec_->increment_dim(); }
  const StateCodec& codec() const { return *codec_; }

  // x_t (input_dim floats) of state (q, v, a); a may be null when the layout has na = 0,
  // probes when probe_dim() == 0.
  void input(const double* q, const double* v, const double* a, const double* u, const float* probes,
             float* out) const;
  void input(const double* q, const double* v, const double* u, const float* probes, float* out) const {
    input(q, v, nullptr, u, probes, out);
  }
  // Target increment (output_dim floats).
  void target(const double* q0, const double* v0, const double* a0, const double* q1, const double* v1,
              const double* a1, float* out) const;
  void target(const double* q0, const double* v0, const double* q1, const double* v1, float* out) const {
    target(q0, v0, nullptr, q1, v1, nullptr, out);
  }

 private:
  const StateCodec* codec_;
  int probe_dim_;
};

// Inputs, targets and mask of every transition of a dataset, as flat float arrays.
struct TransitionArrays {
  int64_t trajectories = 0, steps = 0;
  int input_dim = 0, output_dim = 0;
  std::vector<float> inputs;   // (N, T, input_dim)
  std::vector<float> targets;  // (N, T, output_dim)
  std::vector<uint8_t> mask;   // (N, T)
  // Contact rows of each transition's input frame, packed (only valid rows): transition i
  // owns rows contact_offset[i] .. contact_offset[i+1]−1. Empty without contacts.
  int contact_capacity = 0;             // K of the dataset (0: no contact rows)
  std::vector<int64_t> contact_offset;  // (N·T + 1)
  std::vector<float> contact_rows;      // (rows, kContactRowDim)
  std::vector<int32_t> contact_link;    // (rows)
  int64_t contact_count(int64_t i) const { return contact_offset[size_t(i + 1)] - contact_offset[size_t(i)]; }
};
// use_probes: include the dataset's fixed-probe features in the inputs. free_velocity: the
// targets are the recorded free_dv (nv) instead of the codec's increments. use_contacts:
// pack the dataset's contact rows (it must have them).
TransitionArrays build_transitions(const Dataset& d, const StateCodec& codec, bool use_probes,
                                  bool free_velocity = false, bool use_contacts = false);

// Deterministic split by trajectory: every trajectory n whose seeded hash falls below
// `valid_fraction` is held out. Returns (train indices, validation indices), both sorted.
std::pair<std::vector<int64_t>, std::vector<int64_t>> split_trajectories(int64_t n,
                                                                         double valid_fraction,
                                                                         uint64_t seed);

}  // namespace flashnerd
