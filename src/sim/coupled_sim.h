// Two-way coupling by hybrid simulation (paper III-E, docs/DESIGN.md §5). A fixed-base robot
// and objects share one MuJoCo model. Per step and environment:
//   1. mj_step1: positions, collisions, M, qfrc_bias, qfrc_passive of the current state;
//   2. a predictor (the learned model, or MuJoCo itself as an oracle) gives the robot's free
//      velocity increment Δv_free (actuators, gravity, Coriolis, passive; no constraints);
//   3. it is imposed as the robot's smooth acceleration with robot actuators disabled:
//      qfrc_applied_r = M_rr Δv_free / dt + qfrc_bias_r − qfrc_passive_r;
//   4. mj_step2 solves contacts, joint limits and self-contacts for robot and objects together.
// One-way coupling (the ablation) advances the robot in a robot-only model and then imposes
// its motion kinematically on the object simulation, so object reactions never reach it.
// Batched over environments, one mjData per environment, threads over environments.
#pragma once

#include <memory>
#include <vector>

#include <mujoco/mujoco.h>

#include "core/thread_pool.h"
#include "sim/robot.h"

namespace flashnerd::sim {

enum class Coupling { TwoWay, OneWay };

class CoupledSim {
 public:
  // scene: robot + objects (e.g. hand16); robot_alone: the same robot without objects
  // (e.g. hand16_alone), used for one-way coupling and for the oracle's free dynamics.
  // Throws for a floating-base robot (coupling assumes a fixed base) or mismatched robots.
  CoupledSim(std::shared_ptr<const Robot> scene, std::shared_ptr<const Robot> robot_alone,
             int envs, Coupling coupling, ThreadPool& pool);
  ~CoupledSim();
  CoupledSim(const CoupledSim&) = delete;
  CoupledSim& operator=(const CoupledSim&) = delete;

  int envs() const { return envs_; }
  int robot_nq() const { return nq_r_; }
  int robot_nv() const { return nv_r_; }
  double dt() const { return scene_->model()->opt.timestep; }

  // Full scene state of one environment (scene nq / nv), e.g. from the analytical model.
  void set_state(int env, const double* qpos, const double* qvel);
  // Phase 1 for every environment: the command (envs, nu) and mj_step1.
  void begin_step(const double* ctrl);
  // Robot state at the start of the step (valid after begin_step).
  const double* robot_qpos(int env) const;
  const double* robot_qvel(int env) const;
  // Phase 2: impose Δv_free (envs, robot nv) and finish the step.
  void end_step(const double* dv_free);
  // MuJoCo's own Δv_free of the robot at the current states with the current commands
  // (computed in the robot-only model; valid after begin_step). The oracle predictor.
  void oracle_free_dv(double* dv_free);

  const mjData* data(int env) const { return scene_data_[size_t(env)]; }
  // Solver warm starts of env: scene nv values, then robot nv for the robot alone (one-way),
  // so a checkpointed run continues bit for bit after set_state.
  int warmstart_size() const;
  void save_warmstart(int env, double* out) const;
  void load_warmstart(int env, const double* in);

 private:
  void impose(const mjModel* m, mjData* d, const double* dv_free, double* scratch) const;

  std::shared_ptr<const Robot> scene_, alone_;
  mjModel* hybrid_model_ = nullptr;  // scene with actuation disabled
  mjModel* alone_hybrid_ = nullptr;  // robot-only with actuation disabled (one-way)
  int envs_;
  Coupling coupling_;
  ThreadPool* pool_;
  int nq_r_, nv_r_, nu_;
  std::vector<mjData*> scene_data_;   // per env: the coupled scene
  std::vector<mjData*> alone_data_;   // per env: the one-way robot, stepped without objects
  std::vector<mjData*> oracle_data_;  // per env: scratch for MuJoCo's own free dynamics
  std::vector<double> ctrl_;          // (envs, nu)
  std::vector<double> scratch_;       // (envs, scene nv) M·a input
  std::vector<double> resolved_;      // (envs, robot nv) one-way: the robot's resolved Δv
};

}  // namespace flashnerd::sim
