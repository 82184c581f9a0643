// Task-independent sampling (paper III-A): random robot states and random command
// sequences, no controller, no reward. Every draw takes the caller's seeded Rng.
#pragma once

#include <vector>

#include "core/rng.h"
#include "sim/robot.h"

namespace flashnerd::sim {

// Initial states: joints uniform within their ranges (or perturbations of the nominal pose),
// velocities a mixture of uniform and Gaussian, a random base pose and velocity for a
// floating base (tilt up to base_tilt, any yaw, height in base_height).
class StateSampler {
 public:
  explicit StateSampler(const Robot& robot) : robot_(&robot) {}
  // qpos (robot nq), qvel (robot nv)
  void sample(Rng& rng, double* qpos, double* qvel) const;
  // act (robot na): uniform in each activation's actrange when limited, else in its
  // actuator's command range (a filter or muscle activation follows its command). Draws
  // nothing when na = 0, so robots without activations keep their streams.
  void sample_act(Rng& rng, double* act) const;

 private:
  const Robot* robot_;
};

// Command sequences (one per robot actuator, Robot::actuators()): i.i.d. uniform in the
// actuator's command range (ctrlrange, or the joint range of a position actuator without one), held for k steps, or AR(1) around the
// nominal command: a_t = clip(c a_{t-1} + sqrt(1-c²) ξ_t, ±A), ξ_t ~ U(±A), u = nominal + a.
class CommandSampler {
 public:
  explicit CommandSampler(const Robot& robot);
  void reset(Rng& rng);       // starts a new sequence
  void next(Rng& rng, double* u);  // the command for the next frame (nu)

 private:
  void draw_uniform(Rng& rng, double* u) const;
  const Robot* robot_;
  std::vector<double> current_;  // held command (hold) or AR state a_t (ar1)
  int held_ = 0;
};

}  // namespace flashnerd::sim
