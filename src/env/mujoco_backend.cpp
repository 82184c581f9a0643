#include "env/mujoco_backend.h"

#include <chrono>
#include <cmath>
#include <cstring>

#include "core/blob.h"
#include "core/error.h"
#include "core/stopwatch.h"

namespace flashnerd::env {

MujocoBackend::MujocoBackend(std::shared_ptr<const sim::Robot> robot, int envs, ThreadPool& pool)
    : Backend(std::move(robot), envs, pool), model_(robot_->copy_model()) {
  const mjModel* m = model_;
  FN_CHECK(m->nu == nu_, "mujoco backend: robot '", robot_->name(), "' has actuators outside the robot (", m->nu,
           " vs ", nu_, ")");
  allocate_objects();  // a cube in a hand: simulated with the robot, placed by set_objects
  na_ = m->na;
  for (int i = 0; i < pool.size(); ++i) {
    mjData* d = mj_makeData(m);
    FN_CHECK(d != nullptr, "mujoco backend: mj_makeData failed");
    data_.push_back(d);
  }
  act_.assign(size_t(envs) * size_t(na_), 0.0);
  warmstart_.assign(size_t(envs) * size_t(m->nv), 0.0);
  time_.assign(size_t(envs), 0.0);
}

MujocoBackend::~MujocoBackend() {
  for (mjData* d : data_) mj_deleteData(d);
  mj_deleteModel(model_);
}

void MujocoBackend::load_env(int e, mjData* d) const {
  // every input of mj_step that an environment owns; the rest (applied forces, mocap) stays
  // at mj_makeData's zeros
  write_scene_state(e, d->qpos, d->qvel);
  if (na_) std::memcpy(d->act, act_.data() + size_t(e) * size_t(na_), sizeof(double) * size_t(na_));
  std::memcpy(d->qacc_warmstart, warmstart_.data() + size_t(e) * size_t(model_->nv), sizeof(double) * size_t(model_->nv));
  d->time = time_[size_t(e)];
}

void MujocoBackend::store_env(int e, const mjData* d) {
  read_scene_state(e, d->qpos, d->qvel);
  if (na_) std::memcpy(act_.data() + size_t(e) * size_t(na_), d->act, sizeof(double) * size_t(na_));
  std::memcpy(warmstart_.data() + size_t(e) * size_t(model_->nv), d->qacc_warmstart, sizeof(double) * size_t(model_->nv));
  time_[size_t(e)] = d->time;
}

void MujocoBackend::sense(int e, mjData* d) {
  if (!senses_positions()) return;
  mj_kinematics(model_, d);
  sense_probes(e, model_, d);
}

void MujocoBackend::reset(int e, const double* qs, const double* vs) {
  put_state(e, qs, vs, "reset");
  std::fill_n(act_.data() + size_t(e) * size_t(na_), na_, 0.0);
  std::fill_n(warmstart_.data() + size_t(e) * size_t(model_->nv), model_->nv, 0.0);
  time_[size_t(e)] = 0;
  mjData* d = data_[0];
  load_env(e, d);
  sense(e, d);
}

void MujocoBackend::set_state(int e, const double* qs, const double* vs) {
  put_state(e, qs, vs, "set_state");
  mjData* d = data_[0];
  load_env(e, d);
  sense(e, d);
}

void MujocoBackend::set_objects(int e, const double* qs, const double* vs) {
  Backend::set_objects(e, qs, vs);
  mjData* d = data_[0];
  load_env(e, d);
  sense(e, d);  // the probes see the objects where they now are
}

PlatformScene* MujocoBackend::platform_scene() { return sim::randomizes_scene(*robot_) ? this : nullptr; }

void MujocoBackend::set_platform(const sim::Platform& platform) {
  sim::apply_platform(*robot_, model_, platform);
  for (int e = 0; e < envs_; ++e) {  // clearances against the new scene
    load_env(e, data_[0]);
    sense(e, data_[0]);
  }
}

void MujocoBackend::step_first(const double* u, int count) {
  const mjModel* m = model_;
  const int substeps = robot_->substeps();
  count = checked_count(count);
  auto t0 = std::chrono::steady_clock::now();
  pool_->parallel_for(count, [&](int64_t e0, int64_t e1, int wi) {
    mjData* d = data_[size_t(wi)];
    for (int64_t e = e0; e < e1; ++e) {
      load_env(int(e), d);
      std::memcpy(d->ctrl, u + size_t(e) * size_t(nu_), sizeof(double) * size_t(nu_));
      const int warnings = sim::warning_total(d);
      for (int s = 0; s < substeps; ++s) mj_step(m, d);
      bool ok = sim::warning_total(d) == warnings;
      for (int i = 0; i < m->nq && ok; ++i) ok = std::isfinite(d->qpos[i]);
      for (int i = 0; i < m->nv && ok; ++i) ok = std::isfinite(d->qvel[i]);
      failed_[size_t(e)] = ok ? 0 : 1;
      store_env(int(e), d);
      sense(int(e), d);
    }
  });
  // MuJoCo's kinematics for the probes is a small share of a step; it is counted as dynamics
  timings_.dynamics_seconds += seconds_since(t0);
  timings_.env_steps += count;
}

void MujocoBackend::copy_env(int src, int dst) {
  copy_base(src, dst);
  copy_row(act_, na_, src, dst);
  copy_row(warmstart_, model_->nv, src, dst);
  copy_row(time_, 1, src, dst);
}

void MujocoBackend::io_state(StateIo& io) {
  io.io(q_);
  io.io(v_);
  io.io(oq_);
  io.io(ov_);
  io.io(act_);
  io.io(warmstart_);
  io.io(time_);
  io.io(clearance_);
  io.io(probe_position_);
  io.io(failed_);
  if (!body_pose_.empty()) io.io(body_pose_);  // states without tracked bodies keep their format
}

std::string MujocoBackend::save_state() const {
  BlobWriter w;
  StateIo io(w);
  const_cast<MujocoBackend*>(this)->io_state(io);
  return w.bytes();
}

void MujocoBackend::load_state(const std::string& bytes) {
  BlobReader r(bytes, "mujoco backend");
  StateIo io(r);
  io_state(io);
  r.expect_end();
}

}  // namespace flashnerd::env
