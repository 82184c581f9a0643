// StateCodec: the one place that turns states into model features and increments and back
// (docs/DESIGN.md §1). Each frame is encoded in its own base frame, so a frame's encoding
// never changes after it is made (what makes the key/value cache valid).
//
// Fixed base:    features   = [q (joints wrapped), v]                          nq + nv
//                increment  = [Δq (wrapped difference), Δv]                    nq + nv
// Floating base: features   = [gravity_b(3), vlin_b(3), ω_b(3), q_j, v_j]      9 + 2 nj
//                increment  = [Δp_b(3), rotvec(3), Δvlin_b(3), Δω_b(3), Δq_j, Δv_j]
//                with Δp_b and the rotation vector in the current base frame, Δvlin_b and
//                Δω_b the change of base-frame velocities (each frame in its own base frame).
// Evaluation channels (for NRMSE): fixed base [q, v]; floating base [p(3), rot(3), q_j, v],
// where the orientation error is the canonical rotation vector of conj(q_true) ⊗ q_pred.
// Activations (layout.na > 0: actuators with dynamics) are extra state channels at the end of
// each vector: features and channels += a (na), increments += Δa = a1 − a0 (na). With na = 0
// every vector is what it was before activations existed, bit for bit. The overloads without
// activations are for na = 0 (the others take a null activation pointer when na = 0).
#pragma once

#include <string>
#include <vector>

#include "core/state_layout.h"

namespace flashnerd {

enum class ChannelGroup { BasePosition, BaseOrientation, JointPosition, Velocity, Activation };
const char* channel_group_name(ChannelGroup g);

class StateCodec {
 public:
  explicit StateCodec(StateLayout layout);

  const StateLayout& layout() const { return layout_; }
  int feature_dim() const { return feature_dim_; }
  int increment_dim() const { return increment_dim_; }
  int channel_dim() const { return channel_dim_; }

  // features (feature_dim) of the state (q, v, a).
  void encode(const double* q, const double* v, const double* a, double* features) const;
  void encode(const double* q, const double* v, double* features) const { encode(q, v, nullptr, features); }
  // increment (increment_dim) that takes (q0, v0, a0) to (q1, v1, a1).
  void increment(const double* q0, const double* v0, const double* a0, const double* q1, const double* v1,
                 const double* a1, double* inc) const;
  void increment(const double* q0, const double* v0, const double* q1, const double* v1, double* inc) const {
    increment(q0, v0, nullptr, q1, v1, nullptr, inc);
  }
  // (q1, v1, a1) = (q0, v0, a0) advanced by inc; quaternions integrated exactly, then normalized.
  void apply(const double* q0, const double* v0, const double* a0, const double* inc, double* q1, double* v1,
             double* a1) const;
  void apply(const double* q0, const double* v0, const double* inc, double* q1, double* v1) const {
    apply(q0, v0, nullptr, inc, q1, v1, nullptr);
  }
  // The step every rollout takes (environments, eval, Python): (q1, v1, a1) = apply(...) when
  // that state is finite and `frozen` is false; otherwise (q1, v1, a1) = (q0, v0, a0), the last
  // finite state, so later steps stay defined. Returns whether the state advanced.
  bool advance_finite(const double* q0, const double* v0, const double* a0, const double* inc, double* q1, double* v1,
                      double* a1, bool frozen = false) const;
  // Raw evaluation channels of a state (channel_dim); orientation as canonical rotation vector.
  void channels(const double* q, const double* v, const double* a, double* out) const;
  void channels(const double* q, const double* v, double* out) const { channels(q, v, nullptr, out); }
  // Signed per-channel error of a predicted state against the truth (channel_dim).
  void channel_error(const double* q_pred, const double* v_pred, const double* a_pred, const double* q_true,
                     const double* v_true, const double* a_true, double* err) const;
  void channel_error(const double* q_pred, const double* v_pred, const double* q_true, const double* v_true,
                     double* err) const {
    channel_error(q_pred, v_pred, nullptr, q_true, v_true, nullptr, err);
  }

  ChannelGroup channel_group(int c) const { return channel_groups_[size_t(c)]; }
  const std::string& channel_name(int c) const { return channel_names_[size_t(c)]; }

 private:
  StateLayout layout_;
  int feature_dim_ = 0;
  int increment_dim_ = 0;
  int channel_dim_ = 0;
  std::vector<ChannelGroup> channel_groups_;
  std::vector<std::string> channel_names_;
};

}  // namespace flashnerd
