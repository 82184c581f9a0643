#include "core/state_codec.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/enum_names.h"
#include "core/error.h"
#include "core/json_int.h"
#include "core/rotation.h"

namespace flashnerd {

namespace {

constexpr EnumName<ChannelGroup> kChannelGroupNames[] = {{ChannelGroup::BasePosition, "base_position_m"},
                                                         {ChannelGroup::BaseOrientation, "base_orientation_rad"},
                                                         {ChannelGroup::JointPosition, "joint_position"},
                                                         {ChannelGroup::Velocity, "velocity"},
                                                         {ChannelGroup::Activation, "activation"}};

}  // namespace

const char* channel_group_name(ChannelGroup g) { return enum_name(kChannelGroupNames, g); }

void StateLayout::validate() const {
  FN_CHECK(nq > 0 && nv > 0, "state layout: nq=", nq, " nv=", nv, " must be positive");
  FN_CHECK(nu >= 0, "state layout: nu=", nu, " must be non-negative");
  FN_CHECK(na >= 0 && na <= nu, "state layout: na=", na, " must be in [0, nu=", nu, "] (one activation per actuator "
           "with dynamics at most)");
  if (floating_base) {
    FN_CHECK(nq >= 7 && nv >= 6 && nq - 7 == nv - 6,
             "state layout: a floating base needs nq-7 == nv-6 (hinge/slide joints only), got nq=",
             nq, " nv=", nv);
  } else {
    FN_CHECK(nq == nv, "state layout: a fixed base needs nq == nv (hinge/slide joints only), got nq=",
             nq, " nv=", nv, "; ball joints are not supported");
  }
  FN_CHECK(int(joint_wrapped.size()) == joint_count(), "state layout: joint_wrapped has ",
           joint_wrapped.size(), " entries, expected ", joint_count());
  FN_CHECK(joint_names.empty() || int(joint_names.size()) == joint_count(),
           "state layout: joint_names has ", joint_names.size(), " entries, expected ",
           joint_count());
}

bool StateLayout::operator==(const StateLayout& o) const {
  return nq == o.nq && nv == o.nv && na == o.na && nu == o.nu && floating_base == o.floating_base &&
         joint_wrapped == o.joint_wrapped;
}

void to_json(nlohmann::json& j, const StateLayout& s) {
  j = nlohmann::json{{"nq", s.nq},
                     {"nv", s.nv}, {"nu", s.nu}, {"floating_base", s.floating_base},
                     {"joint_wrapped", s.joint_wrapped}, {"joint_names", s.joint_names}};
  if (s.na > 0) j["na"] = s.na;  // absent: 0, as in files written before activations
}

void from_json(const nlohmann::json& j, StateLayout& s) {
  s.nq = json_int<int>(j.at("nq"), "field 'nq'");  // a float or huge value must not be cast (fuzz)
  s.nv = json_int<int>(j.at("nv"), "field 'nv'");
  s.nu = json_int<int>(j.at("nu"), "field 'nu'");
  s.na = j.contains("na") ? json_int<int>(j.at("na"), "field 'na'") : 0;  // older files: no activations
  s.floating_base = j.at("floating_base").get<bool>();
  s.joint_wrapped = json_int_list<uint8_t>(j.at("joint_wrapped"), "field 'joint_wrapped'");
  s.joint_names = j.value("joint_names", std::vector<std::string>{});
}

StateCodec::StateCodec(StateLayout layout) : layout_(std::move(layout)) {
  layout_.validate();
  const int nj = layout_.joint_count();
  auto joint_name = [&](int i) {
    return layout_.joint_names.empty() ? "joint" + std::to_string(i) : layout_.joint_names[size_t(i)];
  };
  if (layout_.floating_base) {
    feature_dim_ = 9 + 2 * nj;
    increment_dim_ = 12 + 2 * nj;
    const char* axes[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i) {
      channel_groups_.push_back(ChannelGroup::BasePosition);
      channel_names_.push_back(std::string("base_pos_") + axes[i]);
    }
    for (int i = 0; i < 3; ++i) {
      channel_groups_.push_back(ChannelGroup::BaseOrientation);
      channel_names_.push_back(std::string("base_rot_") + axes[i]);
    }
    for (int i = 0; i < nj; ++i) {
      channel_groups_.push_back(ChannelGroup::JointPosition);
      channel_names_.push_back(joint_name(i));
    }
    const char* base_vel[6] = {"base_vx", "base_vy", "base_vz", "base_wx", "base_wy", "base_wz"};
    for (int i = 0; i < 6; ++i) {
      channel_groups_.push_back(ChannelGroup::Velocity);
      channel_names_.push_back(base_vel[i]);
    }
  } else {
    feature_dim_ = layout_.nq + layout_.nv;
    increment_dim_ = layout_.nq + layout_.nv;
    for (int i = 0; i < nj; ++i) {
      channel_groups_.push_back(ChannelGroup::JointPosition);
      channel_names_.push_back(joint_name(i));
    }
  }
  for (int i = 0; i < nj; ++i) {
    channel_groups_.push_back(ChannelGroup::Velocity);
    channel_names_.push_back(joint_name(i) + "_vel");
  }
  // activations: raw values as features and channels, their change as increments
  feature_dim_ += layout_.na;
  increment_dim_ += layout_.na;
  for (int i = 0; i < layout_.na; ++i) {
    channel_groups_.push_back(ChannelGroup::Activation);
    channel_names_.push_back("act" + std::to_string(i));
  }
  channel_dim_ = int(channel_groups_.size());
}

namespace {

// Joint coordinate difference, wrapped for unbounded hinges.
inline double joint_delta(const StateLayout& l, int j, double from, double to) {
  double d = to - from;
  return l.joint_wrapped[size_t(j)] ? rot::wrap_angle(d) : d;
}

}  // namespace

void StateCodec::encode(const double* q, const double* v, const double* a, double* f) const {
  const StateLayout& l = layout_;
  const int nj = l.joint_count();
  int o = 0;
  const double* qj = q;
  const double* vj = v;
  if (l.floating_base) {
    const double* quat = q + 3;
    const double down[3] = {0, 0, -1};
    rot::quat_rotate_inv(quat, down, f + 0);  // gravity direction in the base frame
    rot::quat_rotate_inv(quat, v, f + 3);     // linear velocity (world) into the base frame
    for (int i = 0; i < 3; ++i) f[6 + i] = v[3 + i];  // MuJoCo's angular velocity is local
    o = 9;
    qj = q + 7;
    vj = v + 6;
  }
  for (int i = 0; i < nj; ++i) f[o + i] = l.joint_wrapped[size_t(i)] ? rot::wrap_angle(qj[i]) : qj[i];
  for (int i = 0; i < nj; ++i) f[o + nj + i] = vj[i];
  FN_ASSERT(l.na == 0 || a != nullptr);
  for (int i = 0; i < l.na; ++i) f[o + 2 * nj + i] = a[i];
}

void StateCodec::increment(const double* q0, const double* v0, const double* a0, const double* q1,
                           const double* v1, const double* a1, double* inc) const {
  const StateLayout& l = layout_;
  const int nj = l.joint_count();
  int o = 0;
  const double* qj0 = q0;
  const double* qj1 = q1;
  const double* vj0 = v0;
  const double* vj1 = v1;
  if (l.floating_base) {
    const double* quat0 = q0 + 3;
    const double* quat1 = q1 + 3;
    double dp[3] = {q1[0] - q0[0], q1[1] - q0[1], q1[2] - q0[2]};
    rot::quat_rotate_inv(quat0, dp, inc + 0);
    double c[4], dq[4];
    rot::quat_conj(quat0, c);
    rot::quat_mul(c, quat1, dq);  // rotation from frame t to frame t+1, in frame t
    rot::quat_to_rotvec(dq, inc + 3);
    double vb0[3], vb1[3];
    rot::quat_rotate_inv(quat0, v0, vb0);
    rot::quat_rotate_inv(quat1, v1, vb1);
    for (int i = 0; i < 3; ++i) inc[6 + i] = vb1[i] - vb0[i];
    for (int i = 0; i < 3; ++i) inc[9 + i] = v1[3 + i] - v0[3 + i];
    o = 12;
    qj0 += 7;
    qj1 += 7;
    vj0 += 6;
    vj1 += 6;
  }
  for (int i = 0; i < nj; ++i) inc[o + i] = joint_delta(l, i, qj0[i], qj1[i]);
  for (int i = 0; i < nj; ++i) inc[o + nj + i] = vj1[i] - vj0[i];
  FN_ASSERT(l.na == 0 || (a0 != nullptr && a1 != nullptr));
  for (int i = 0; i < l.na; ++i) inc[o + 2 * nj + i] = a1[i] - a0[i];
}

bool StateCodec::advance_finite(const double* q0, const double* v0, const double* a0, const double* inc, double* q1,
                                double* v1, double* a1, bool frozen) const {
  const StateLayout& l = layout_;
  bool finite = !frozen;
  if (finite) {
    apply(q0, v0, a0, inc, q1, v1, a1);
    for (int i = 0; i < l.nq && finite; ++i) finite = std::isfinite(q1[i]);
    for (int i = 0; i < l.nv && finite; ++i) finite = std::isfinite(v1[i]);
    for (int i = 0; i < l.na && finite; ++i) finite = std::isfinite(a1[i]);
  }
  if (!finite) {
    std::copy_n(q0, l.nq, q1);
    std::copy_n(v0, l.nv, v1);
    if (l.na > 0) std::copy_n(a0, l.na, a1);
  }
  return finite;
}

void StateCodec::apply(const double* q0, const double* v0, const double* a0, const double* inc,
                       double* q1, double* v1, double* a1) const {
  const StateLayout& l = layout_;
  const int nj = l.joint_count();
  int o = 0;
  const double* qj0 = q0;
  const double* vj0 = v0;
  double* qj1 = q1;
  double* vj1 = v1;
  if (l.floating_base) {
    const double* quat0 = q0 + 3;
    double dp[3];
    rot::quat_rotate(quat0, inc + 0, dp);
    double quat0_copy[4] = {quat0[0], quat0[1], quat0[2], quat0[3]};
    double dq[4], quat1[4];
    rot::rotvec_to_quat(inc + 3, dq);
    rot::quat_mul(quat0_copy, dq, quat1);
    rot::quat_normalize(quat1);
    double vb0[3], vb1[3];
    rot::quat_rotate_inv(quat0_copy, v0, vb0);
    for (int i = 0; i < 3; ++i) vb1[i] = vb0[i] + inc[6 + i];
    double w1[3] = {v0[3] + inc[9], v0[4] + inc[10], v0[5] + inc[11]};
    for (int i = 0; i < 3; ++i) q1[i] = q0[i] + dp[i];
    for (int i = 0; i < 4; ++i) q1[3 + i] = quat1[i];
    rot::quat_rotate(quat1, vb1, v1);
    for (int i = 0; i < 3; ++i) v1[3 + i] = w1[i];
    o = 12;
    qj0 += 7;
    vj0 += 6;
    qj1 += 7;
    vj1 += 6;
  }
  for (int i = 0; i < nj; ++i) {
    double next = qj0[i] + inc[o + i];
    qj1[i] = l.joint_wrapped[size_t(i)] ? rot::wrap_angle(next) : next;
  }
  for (int i = 0; i < nj; ++i) vj1[i] = vj0[i] + inc[o + nj + i];
  FN_ASSERT(l.na == 0 || (a0 != nullptr && a1 != nullptr));
  for (int i = 0; i < l.na; ++i) a1[i] = a0[i] + inc[o + 2 * nj + i];
}

void StateCodec::channels(const double* q, const double* v, const double* a, double* out) const {
  const StateLayout& l = layout_;
  if (l.floating_base) {
    std::copy_n(q, 3, out);
    rot::quat_to_rotvec(q + 3, out + 3);
  }
  const double* qj = q + l.base_nq();
  double* joints = out + l.base_nv();  // a base's channels: position and rotation vector
  for (int i = 0; i < l.joint_count(); ++i) joints[i] = l.joint_wrapped[size_t(i)] ? rot::wrap_angle(qj[i]) : qj[i];
  double* velocities = joints + l.joint_count();
  std::copy_n(v, l.nv, velocities);
  FN_ASSERT(l.na == 0 || a != nullptr);
  if (l.na > 0) std::copy_n(a, l.na, velocities + l.nv);
}

void StateCodec::channel_error(const double* q_pred, const double* v_pred, const double* a_pred,
                               const double* q_true, const double* v_true, const double* a_true,
                               double* err) const {
  const StateLayout& l = layout_;
  if (l.floating_base) {
    for (int i = 0; i < 3; ++i) err[i] = q_pred[i] - q_true[i];
    rot::orientation_error(q_pred + 3, q_true + 3, err + 3);
  }
  const double *qjp = q_pred + l.base_nq(), *qjt = q_true + l.base_nq();
  double* joints = err + l.base_nv();  // a base's channels: position and rotation vector
  for (int i = 0; i < l.joint_count(); ++i) joints[i] = joint_delta(l, i, qjt[i], qjp[i]);
  double* velocities = joints + l.joint_count();
  for (int i = 0; i < l.nv; ++i) velocities[i] = v_pred[i] - v_true[i];
  FN_ASSERT(l.na == 0 || (a_pred != nullptr && a_true != nullptr));
  for (int i = 0; i < l.na; ++i) velocities[l.nv + i] = a_pred[i] - a_true[i];
}

}  // namespace flashnerd
