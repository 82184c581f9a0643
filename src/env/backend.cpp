#include "env/backend.h"

#include "core/error.h"
#include "core/option_error.h"
#include "sim/probe_features.h"

namespace flashnerd::env {

Backend::Backend(std::shared_ptr<const sim::Robot> robot, int envs, ThreadPool& pool)
    : robot_(std::move(robot)), pool_(&pool), envs_(envs) {
  FN_CHECK(robot_ != nullptr, "backend: no robot");
  FN_CHECK_OPTION(envs >= 1, "envs", "must be >= 1 (got ", envs, ")");
  const StateLayout& layout = robot_->layout();
  nq_ = layout.nq;
  nv_ = layout.nv;
  nu_ = layout.nu;
  probe_count_ = int(robot_->probes().size());
  q_.assign(size_t(envs) * size_t(nq_), 0.0);
  v_.assign(size_t(envs) * size_t(nv_), 0.0);
  clearance_.assign(size_t(envs) * size_t(probe_count_), 0.0);
  probe_position_.assign(size_t(envs) * size_t(3 * probe_count_), 0.0);
  failed_.assign(size_t(envs), 0);
}

void Backend::sense_probes(int env, const mjModel* m, const mjData* d) {
  double* out = clearance_.data() + size_t(env) * size_t(probe_count_);
  double* point = probe_position_.data() + size_t(env) * size_t(3 * probe_count_);
  const auto& probes = robot_->probes();
  for (int k = 0; k < probe_count_; ++k) {
    double nearest[3], normal[3];
    out[k] = sim::probe_clearance(*robot_, m, d, probes[size_t(k)], point + 3 * k, nearest, normal);
  }
  const size_t nb = tracked_bodies_.size();
  for (size_t b = 0; b < nb; ++b) {
    double* pose = body_pose_.data() + (size_t(env) * nb + b) * 7;
    std::copy_n(d->xpos + 3 * tracked_bodies_[b], 3, pose);
    std::copy_n(d->xquat + 4 * tracked_bodies_[b], 4, pose + 3);
  }
}

void Backend::track_bodies(const std::vector<int>& bodies) {
  const mjModel* m = robot_->model();
  for (int b : bodies)
    FN_CHECK(b > 0 && b < m->nbody, kind(), " backend: cannot track body ", b, " of robot '", robot_->name(), "' (",
             m->nbody, " bodies)");
  tracked_bodies_ = bodies;
  body_pose_.assign(size_t(envs_) * bodies.size() * 7, 0.0);
}

int Backend::checked_count(int count) const {
  FN_CHECK(count >= 0 && count <= envs_, kind(), " backend: cannot step ", count, " of ", envs_, " environments");
  return count;
}

void Backend::put_state(int e, const double* qs, const double* vs, const char* what) {
  FN_CHECK(e >= 0 && e < envs_, kind(), " backend: ", what, " of env ", e, " outside [0, ", envs_, ")");
  std::copy_n(qs, nq_, q_.begin() + long(e) * nq_);
  std::copy_n(vs, nv_, v_.begin() + long(e) * nv_);
  failed_[size_t(e)] = 0;
}

void Backend::copy_base(int src, int dst) {
  FN_CHECK(src >= 0 && src < envs_ && dst >= 0 && dst < envs_, kind(), " backend: copy_env ", src, " -> ", dst,
           " outside [0, ", envs_, ")");
  copy_row(q_, nq_, src, dst);
  copy_row(v_, nv_, src, dst);
  copy_row(oq_, onq_, src, dst);
  copy_row(ov_, onv_, src, dst);
  copy_row(clearance_, probe_count_, src, dst);
  copy_row(probe_position_, 3 * probe_count_, src, dst);
  copy_row(body_pose_, 7 * int(tracked_bodies_.size()), src, dst);
  copy_row(failed_, 1, src, dst);
}

void Backend::allocate_objects() {
  const mjModel* m = robot_->model();
  onq_ = m->nq - nq_;
  onv_ = m->nv - nv_;
  oq_.assign(size_t(envs_) * size_t(onq_), 0.0);
  ov_.assign(size_t(envs_) * size_t(onv_), 0.0);
  const std::vector<double> qvel(size_t(m->nv), 0.0);
  for (int e = 0; e < envs_; ++e) read_scene_state(e, m->qpos0, qvel.data());  // robot and objects at qpos0
}

void Backend::reset_with_history(int env, int frames, const double* qs, const double* vs, const double*) {
  FN_CHECK(frames >= 0, kind(), " backend: reset_with_history needs frames >= 0, got ", frames);
  reset(env, qs + size_t(frames) * size_t(nq_), vs + size_t(frames) * size_t(nv_));
}

void Backend::set_objects(int e, const double* qs, const double* vs) {
  FN_CHECK(onq_ > 0, kind(), " backend: robot '", robot_->name(), "' is simulated without objects");
  FN_CHECK(e >= 0 && e < envs_, kind(), " backend: set_objects of env ", e, " outside [0, ", envs_, ")");
  std::copy_n(qs, onq_, oq_.begin() + long(e) * onq_);
  std::copy_n(vs, onv_, ov_.begin() + long(e) * onv_);
}

namespace {
// Scene array = [objects before the robot block | robot block | objects after it].
void join(const double* robot, int n, const double* objects, int offset, int total, double* scene) {
  std::copy_n(objects, offset, scene);
  std::copy_n(robot, n, scene + offset);
  std::copy_n(objects + offset, total - offset - n, scene + offset + n);
}
void split(const double* scene, int n, int offset, int total, double* robot, double* objects) {
  std::copy_n(scene, offset, objects);
  std::copy_n(scene + offset, n, robot);
  std::copy_n(scene + offset + n, total - offset - n, objects + offset);
}
}  // namespace

void Backend::write_scene_state(int e, double* qpos, double* qvel) const {
  join(q(e), nq_, object_q(e), robot_->qpos_offset(), nq_ + onq_, qpos);
  join(v(e), nv_, object_v(e), robot_->qvel_offset(), nv_ + onv_, qvel);
}

void Backend::read_scene_state(int e, const double* qpos, const double* qvel) {
  split(qpos, nq_, robot_->qpos_offset(), nq_ + onq_, q_.data() + size_t(e) * size_t(nq_),
        oq_.data() + size_t(e) * size_t(onq_));
  split(qvel, nv_, robot_->qvel_offset(), nv_ + onv_, v_.data() + size_t(e) * size_t(nv_),
        ov_.data() + size_t(e) * size_t(onv_));
}

PlatformScene& platform_scene(Backend& backend) {
  PlatformScene* scene = backend.platform_scene();
  FN_CHECK(scene != nullptr, backend.kind(), " backend: robot '", backend.robot().name(), "' has no platform to move");
  return *scene;
}

}  // namespace flashnerd::env
