// The analytic backend: MuJoCo steps every environment (the robot's substeps per control
// step), one mjData per worker thread. Each environment's full integration state (qpos, qvel,
// act, warm-start accelerations, time) is kept here and copied in and out of the worker's
// mjData, so results equal stepping one mjData per environment directly, whatever the thread
// count. The backend steps its own copy of the robot's model, so a platform can be placed.
#pragma once

#include "core/blob.h"
#include "env/backend.h"

namespace flashnerd::env {

class MujocoBackend : public Backend, public PlatformScene {
 public:
  MujocoBackend(std::shared_ptr<const sim::Robot> robot, int envs, ThreadPool& pool);
  ~MujocoBackend() override;

  std::string kind() const override { return "mujoco"; }
  void reset(int env, const double* q, const double* v) override;
  void set_state(int env, const double* q, const double* v) override;
  void step_first(const double* u, int count) override;
  void copy_env(int src, int dst) override;
  void set_objects(int env, const double* q, const double* v) override;
  PlatformScene* platform_scene() override;
  void set_platform(const sim::Platform& platform) override;
  std::string save_state() const override;
  void load_state(const std::string& bytes) override;

 private:
  void load_env(int env, mjData* d) const;   // stored state -> d
  void store_env(int env, const mjData* d);  // d -> stored state
  void sense(int env, mjData* d);            // kinematics and probes at the stored state
  void io_state(StateIo& io);                     // the fields save_state / load_state share

  mjModel* model_;             // the robot's model, with this backend's scene
  std::vector<mjData*> data_;  // one per worker
  int na_ = 0;
  std::vector<double> act_, warmstart_, time_;
};

}  // namespace flashnerd::env
