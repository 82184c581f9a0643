// The differentiable codec against StateCodec: the same apply, encode and increment on random
// states of a fixed base with a wrapped hinge and of a floating base with an activation, and
// finite gradients at zero rotation (where the rotation maps switch to their series).
#include "train/torch_codec.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "core/rotation.h"
#include "core/state_codec.h"

namespace flashnerd::train {
namespace {

StateLayout fixed_layout() {
  StateLayout l;
  l.nq = l.nv = l.nu = 2;
  l.joint_wrapped = {1, 0};
  return l;
}

StateLayout floating_layout() {
  StateLayout l;
  l.nq = 9;
  l.nv = 8;
  l.nu = 2;
  l.na = 1;
  l.floating_base = true;
  l.joint_wrapped = {0, 1};
  return l;
}

struct RandomStates {
  int count;
  std::vector<double> q, v, a;
};

RandomStates random_states(const StateLayout& l, int count, Rng& rng) {
  RandomStates s{count, std::vector<double>(size_t(count * l.nq)), std::vector<double>(size_t(count * l.nv)),
                 std::vector<double>(size_t(count * l.na))};
  for (double& x : s.q) x = rng.uniform(-4, 4);  // beyond ±π: wrapped hinges wrap
  for (double& x : s.v) x = rng.uniform(-3, 3);
  for (double& x : s.a) x = rng.uniform(-1, 1);
  if (l.floating_base)
    for (int b = 0; b < count; ++b) rot::quat_normalize(&s.q[size_t(b * l.nq + 3)]);
  return s;
}

TorchState to_torch(const StateLayout& l, const RandomStates& s) {
  auto opts = torch::TensorOptions().dtype(torch::kDouble);
  TorchState t{torch::tensor(s.q, opts).view({s.count, l.nq}), torch::tensor(s.v, opts).view({s.count, l.nv}),
               torch::Tensor()};
  if (l.na > 0) t.a = torch::tensor(s.a, opts).view({s.count, l.na});
  return t;
}

void expect_rows_near(const torch::Tensor& t, int64_t row, const double* expected, int n, double tol,
                      const char* what) {
  ASSERT_EQ(t.size(1), n) << what;
  for (int i = 0; i < n; ++i) EXPECT_NEAR(t[row][i].item<double>(), expected[i], tol) << what << " row " << row << " " << i;
}

void check_layout(const StateLayout& l) {
  const StateCodec codec(l);
  const TorchCodec tcodec(l);
  Rng rng(3);
  const int count = 32;
  const RandomStates s0 = random_states(l, count, rng), s1 = random_states(l, count, rng);
  std::vector<double> inc(size_t(count * codec.increment_dim()));
  for (double& x : inc) x = rng.uniform(-0.5, 0.5);
  for (int i = 0; i < 3 && l.floating_base; ++i) inc[size_t(3 + i)] = 0;  // row 0: zero rotation, the series branch
  const TorchState t0 = to_torch(l, s0), t1 = to_torch(l, s1);
  const auto tinc = torch::tensor(inc, torch::TensorOptions().dtype(torch::kDouble)).view({count, codec.increment_dim()});
  const TorchState applied = tcodec.apply(t0, tinc);
  const torch::Tensor features = tcodec.encode(t0), increments = tcodec.increment(t0, t1);
  ASSERT_EQ(tcodec.feature_dim(), codec.feature_dim());
  std::vector<double> q(size_t(l.nq)), v(size_t(l.nv)), a(size_t(std::max(1, l.na))), f(size_t(codec.feature_dim())),
      d(size_t(codec.increment_dim()));
  for (int b = 0; b < count; ++b) {
    const double* q0 = &s0.q[size_t(b * l.nq)];
    const double* v0 = &s0.v[size_t(b * l.nv)];
    const double* a0 = l.na > 0 ? &s0.a[size_t(b * l.na)] : nullptr;
    const double* a1 = l.na > 0 ? &s1.a[size_t(b * l.na)] : nullptr;
    codec.apply(q0, v0, a0, &inc[size_t(b * codec.increment_dim())], q.data(), v.data(), a.data());
    expect_rows_near(applied.q, b, q.data(), l.nq, 1e-12, "apply q");
    expect_rows_near(applied.v, b, v.data(), l.nv, 1e-12, "apply v");
    if (l.na > 0) expect_rows_near(applied.a, b, a.data(), l.na, 1e-12, "apply a");
    codec.encode(q0, v0, a0, f.data());
    expect_rows_near(features, b, f.data(), codec.feature_dim(), 1e-12, "encode");
    codec.increment(q0, v0, a0, &s1.q[size_t(b * l.nq)], &s1.v[size_t(b * l.nv)], a1, d.data());
    expect_rows_near(increments, b, d.data(), codec.increment_dim(), 1e-10, "increment");
  }
}

TEST(TorchCodec, FixedBaseEqualsStateCodec) { check_layout(fixed_layout()); }

TEST(TorchCodec, FloatingBaseEqualsStateCodec) { check_layout(floating_layout()); }

TEST(TorchCodec, GradientsAreFiniteAtZeroRotation) {
  const StateLayout l = floating_layout();
  const TorchCodec codec(l);
  Rng rng(5);
  const RandomStates s = random_states(l, 4, rng);
  const TorchState t = to_torch(l, s);
  auto inc = torch::zeros({4, 12 + 2 * 2 + 1}, torch::TensorOptions().dtype(torch::kDouble)).requires_grad_(true);
  const TorchState next = codec.apply(t, inc);
  // the increment back to the start state is zero rotation as well
  const torch::Tensor loss = codec.encode(next).pow(2).sum() + codec.increment(next, t).pow(2).sum();
  loss.backward();
  EXPECT_TRUE(torch::isfinite(inc.grad()).all().item<bool>());
  EXPECT_GT(inc.grad().abs().sum().item<double>(), 0);
}

}  // namespace
}  // namespace flashnerd::train
