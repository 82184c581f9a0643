#include "env/coupled_backend.h"

#include <chrono>
#include <cmath>

#include "core/blob.h"
#include "core/error.h"
#include "core/stopwatch.h"

namespace flashnerd::env {

CoupledBackend::CoupledBackend(std::shared_ptr<const sim::Robot> scene, std::shared_ptr<const sim::Robot> alone,
                               std::shared_ptr<const engine::Model> model, sim::Coupling coupling, int envs,
                               ThreadPool& pool)
    : Backend(scene, envs, pool),
      coupling_(coupling),
      sim_(scene, std::move(alone), envs, coupling, pool),
      model_(std::move(model)),
      codec_(robot_->layout()),
      features_(codec_, 0) {
  FN_CHECK(robot_->qpos_offset() == 0 && robot_->qvel_offset() == 0, "coupled backend: robot '", robot_->name(),
           "' must come first in its scene's qpos (the objects after it)");
  allocate_objects();
  FN_CHECK(onq_ > 0, "coupled backend: scene '", robot_->name(), "' has no objects to couple the robot to");
  if (model_) {
    const ModelConfig& c = model_->config();
    FN_CHECK(c.target == PredictionTarget::FreeVelocity, "coupled backend: the model predicts '", target_name(c.target),
             "'; coupling needs a free-dynamics model (trained to predict free_velocity on data recorded "
             "with free-dynamics targets)");
    FN_CHECK(c.layout == robot_->layout(), "coupled backend: the model's state layout is not robot '",
             robot_->name(), "'s");
    din_ = features_.input_dim();
    FN_CHECK(din_ == model_->input_dim() && model_->output_dim() == nv_, "coupled backend: model widths (",
             model_->input_dim(), " in, ", model_->output_dim(), " out) do not match the robot (", din_, ", ", nv_,
             "); a model with probes or contact inputs cannot be coupled");
    engine::ContextOptions opt;
    opt.max_batch = envs;
    opt.pool = &pool;
    context_ = std::make_unique<engine::Context>(*model_, opt);
    inputs_.assign(size_t(envs) * size_t(din_), 0.0f);
    outputs_.assign(size_t(envs) * size_t(nv_), 0.0f);
  }
  dv_.assign(size_t(envs) * size_t(nv_), 0.0);
  const mjModel* m = robot_->model();
  scene_q_.assign(size_t(envs) * size_t(m->nq), 0.0);
  scene_v_.assign(size_t(envs) * size_t(m->nv), 0.0);
  for (int e = 0; e < envs; ++e) push(e);
}

std::string CoupledBackend::kind() const {
  return std::string(coupling_ == sim::Coupling::TwoWay ? "two-way" : "one-way") + (model_ ? "" : " oracle");
}

void CoupledBackend::push(int e) {
  const mjModel* m = robot_->model();
  double* qpos = scene_q_.data() + size_t(e) * size_t(m->nq);
  double* qvel = scene_v_.data() + size_t(e) * size_t(m->nv);
  write_scene_state(e, qpos, qvel);
  sim_.set_state(e, qpos, qvel);
  mjData* d = const_cast<mjData*>(sim_.data(e));  // kinematics only, recomputed by every step
  mj_kinematics(robot_->model(), d);
  sense_probes(e, robot_->model(), d);
}

void CoupledBackend::pull(int e) {
  const mjData* d = sim_.data(e);
  read_scene_state(e, d->qpos, d->qvel);  // one-way: the scene's robot is the robot alone's
  const mjModel* m = robot_->model();
  bool ok = true;
  for (int i = 0; i < m->nq && ok; ++i) ok = std::isfinite(d->qpos[i]);
  for (int i = 0; i < m->nv && ok; ++i) ok = std::isfinite(d->qvel[i]);
  if (context_ && context_->diverged(e)) ok = false;
  failed_[size_t(e)] = ok ? 0 : 1;
  mjData* md = const_cast<mjData*>(d);
  mj_kinematics(m, md);
  sense_probes(e, m, md);
}

void CoupledBackend::reset(int e, const double* qs, const double* vs) {
  put_state(e, qs, vs, "reset");
  if (context_) engine::reset_env(*context_, e);
  push(e);
}

void CoupledBackend::set_state(int e, const double* qs, const double* vs) {
  put_state(e, qs, vs, "set_state");
  push(e);
}

void CoupledBackend::reset_with_history(int e, int frames, const double* qs, const double* vs, const double* us) {
  FN_CHECK(frames == 0, kind(), " backend: a reset with a recorded history (", frames,
           " frames) is not supported; its free-dynamics model starts a fresh history at reset");
  Backend::reset_with_history(e, frames, qs, vs, us);
}

void CoupledBackend::set_objects(int e, const double* qs, const double* vs) {
  Backend::set_objects(e, qs, vs);
  push(e);
}

void CoupledBackend::step_first(const double* u, int count) {
  FN_CHECK(checked_count(count) == envs_, kind(), " backend: the coupled environments step together (",
           count, " of ", envs_, " asked)");
  const auto t0 = std::chrono::steady_clock::now();
  sim_.begin_step(u);
  if (!context_) {
    sim_.oracle_free_dv(dv_.data());
  } else {
    pool_->parallel_for(envs_, [&](int64_t e0, int64_t e1, int) {
      for (int64_t e = e0; e < e1; ++e)
        features_.input(sim_.robot_qpos(int(e)), sim_.robot_qvel(int(e)), u + size_t(e) * size_t(nu_), nullptr,
                        inputs_.data() + size_t(e) * size_t(din_));
    });
    engine::step(*model_, *context_, envs_, inputs_.data(), outputs_.data());
    for (size_t i = 0; i < dv_.size(); ++i) dv_[i] = outputs_[i];
  }
  timings_.dynamics_seconds += seconds_since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  sim_.end_step(dv_.data());  // MuJoCo's contact solve: robot and objects
  pool_->parallel_for(envs_, [&](int64_t e0, int64_t e1, int) {
    for (int64_t e = e0; e < e1; ++e) pull(int(e));
  });
  timings_.sensing_seconds += seconds_since(t1);
  timings_.env_steps += envs_;
}

void CoupledBackend::copy_env(int, int) {
  throw Error(str_cat(kind(), " backend: environments cannot be forked (planners step the robot alone; "
                      "use the mujoco or a learned backend)"));
}

void CoupledBackend::io_state(StateIo& io, std::string& history) {
  io.io(q_);
  io.io(v_);
  io.io(oq_);
  io.io(ov_);
  io.io(failed_);
  io.io(history);
}

std::string CoupledBackend::save_state() const {
  BlobWriter w;
  std::string history = context_ ? context_->save_history() : std::string();
  StateIo io(w);
  const_cast<CoupledBackend*>(this)->io_state(io, history);
  std::vector<double> warm(size_t(envs_) * size_t(sim_.warmstart_size()));
  for (int e = 0; e < envs_; ++e) sim_.save_warmstart(e, warm.data() + size_t(e) * size_t(sim_.warmstart_size()));
  w.io(warm);
  return w.bytes();
}

void CoupledBackend::load_state(const std::string& bytes) {
  BlobReader r(bytes, str_cat(kind(), " backend"));
  std::string history;
  StateIo io(r);
  io_state(io, history);
  std::vector<double> warm(size_t(envs_) * size_t(sim_.warmstart_size()));  // sized: GCC's nonnull check
  r.io(warm);
  r.expect_end();
  FN_CHECK(warm.size() == size_t(envs_) * size_t(sim_.warmstart_size()), kind(), " backend: checkpoint of another "
           "scene or batch size");
  if (context_) context_->load_history(history);
  for (int e = 0; e < envs_; ++e) {
    push(e);  // sets the simulation's state (and zeroes its warm start)...
    sim_.load_warmstart(e, warm.data() + size_t(e) * size_t(sim_.warmstart_size()));  // ...restored here
  }
}

}  // namespace flashnerd::env
