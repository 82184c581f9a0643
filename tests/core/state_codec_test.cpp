// StateCodec: encode/increment/apply round trips on random states, fixed and floating base.
#include "core/state_codec.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "core/rotation.h"

namespace flashnerd {
namespace {

StateLayout floating_layout(int nj, int nu) {
  StateLayout l;
  l.floating_base = true;
  l.nq = 7 + nj;
  l.nv = 6 + nj;
  l.nu = nu;
  l.joint_wrapped.assign(size_t(nj), 0);
  return l;
}

void random_state(const StateLayout& l, Rng& rng, std::vector<double>& q, std::vector<double>& v) {
  q.resize(size_t(l.nq));
  v.resize(size_t(l.nv));
  for (auto& x : q) x = rng.uniform(-2, 2);
  for (auto& x : v) x = rng.normal(0, 1);
  if (l.floating_base) {
    double quat[4] = {rng.normal(), rng.normal(), rng.normal(), rng.normal()};
    rot::quat_normalize(quat);
    for (int i = 0; i < 4; ++i) q[size_t(3 + i)] = quat[i];
  }
}

TEST(StateCodec, IncrementApplyRoundTripFloatingBase) {
  StateCodec codec(floating_layout(5, 5));
  Rng rng(7);
  std::vector<double> q0, v0, q1, v1, inc(size_t(codec.increment_dim())), q2(q0.size()), v2;
  for (int trial = 0; trial < 200; ++trial) {
    random_state(codec.layout(), rng, q0, v0);
    random_state(codec.layout(), rng, q1, v1);
    codec.increment(q0.data(), v0.data(), q1.data(), v1.data(), inc.data());
    q2.assign(q0.size(), 0);
    v2.assign(v0.size(), 0);
    codec.apply(q0.data(), v0.data(), inc.data(), q2.data(), v2.data());
    // the same orientation (q and -q are one rotation), position, joints, velocities
    std::vector<double> err(size_t(codec.channel_dim()));
    codec.channel_error(q2.data(), v2.data(), q1.data(), v1.data(), err.data());
    for (double e : err) EXPECT_NEAR(e, 0.0, 1e-9);
  }
}

TEST(StateCodec, WrappedHingeUsesShortestDifference) {
  StateLayout l;
  l.nq = l.nv = 1;
  l.nu = 1;
  l.joint_wrapped = {1};
  StateCodec codec(l);
  double q0 = 3.1, q1 = -3.1, v = 0, inc[2], q2, v2;
  codec.increment(&q0, &v, &q1, &v, inc);
  EXPECT_NEAR(inc[0], 2 * M_PI - 6.2, 1e-12);
  codec.apply(&q0, &v, inc, &q2, &v2);
  EXPECT_NEAR(q2, -3.1, 1e-12);
}

TEST(StateCodec, FeaturesAreInvariantToBaseYawAndPosition) {
  // A frame's encoding depends only on the robot-centric state: moving the base in the plane
  // and turning it about gravity must not change the features.
  StateCodec codec(floating_layout(3, 3));
  Rng rng(3);
  std::vector<double> q, v;
  random_state(codec.layout(), rng, q, v);
  std::vector<double> f0(size_t(codec.feature_dim())), f1(f0.size());
  codec.encode(q.data(), v.data(), f0.data());
  double yaw[4];
  double r[3] = {0, 0, 0.7};
  rot::rotvec_to_quat(r, yaw);
  std::vector<double> q2 = q, v2 = v;
  q2[0] += 5;
  q2[1] -= 2;
  rot::quat_mul(yaw, q.data() + 3, q2.data() + 3);
  rot::quat_rotate(yaw, v.data(), v2.data());  // world linear velocity turns with the base
  codec.encode(q2.data(), v2.data(), f1.data());
  for (size_t i = 0; i < f0.size(); ++i) EXPECT_NEAR(f0[i], f1[i], 1e-12) << "feature " << i;
}

TEST(Rotation, RotvecIsCanonical) {
  double q[4] = {-0.5, 0.5, 0.5, 0.5}, r[3], back[4];
  rot::quat_to_rotvec(q, r);
  double angle = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
  EXPECT_LE(angle, M_PI + 1e-12);
  rot::rotvec_to_quat(r, back);
  double dot = 0;
  for (int i = 0; i < 4; ++i) dot += q[i] * back[i];
  EXPECT_NEAR(std::fabs(dot), 1.0, 1e-12);
}

}  // namespace
}  // namespace flashnerd
