// The codec's maps (core/state_codec.h) on libtorch tensors, differentiable, so that training
// can back-propagate through the model's own steps (--unroll-grad, train/unrolled_loss.h):
// a predicted increment is applied to the state, the new state encoded as the next frame's
// input and compared with the recorded next state, each step on the same formulas as
// StateCodec in double precision. Tensors hold one state per row: q (B, nq), v (B, nv),
// a (B, na, undefined when na = 0); quaternions (w, x, y, z) as in MuJoCo.
//
// The rotation maps stay finite with finite gradients at zero angle (series near 0); angles of
// unbounded hinges are wrapped with a floor that carries no gradient (the wrap's slope is 1).
#pragma once

#include <torch/torch.h>

#include "core/state_layout.h"

namespace flashnerd::train {

struct TorchState {
  torch::Tensor q, v, a;
};

class TorchCodec {
 public:
  explicit TorchCodec(const StateLayout& layout);

  const StateLayout& layout() const { return layout_; }
  int feature_dim() const { return (layout_.floating_base ? 9 : 0) + 2 * layout_.joint_count() + layout_.na; }
  // StateCodec::apply: s advanced by inc (B, increment_dim).
  TorchState apply(const TorchState& s, const torch::Tensor& inc) const;
  // StateCodec::encode: (B, feature_dim).
  torch::Tensor encode(const TorchState& s) const;
  // StateCodec::increment from s0 to s1: (B, increment_dim).
  torch::Tensor increment(const TorchState& s0, const TorchState& s1) const;

 private:
  torch::Tensor wrap_joints(const torch::Tensor& joint_values) const;  // wrapped where the layout says

  StateLayout layout_;
  torch::Tensor wrapped_;  // (nj) bool
  bool any_wrapped_ = false;
};

// Quaternion and rotation-vector maps (core/rotation.h) over the last dimension.
namespace torch_rot {
torch::Tensor quat_mul(const torch::Tensor& a, const torch::Tensor& b);
torch::Tensor quat_conj(const torch::Tensor& q);
torch::Tensor quat_rotate(const torch::Tensor& q, const torch::Tensor& v);
torch::Tensor quat_rotate_inv(const torch::Tensor& q, const torch::Tensor& v);
torch::Tensor rotvec_to_quat(const torch::Tensor& r);
torch::Tensor quat_to_rotvec(const torch::Tensor& q);
torch::Tensor wrap_angle(const torch::Tensor& a);
}  // namespace torch_rot

}  // namespace flashnerd::train
