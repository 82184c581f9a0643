#include "core/rotation.h"

#include <cmath>

namespace flashnerd::rot {

void quat_mul(const double a[4], const double b[4], double out[4]) {
  double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  out[0] = w;
  out[1] = x;
  out[2] = y;
  out[3] = z;
}

void quat_conj(const double q[4], double out[4]) {
  out[0] = q[0];
  out[1] = -q[1];
  out[2] = -q[2];
  out[3] = -q[3];
}

void quat_normalize(double q[4]) {
  double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n < 1e-300) {
    q[0] = 1;
    q[1] = q[2] = q[3] = 0;
    return;
  }
  for (int i = 0; i < 4; ++i) q[i] /= n;
}

void quat_rotate(const double q[4], const double v[3], double out[3]) {
  // v + 2 w (u × v) + 2 u × (u × v), u = (x, y, z)
  const double* u = q + 1;
  double t[3] = {2 * (u[1] * v[2] - u[2] * v[1]), 2 * (u[2] * v[0] - u[0] * v[2]),
                 2 * (u[0] * v[1] - u[1] * v[0])};
  double r0 = v[0] + q[0] * t[0] + (u[1] * t[2] - u[2] * t[1]);
  double r1 = v[1] + q[0] * t[1] + (u[2] * t[0] - u[0] * t[2]);
  double r2 = v[2] + q[0] * t[2] + (u[0] * t[1] - u[1] * t[0]);
  out[0] = r0;
  out[1] = r1;
  out[2] = r2;
}

void quat_rotate_inv(const double q[4], const double v[3], double out[3]) {
  double c[4];
  quat_conj(q, c);
  quat_rotate(c, v, out);
}

void quat_to_rotvec(const double q_in[4], double out[3]) {
  double q[4] = {q_in[0], q_in[1], q_in[2], q_in[3]};
  quat_normalize(q);
  if (q[0] < 0) {  // canonical: angle in [0, π]
    for (double& c : q) c = -c;
  }
  double s = std::sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  double angle = 2.0 * std::atan2(s, q[0]);
  // angle / s, with its series near s = 0 (angle ≈ 2 s)
  double scale = s > 1e-12 ? angle / s : 2.0 / q[0];
  out[0] = q[1] * scale;
  out[1] = q[2] * scale;
  out[2] = q[3] * scale;
}

void rotvec_to_quat(const double r[3], double out[4]) {
  double angle = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
  double half = 0.5 * angle;
  // sin(half)/angle, with its series near 0
  double scale = angle > 1e-8 ? std::sin(half) / angle : 0.5 - angle * angle / 48.0;
  out[0] = std::cos(half);
  out[1] = r[0] * scale;
  out[2] = r[1] * scale;
  out[3] = r[2] * scale;
}

void orientation_error(const double q_pred[4], const double q_true[4], double out[3]) {
  double c[4], d[4];
  quat_conj(q_true, c);
  quat_mul(c, q_pred, d);
  quat_to_rotvec(d, out);
}

void yaw_quat(double yaw, double out[4]) {
  out[0] = std::cos(yaw / 2);
  out[1] = out[2] = 0;
  out[3] = std::sin(yaw / 2);
}

double wrap_angle(double a) {
  constexpr double kPi = 3.14159265358979323846;
  double w = std::fmod(a + kPi, 2 * kPi);
  if (w < 0) w += 2 * kPi;
  return w - kPi;
}

}  // namespace flashnerd::rot
