// Quaternion and rotation-vector maths, the only copy in the project. Quaternions are
// (w, x, y, z) as in MuJoCo, unit norm, Hamilton product; rotations act on column vectors.
#pragma once

namespace flashnerd::rot {

// out = a ⊗ b
void quat_mul(const double a[4], const double b[4], double out[4]);
// out = conj(q) (the inverse for a unit quaternion)
void quat_conj(const double q[4], double out[4]);
void quat_normalize(double q[4]);
// out = R(q) v          (body to world)
void quat_rotate(const double q[4], const double v[3], double out[3]);
// out = R(q)^T v        (world to body)
void quat_rotate_inv(const double q[4], const double v[3], double out[3]);
// Canonical rotation vector of q: axis * angle with angle in [0, π] (q and -q map alike).
void quat_to_rotvec(const double q[4], double out[3]);
// Unit quaternion of the rotation vector r (exact for any angle).
void rotvec_to_quat(const double r[3], double out[4]);
// Orientation error of q_pred against q_true: the canonical rotation vector of
// conj(q_true) ⊗ q_pred (in q_true's frame).
void orientation_error(const double q_pred[4], const double q_true[4], double out[3]);
// The rotation by `yaw` (rad) about the vertical: (cos(yaw/2), 0, 0, sin(yaw/2)).
void yaw_quat(double yaw, double out[4]);
// Wraps an angle to [-π, π).
double wrap_angle(double a);

}  // namespace flashnerd::rot
