#include "train/torch_codec.h"

#include <cmath>

namespace flashnerd::train {

namespace torch_rot {

namespace {

using torch::indexing::Slice;

torch::Tensor component(const torch::Tensor& t, int64_t i) { return t.select(-1, i); }
torch::Tensor vector_part(const torch::Tensor& q) { return q.index({"...", Slice(1, 4)}); }

// sqrt(x) where x > threshold, 1 elsewhere: the norm for the branch that divides by it, with a
// gradient that stays finite where the other branch is taken.
torch::Tensor safe_sqrt(const torch::Tensor& x, const torch::Tensor& large) {
  return torch::sqrt(torch::where(large, x, torch::ones_like(x)));
}

}  // namespace

torch::Tensor quat_mul(const torch::Tensor& a, const torch::Tensor& b) {
  const auto aw = component(a, 0), ax = component(a, 1), ay = component(a, 2), az = component(a, 3);
  const auto bw = component(b, 0), bx = component(b, 1), by = component(b, 2), bz = component(b, 3);
  return torch::stack({aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                       aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw},
                      -1);
}

torch::Tensor quat_conj(const torch::Tensor& q) {
  return torch::cat({q.index({"...", Slice(0, 1)}), -vector_part(q)}, -1);
}

torch::Tensor quat_rotate(const torch::Tensor& q, const torch::Tensor& v) {
  // v + 2 w (u × v) + 2 u × (u × v), u = (x, y, z)
  const auto u = vector_part(q);
  const auto t = 2 * torch::cross(u, v, -1);
  return v + component(q, 0).unsqueeze(-1) * t + torch::cross(u, t, -1);
}

torch::Tensor quat_rotate_inv(const torch::Tensor& q, const torch::Tensor& v) { return quat_rotate(quat_conj(q), v); }

torch::Tensor rotvec_to_quat(const torch::Tensor& r) {
  const auto angle2 = (r * r).sum(-1, true);
  const auto large = angle2 > 1e-16;  // angle > 1e-8, StateCodec's threshold
  const auto angle = safe_sqrt(angle2, large);
  const auto scale = torch::where(large, torch::sin(0.5 * angle) / angle, 0.5 - angle2 / 48.0);
  const auto w = torch::where(large, torch::cos(0.5 * angle), 1.0 - angle2 / 8.0);
  return torch::cat({w, r * scale}, -1);
}

torch::Tensor quat_to_rotvec(const torch::Tensor& q_in) {
  auto q = q_in / torch::sqrt((q_in * q_in).sum(-1, true));
  q = torch::where(q.index({"...", Slice(0, 1)}) < 0, -q, q);  // canonical: angle in [0, π]
  const auto u = vector_part(q);
  const auto w = q.index({"...", Slice(0, 1)});
  const auto s2 = (u * u).sum(-1, true);
  const auto large = s2 > 1e-24;  // s > 1e-12, StateCodec's threshold
  const auto s = safe_sqrt(s2, large);
  const auto scale = torch::where(large, 2.0 * torch::atan2(s, w) / s, 2.0 / w);
  return u * scale;
}

torch::Tensor wrap_angle(const torch::Tensor& a) {
  constexpr double kPi = 3.14159265358979323846;
  const auto turns = torch::floor((a.detach() + kPi) / (2 * kPi));  // no gradient: the wrap's slope is 1
  return a - 2 * kPi * turns;
}

}  // namespace torch_rot

namespace {

using torch::indexing::Slice;

torch::Tensor cols(const torch::Tensor& t, int64_t from, int64_t to) { return t.index({Slice(), Slice(from, to)}); }

}  // namespace

TorchCodec::TorchCodec(const StateLayout& layout) : layout_(layout) {
  layout_.validate();
  std::vector<uint8_t> w(layout_.joint_wrapped.begin(), layout_.joint_wrapped.end());
  for (uint8_t x : w) any_wrapped_ = any_wrapped_ || x != 0;
  wrapped_ = torch::tensor(std::vector<int64_t>(w.begin(), w.end()), torch::kLong).to(torch::kBool);
}

torch::Tensor TorchCodec::wrap_joints(const torch::Tensor& x) const {
  return any_wrapped_ ? torch::where(wrapped_, torch_rot::wrap_angle(x), x) : x;
}

TorchState TorchCodec::apply(const TorchState& s, const torch::Tensor& inc) const {
  const StateLayout& l = layout_;
  const int64_t nj = l.joint_count(), o = l.floating_base ? 12 : 0;
  TorchState next;
  const auto qj = wrap_joints(cols(s.q, l.base_nq(), l.nq) + cols(inc, o, o + nj));
  const auto vj = cols(s.v, l.base_nv(), l.nv) + cols(inc, o + nj, o + 2 * nj);
  if (l.floating_base) {
    const auto quat0 = cols(s.q, 3, 7);
    const auto dp = torch_rot::quat_rotate(quat0, cols(inc, 0, 3));
    auto quat1 = torch_rot::quat_mul(quat0, torch_rot::rotvec_to_quat(cols(inc, 3, 6)));
    quat1 = quat1 / torch::sqrt((quat1 * quat1).sum(-1, true));
    const auto vb1 = torch_rot::quat_rotate_inv(quat0, cols(s.v, 0, 3)) + cols(inc, 6, 9);
    next.q = torch::cat({cols(s.q, 0, 3) + dp, quat1, qj}, 1);
    next.v = torch::cat({torch_rot::quat_rotate(quat1, vb1), cols(s.v, 3, 6) + cols(inc, 9, 12), vj}, 1);
  } else {
    next.q = qj;
    next.v = vj;
  }
  if (l.na > 0) next.a = s.a + cols(inc, o + 2 * nj, o + 2 * nj + l.na);
  return next;
}

torch::Tensor TorchCodec::encode(const TorchState& s) const {
  const StateLayout& l = layout_;
  std::vector<torch::Tensor> parts;
  if (l.floating_base) {
    const auto quat = cols(s.q, 3, 7);
    const auto down = torch::tensor({0.0, 0.0, -1.0}, s.q.options()).expand({s.q.size(0), 3});
    parts.push_back(torch_rot::quat_rotate_inv(quat, down));           // gravity direction in the base frame
    parts.push_back(torch_rot::quat_rotate_inv(quat, cols(s.v, 0, 3)));  // linear velocity into the base frame
    parts.push_back(cols(s.v, 3, 6));                                   // MuJoCo's angular velocity is local
  }
  parts.push_back(wrap_joints(cols(s.q, l.base_nq(), l.nq)));
  parts.push_back(cols(s.v, l.base_nv(), l.nv));
  if (l.na > 0) parts.push_back(s.a);
  return torch::cat(parts, 1);
}

torch::Tensor TorchCodec::increment(const TorchState& s0, const TorchState& s1) const {
  const StateLayout& l = layout_;
  std::vector<torch::Tensor> parts;
  if (l.floating_base) {
    const auto quat0 = cols(s0.q, 3, 7), quat1 = cols(s1.q, 3, 7);
    parts.push_back(torch_rot::quat_rotate_inv(quat0, cols(s1.q, 0, 3) - cols(s0.q, 0, 3)));
    // rotation from frame t to frame t+1, in frame t
    parts.push_back(torch_rot::quat_to_rotvec(torch_rot::quat_mul(torch_rot::quat_conj(quat0), quat1)));
    parts.push_back(torch_rot::quat_rotate_inv(quat1, cols(s1.v, 0, 3)) -
                    torch_rot::quat_rotate_inv(quat0, cols(s0.v, 0, 3)));
    parts.push_back(cols(s1.v, 3, 6) - cols(s0.v, 3, 6));
  }
  parts.push_back(wrap_joints(cols(s1.q, l.base_nq(), l.nq) - cols(s0.q, l.base_nq(), l.nq)));
  parts.push_back(cols(s1.v, l.base_nv(), l.nv) - cols(s0.v, l.base_nv(), l.nv));
  if (l.na > 0) parts.push_back(s1.a - s0.a);
  return torch::cat(parts, 1);
}

}  // namespace flashnerd::train
