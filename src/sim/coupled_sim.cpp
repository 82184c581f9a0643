#include "sim/coupled_sim.h"

#include <cstring>

#include "core/error.h"

namespace flashnerd::sim {

CoupledSim::CoupledSim(std::shared_ptr<const Robot> scene, std::shared_ptr<const Robot> robot_alone,
                       int envs, Coupling coupling, ThreadPool& pool)
    : scene_(std::move(scene)), alone_(std::move(robot_alone)), envs_(envs), coupling_(coupling), pool_(&pool) {
  FN_CHECK(!scene_->floating_base() && !alone_->floating_base(), "coupled simulation: robot '",
           scene_->name(), "' has a floating base, but two-way coupling assumes a fixed base (the network "
           "would also have to predict base motion); use a fixed-base robot such as hand16");
  FN_CHECK(scene_->layout() == alone_->layout(), "coupled simulation: robot '", alone_->name(),
           "' does not have the same joints and actuators as the robot in scene '", scene_->name(), "'");
  FN_CHECK(scene_->substeps() == 1 && alone_->substeps() == 1,
           "coupled simulation: robot and objects advance on one common timestep; use a control "
           "timestep equal to the physics timestep");
  FN_CHECK(scene_->model()->opt.timestep == alone_->model()->opt.timestep,
           "coupled simulation: scene and robot-only models have different timesteps");
  FN_CHECK(scene_->model()->opt.integrator == mjINT_EULER, "coupled simulation needs the Euler integrator");
  FN_CHECK(envs > 0, "coupled simulation: envs must be positive");
  nq_r_ = scene_->layout().nq;
  nv_r_ = scene_->layout().nv;
  nu_ = scene_->layout().nu;
  hybrid_model_ = scene_->copy_model();
  hybrid_model_->opt.disableflags |= mjDSBL_ACTUATION;  // the prediction replaces the actuators
  alone_hybrid_ = alone_->copy_model();
  alone_hybrid_->opt.disableflags |= mjDSBL_ACTUATION;
  for (int e = 0; e < envs; ++e) {
    scene_data_.push_back(mj_makeData(hybrid_model_));
    alone_data_.push_back(mj_makeData(alone_hybrid_));
    oracle_data_.push_back(mj_makeData(alone_->model()));
  }
  ctrl_.assign(size_t(envs) * size_t(nu_), 0.0);
  scratch_.assign(size_t(envs) * size_t(hybrid_model_->nv), 0.0);
  resolved_.assign(size_t(envs) * size_t(nv_r_), 0.0);
}

CoupledSim::~CoupledSim() {
  for (auto* d : scene_data_) mj_deleteData(d);
  for (auto* d : alone_data_) mj_deleteData(d);
  for (auto* d : oracle_data_) mj_deleteData(d);
  mj_deleteModel(hybrid_model_);
  mj_deleteModel(alone_hybrid_);
}

void CoupledSim::set_state(int env, const double* qpos, const double* qvel) {
  FN_CHECK(env >= 0 && env < envs_, "coupled simulation: env ", env, " out of range");
  mjData* d = scene_data_[size_t(env)];
  mj_resetData(hybrid_model_, d);
  std::memcpy(d->qpos, qpos, sizeof(double) * size_t(hybrid_model_->nq));
  std::memcpy(d->qvel, qvel, sizeof(double) * size_t(hybrid_model_->nv));
  mjData* a = alone_data_[size_t(env)];
  mj_resetData(alone_hybrid_, a);
  std::memcpy(a->qpos, qpos, sizeof(double) * size_t(nq_r_));
  std::memcpy(a->qvel, qvel, sizeof(double) * size_t(nv_r_));
}

int CoupledSim::warmstart_size() const { return hybrid_model_->nv + nv_r_; }

void CoupledSim::save_warmstart(int env, double* out) const {
  std::memcpy(out, scene_data_[size_t(env)]->qacc_warmstart, sizeof(double) * size_t(hybrid_model_->nv));
  std::memcpy(out + hybrid_model_->nv, alone_data_[size_t(env)]->qacc_warmstart, sizeof(double) * size_t(nv_r_));
}

void CoupledSim::load_warmstart(int env, const double* in) {
  std::memcpy(scene_data_[size_t(env)]->qacc_warmstart, in, sizeof(double) * size_t(hybrid_model_->nv));
  std::memcpy(alone_data_[size_t(env)]->qacc_warmstart, in + hybrid_model_->nv, sizeof(double) * size_t(nv_r_));
}

void CoupledSim::begin_step(const double* ctrl) {
  std::memcpy(ctrl_.data(), ctrl, sizeof(double) * ctrl_.size());
  pool_->parallel_for(envs_, [&](int64_t e0, int64_t e1, int) {
    for (int64_t e = e0; e < e1; ++e) {
      mjData* d = scene_data_[size_t(e)];
      std::memcpy(d->ctrl, ctrl_.data() + e * nu_, sizeof(double) * size_t(nu_));
      mj_step1(hybrid_model_, d);
      if (coupling_ == Coupling::OneWay) mj_step1(alone_hybrid_, alone_data_[size_t(e)]);
    }
  });
}

const double* CoupledSim::robot_qpos(int env) const {
  return coupling_ == Coupling::OneWay ? alone_data_[size_t(env)]->qpos : scene_data_[size_t(env)]->qpos;
}
const double* CoupledSim::robot_qvel(int env) const {
  return coupling_ == Coupling::OneWay ? alone_data_[size_t(env)]->qvel : scene_data_[size_t(env)]->qvel;
}

void CoupledSim::impose(const mjModel* m, mjData* d, const double* dv_free, double* scratch) const {
  // qfrc_applied_r = M_rr a + bias_r − passive_r with a = Δv_free / dt. Robot and objects are
  // separate kinematic trees, so M has no cross terms: M·[a; 0] is M_rr a in the robot rows
  // and zero in the object rows.
  const double dt = m->opt.timestep;
  for (int i = 0; i < m->nv; ++i) scratch[i] = i < nv_r_ ? dv_free[i] / dt : 0.0;
  mj_mulM(m, d, d->qfrc_applied, scratch);
  for (int i = 0; i < nv_r_; ++i) d->qfrc_applied[i] += d->qfrc_bias[i] - d->qfrc_passive[i];
  for (int i = nv_r_; i < m->nv; ++i) d->qfrc_applied[i] = 0;
}

void CoupledSim::end_step(const double* dv_free) {
  pool_->parallel_for(envs_, [&](int64_t e0, int64_t e1, int) {
    for (int64_t e = e0; e < e1; ++e) {
      const double* dv = dv_free + e * nv_r_;
      double* scratch = scratch_.data() + e * hybrid_model_->nv;
      mjData* d = scene_data_[size_t(e)];
      if (coupling_ == Coupling::TwoWay) {
        impose(hybrid_model_, d, dv, scratch);
        mj_step2(hybrid_model_, d);
        continue;
      }
      // one-way: the robot moves without the objects (its own limits and self-contacts)...
      mjData* a = alone_data_[size_t(e)];
      impose(alone_hybrid_, a, dv, scratch);
      mj_step2(alone_hybrid_, a);
      // ...and its resolved motion is imposed on the scene: the objects feel the robot, the
      // robot's reaction from the solve is discarded by overwriting its state.
      double* resolved = resolved_.data() + e * nv_r_;
      for (int i = 0; i < nv_r_; ++i) resolved[i] = a->qvel[i] - d->qvel[i];
      impose(hybrid_model_, d, resolved, scratch);
      mj_step2(hybrid_model_, d);
      std::memcpy(d->qpos, a->qpos, sizeof(double) * size_t(nq_r_));
      std::memcpy(d->qvel, a->qvel, sizeof(double) * size_t(nv_r_));
    }
  });
}

void CoupledSim::oracle_free_dv(double* dv_free) {
  const mjModel* m = alone_->model();
  const double dt = m->opt.timestep;
  pool_->parallel_for(envs_, [&](int64_t e0, int64_t e1, int) {
    for (int64_t e = e0; e < e1; ++e) {
      // the robot alone, actuators on, at the current robot state: its smooth acceleration
      mjData* a = oracle_data_[size_t(e)];
      std::memcpy(a->qpos, robot_qpos(int(e)), sizeof(double) * size_t(nq_r_));
      std::memcpy(a->qvel, robot_qvel(int(e)), sizeof(double) * size_t(nv_r_));
      std::memcpy(a->ctrl, ctrl_.data() + e * nu_, sizeof(double) * size_t(nu_));
      mj_fwdPosition(m, a);
      mj_fwdVelocity(m, a);
      mj_fwdActuation(m, a);
      mj_fwdAcceleration(m, a);
      for (int i = 0; i < nv_r_; ++i) dv_free[e * nv_r_ + i] = a->qacc_smooth[i] * dt;
    }
  });
}

}  // namespace flashnerd::sim
