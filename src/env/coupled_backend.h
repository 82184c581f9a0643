// The coupled backend (paper III-E, docs/DESIGN.md §5) for environments: a fixed-base robot with
// objects, e.g. hand16 and its cube. Each step a predictor gives the robot's free velocity
// increment and MuJoCo resolves the contacts (sim::CoupledSim):
//   two-way  robot and objects in one solve, so the hand feels the cube;
//   one-way  the hand moves as if alone and is imposed on the objects (the ablation).
// The predictor is a free_velocity model artifact (engine, one history per environment,
// cleared on reset; it reads the resolved robot state next), or MuJoCo's own free dynamics
// (the oracle: the backend then equals MuJoCo stepping the scene, tested).
#pragma once

#include <memory>

#include "core/blob.h"
#include "core/frame_features.h"
#include "core/state_codec.h"
#include "engine/engine.h"
#include "env/backend.h"
#include "sim/coupled_sim.h"

namespace flashnerd::env {

class CoupledBackend : public Backend {
 public:
  // scene: robot + objects (hand16); alone: the same robot without them (hand16_alone);
  // model: a free_velocity artifact of that robot, or nullptr for the oracle.
  CoupledBackend(std::shared_ptr<const sim::Robot> scene, std::shared_ptr<const sim::Robot> alone,
                 std::shared_ptr<const engine::Model> model, sim::Coupling coupling, int envs, ThreadPool& pool);

  // "two-way" or "one-way", with " oracle" for MuJoCo's free dynamics
  std::string kind() const override;
  sim::Coupling coupling() const { return coupling_; }
  void reset(int env, const double* q, const double* v) override;
  void set_state(int env, const double* q, const double* v) override;
  void set_objects(int env, const double* q, const double* v) override;
  // Refused for frames > 0: the free-dynamics model's history is not rebuilt from a recording.
  void reset_with_history(int env, int frames, const double* q, const double* v, const double* u) override;
  // Every environment steps together (the contact solve is batched): count must be envs().
  void step_first(const double* u, int count) override;
  void copy_env(int src, int dst) override;
  std::string save_state() const override;
  void load_state(const std::string& bytes) override;

 private:
  void push(int env);  // this backend's state of env -> the coupled simulation
  void pull(int env);  // the coupled simulation -> this backend's state, probes
  void io_state(StateIo& io, std::string& history);

  sim::Coupling coupling_;
  sim::CoupledSim sim_;
  std::shared_ptr<const engine::Model> model_;  // nullptr: the oracle
  std::unique_ptr<engine::Context> context_;
  StateCodec codec_;
  FrameFeatures features_;
  int din_ = 0;
  std::vector<float> inputs_, outputs_;
  std::vector<double> dv_, scene_q_, scene_v_;  // (envs, robot nv); (envs, scene nq / nv)
};

}  // namespace flashnerd::env
