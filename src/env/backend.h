// Backend: batched robot dynamics, the one contract that environments, planners and rollouts
// step (docs/DESIGN.md §9). A backend holds the state (q, v) of `envs` robots, sets or resets chosen
// environments (learned backends also clear that environment's history, and only its own),
// steps all of them with commands and senses the robot's fixed probes (e.g. the feet) at the
// new states, so tasks can see foot contact without physics of their own. Everything is
// preallocated for `envs`; step() never allocates.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "sim/robot.h"
#include "sim/scene.h"

namespace flashnerd::env {

// Where a backend's time goes (seconds, summed over steps), and what the model read.
struct BackendTimings {
  double dynamics_seconds = 0;  // MuJoCo steps, or the model's steps and state decoding
  double sensing_seconds = 0;   // kinematics, probes and contact rows at the new states
  int64_t env_steps = 0;        // environment transitions stepped
  int64_t contact_rows = 0;     // Σ contact rows detected at the new states (variable-contact models)
  int64_t active_probes = 0;    // Σ fixed probes within threshold at the new states (probe models)
  int32_t max_contact_rows = 0;     // most contact rows detected at one state
  int64_t contact_rows_dropped = 0; // Σ rows detected beyond the model's capacity (lost to it)
};

// A capability: a backend whose scene holds the robot's platform (quadruped_platform) and can
// move it for every environment (a planner on one terrain). Backend::platform_scene hands it out.
class PlatformScene {
 public:
  virtual ~PlatformScene() = default;
  virtual void set_platform(const sim::Platform& platform) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  // "mujoco", "flashnerd" or "nerd".
  virtual std::string kind() const = 0;
  const sim::Robot& robot() const { return *robot_; }
  int envs() const { return envs_; }
  int nq() const { return nq_; }
  int nv() const { return nv_; }
  int nu() const { return nu_; }
  double control_timestep() const { return robot_->control_timestep(); }

  // Sets environment env to (q, v) and starts its history afresh; others are untouched.
  virtual void reset(int env, const double* q, const double* v) = 0;
  // Sets environment env's current state to (q, v) and keeps its history: the next step
  // reads this state after the frames it already has (a planner teacher-forcing its tracker
  // with the measured state). For MuJoCo the same as reset without clearing warm starts.
  virtual void set_state(int env, const double* q, const double* v) = 0;
  // Resets env to the last of `frames` + 1 recorded states reached by `frames` recorded
  // commands: q (frames + 1, nq), v (frames + 1, nv), u (frames, nu). A learned backend's
  // history then holds the recorded frames, as if env had stepped them teacher-forced (imagined
  // rollouts branch from real states with their real histories this way); MuJoCo's state is
  // its whole history, so it resets to the last state. Objects stay where they are.
  virtual void reset_with_history(int env, int frames, const double* q, const double* v, const double* u);
  // Recorded steps before a state that reset_with_history can use: a learned model's history
  // beyond the current frame, 0 where the state is the whole history (MuJoCo).
  virtual int history_frames() const { return 0; }
  // Contact rows a variable-contact model reads per state; 0 where the backend reads none.
  virtual int contact_capacity() const { return 0; }
  // Advances every environment one control step with commands u (envs, nu).
  void step(const double* u) { step_first(u, envs_); }
  // Advances environments 0..count−1 with commands u (count, nu); the rest keep their state
  // and history (a planner steps its samples, not its tracker).
  virtual void step_first(const double* u, int count) = 0;
  // Environment dst becomes a copy of environment src: state, history, sensing (planners fork
  // one state into many samples).
  virtual void copy_env(int src, int dst) = 0;

  const double* q(int env) const { return q_.data() + size_t(env) * size_t(nq_); }
  const double* v(int env) const { return v_.data() + size_t(env) * size_t(nv_); }
  // 1 when env's last step failed (non-finite state, simulator instability): tasks end it.
  bool failed(int env) const { return failed_[size_t(env)] != 0; }
  // Signed clearance (m) of each of the robot's fixed probes (the spec's `probes`, e.g. the
  // feet) to the nearest external geometry at the current state; probe radius subtracted.
  int probe_count() const { return probe_count_; }
  const double* probe_clearance(int env) const {
    return clearance_.data() + size_t(env) * size_t(probe_count_);
  }

  // Objects simulated with the robot (the cube of hand16): the scene's joints outside the
  // robot's block, in scene order. None (0) when the scene is the robot alone.
  int object_nq() const { return onq_; }
  int object_nv() const { return onv_; }
  const double* object_q(int env) const { return oq_.data() + size_t(env) * size_t(onq_); }
  const double* object_v(int env) const { return ov_.data() + size_t(env) * size_t(onv_); }
  // Places env's objects; reset and set_state leave them where they are. Throws for a
  // backend without objects.
  virtual void set_objects(int env, const double* q, const double* v);
  // env's robot and objects as the scene's full qpos / qvel (the robot's MuJoCo model: for
  // pictures of a robot with objects).
  void write_scene_state(int env, double* qpos, double* qvel) const;

  // World position (x, y, z) of each fixed probe's centre at the current state.
  const double* probe_position(int env) const {
    return probe_position_.data() + size_t(env) * size_t(3 * probe_count_);
  }
  // Bodies whose world pose tasks read (env/task_signals.h): MuJoCo body ids of the robot's
  // model. Set once before stepping (it allocates); every state the backend senses from then on
  // fills each body's pose, position (3) then orientation quaternion (w, x, y, z).
  void track_bodies(const std::vector<int>& bodies);
  int tracked_body_count() const { return int(tracked_bodies_.size()); }
  const double* body_pose(int env, int slot) const {
    return body_pose_.data() + (size_t(env) * tracked_bodies_.size() + size_t(slot)) * 7;
  }

  // Capabilities some backends have, nullptr where they do not: the scene's platform.
  virtual PlatformScene* platform_scene() { return nullptr; }

  // Learned ensembles (env/learned_backend.h): the members stepped, and after each step every
  // environment's disagreement, the mean over increment channels of the standard deviation
  // across members of the standardized predicted increment. 1 member and 0 everywhere else.
  int ensemble_size() const { return ensemble_size_; }
  float disagreement(int env) const { return disagreement_.empty() ? 0.f : disagreement_[size_t(env)]; }

  const BackendTimings& timings() const { return timings_; }
  void clear_timings() { timings_ = {}; }

  // Everything needed to continue bit-exactly (states and histories), for checkpoints.
  virtual std::string save_state() const = 0;
  virtual void load_state(const std::string& bytes) = 0;

 protected:
  Backend(std::shared_ptr<const sim::Robot> robot, int envs, ThreadPool& pool);
  // Probe clearances and tracked body poses of env from positions already computed in (m, d).
  void sense_probes(int env, const mjModel* m, const mjData* d);
  // Whether sensing has anything to compute (probes or tracked bodies).
  bool senses_positions() const { return probe_count_ > 0 || !tracked_bodies_.empty(); }
  // Copies row src of a per-env array of `width` values to row dst.
  template <class T>
  static void copy_row(std::vector<T>& a, int width, int src, int dst) {
    std::copy_n(a.begin() + long(src) * width, width, a.begin() + long(dst) * width);
  }
  // The base's per-env arrays (q, v, objects, probe clearances, failed flag), after a range check.
  void copy_base(int src, int dst);
  // Objects: every scene joint outside the robot's block (scene = the robot's MuJoCo model);
  // every env starts with robot and objects at the model's qpos0.
  void allocate_objects();
  // env's robot and object states read back from a scene's qpos / qvel.
  void read_scene_state(int env, const double* qpos, const double* qvel);

  std::shared_ptr<const sim::Robot> robot_;
  ThreadPool* pool_;
  int envs_, nq_, nv_, nu_, probe_count_;
  // step_first's count after a range check
  int checked_count(int count) const;
  // Writes (q, v) as env's state, clears its failed flag (after a range check naming `what`):
  // what reset and set_state share.
  void put_state(int env, const double* q, const double* v, const char* what);

  int onq_ = 0, onv_ = 0;
  std::vector<double> q_, v_, oq_, ov_, clearance_, probe_position_;
  std::vector<int> tracked_bodies_;
  std::vector<double> body_pose_;  // (envs, tracked bodies, 7)
  std::vector<uint8_t> failed_;
  int ensemble_size_ = 1;
  std::vector<float> disagreement_;  // (envs) when ensemble_size_ > 1
  BackendTimings timings_;
};

// backend's platform; throws naming the backend and robot when it has none.
PlatformScene& platform_scene(Backend& backend);

}  // namespace flashnerd::env
