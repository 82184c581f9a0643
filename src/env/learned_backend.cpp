#include "env/learned_backend.h"

#include <chrono>
#include <cmath>
#include <cstring>

#include "core/blob.h"
#include "core/contact_row.h"
#include "core/ensemble_stats.h"
#include "core/enum_names.h"
#include "core/error.h"
#include "core/rng.h"
#include "core/stopwatch.h"
#include "sim/probe_features.h"

namespace flashnerd::env {

namespace {

constexpr EnumName<EnsembleMode> kEnsembleModeNames[] = {
    {EnsembleMode::Mean, "mean"}, {EnsembleMode::Random, "random"}, {EnsembleMode::Member, "member"}};

}  // namespace

const char* ensemble_mode_name(EnsembleMode m) { return enum_name(kEnsembleModeNames, m); }
EnsembleMode parse_ensemble_mode(const std::string& s) { return parse_enum(kEnsembleModeNames, s, "ensemble mode"); }

LearnedBackend::LearnedBackend(std::shared_ptr<const sim::Robot> robot,
                               std::shared_ptr<const engine::Model> model, int envs, ThreadPool& pool,
                               engine::GemmBackend gemm)
    : LearnedBackend(std::move(robot), std::vector<std::shared_ptr<const engine::Model>>{std::move(model)}, envs,
                     pool, EnsembleUse{}, gemm) {}

LearnedBackend::LearnedBackend(std::shared_ptr<const sim::Robot> robot,
                               std::vector<std::shared_ptr<const engine::Model>> members, int envs, ThreadPool& pool,
                               const EnsembleUse& use, engine::GemmBackend gemm)
    : Backend(std::move(robot), envs, pool),
      members_(std::move(members)),
      use_(use),
      codec_(robot_->layout()),
      features_(codec_, members_.at(0)->config().probe_dim / kProbeFeatureDim) {
  const int M = int(members_.size());
  FN_CHECK(use.mode != EnsembleMode::Member || (use.member >= 0 && use.member < M), "learned backend: member ",
           use.member, " asked for, but the ensemble has ", M, " (0..", M - 1, ")");
  const ModelConfig& c = members_[0]->config();
  FN_CHECK(c.target == PredictionTarget::Increment, "learned backend: the model predicts '", target_name(c.target),
           "'; environments need a model of the full dynamics (target 'increment')");
  FN_CHECK(c.layout == robot_->layout(), "learned backend: the model's state layout (nq ", c.layout.nq, ", nv ",
           c.layout.nv, ", nu ", c.layout.nu, ") is not robot '", robot_->name(), "'s (nq ", nq_, ", nv ", nv_,
           ", nu ", nu_, ")");
  FN_CHECK(c.layout.na == 0, "learned backend: robot '", robot_->name(), "' has ", c.layout.na,
           " actuator activation states; environments step learned models of robots without activations so far");
  model_probes_ = c.probe_dim / kProbeFeatureDim;
  if (model_probes_ > 0) {
    climbing_probes_ = model_probes_ != int(robot_->probes().size());
    FN_CHECK(int(robot_->probes(climbing_probes_).size()) == model_probes_, "learned backend: the model reads ",
             model_probes_, " fixed probes; robot '", robot_->name(), "' defines ", robot_->probes().size(),
             " (probes) and ", robot_->probes(true).size(), " (climbing_probes)");
  }
  K_ = c.contact.capacity;
  din_ = features_.input_dim();
  dout_ = features_.output_dim();
  FN_CHECK(din_ == c.input_dim && dout_ == c.output_dim, "learned backend: model widths (", c.input_dim, " in, ",
           c.output_dim, " out) do not match the robot's frame features (", din_, ", ", dout_, ")");

  gemm_ = gemm;
  make_contexts();
  ensemble_size_ = M;
  if (M > 1) disagreement_.assign(size_t(envs), 0.f);
  member_of_.assign(size_t(envs), use.mode == EnsembleMode::Member ? use.member : 0);
  resets_.assign(size_t(envs), 0);
  for (int i = 0; i < pool.size(); ++i) sensors_.push_back(std::make_unique<sim::ContactSensor>(*robot_));

  const size_t E = size_t(envs);
  inputs_.assign(E * size_t(din_), 0.0f);
  history_input_.assign(size_t(din_), 0.0f);
  history_output_.assign(size_t(dout_), 0.0f);
  outputs_.assign(size_t(M) * E * size_t(dout_), 0.0f);
  probe_features_.assign(E * size_t(std::max(1, model_probes_ * kProbeFeatureDim)), 0.0f);
  q_next_.assign(q_.size(), 0.0);
  v_next_.assign(v_.size(), 0.0);
  increments_.assign(E * size_t(dout_), 0.0);
  contact_rows_.assign(E * size_t(std::max(1, K_)) * kContactRowDim, 0.0f);
  contact_link_.assign(E * size_t(std::max(1, K_)), 0);
  contact_count_.assign(E, 0);
  contact_dropped_.assign(E, 0);
  contacts_ = {contact_rows_.data(), contact_link_.data(), contact_count_.data()};
  for (int e = 0; e < envs; ++e) {
    std::memcpy(q_.data() + size_t(e) * size_t(nq_), robot_->model()->qpos0, sizeof(double) * size_t(nq_));
    draw_member(e);
    sense(e, 0);
  }
}

void LearnedBackend::make_contexts() {
  engine::ContextOptions opt;
  opt.max_batch = envs_;
  opt.pool = pool_;
  opt.gemm = gemm_;
  contexts_.clear();
  history_contexts_.clear();
  for (const auto& m : members_) contexts_.push_back(std::make_unique<engine::Context>(*m, opt));
  opt.max_batch = 1;
  opt.pool = nullptr;
  for (const auto& m : members_) history_contexts_.push_back(std::make_unique<engine::Context>(*m, opt));
}

void LearnedBackend::replace_members(std::vector<std::shared_ptr<const engine::Model>> members) {
  FN_CHECK(members.size() == members_.size(), "learned backend: ", members.size(), " members to replace ",
           members_.size());
  for (size_t m = 0; m < members.size(); ++m) {
    const ModelConfig &a = members_[m]->config(), &b = members[m]->config();
    FN_CHECK(a.arch == b.arch && a.layout == b.layout && a.input_dim == b.input_dim && a.output_dim == b.output_dim &&
                 a.probe_dim == b.probe_dim && a.contact.capacity == b.contact.capacity && a.history() == b.history() &&
                 a.target == b.target,
             "learned backend: member ", m, " cannot be replaced by a model of other inputs, outputs or history");
  }
  members_ = std::move(members);
  make_contexts();
}

std::string LearnedBackend::kind() const {
  return members_[0]->config().arch == Arch::FlashNeRD ? "flashnerd" : "nerd";
}

void LearnedBackend::draw_member(int e) {
  if (use_.mode != EnsembleMode::Random) return;
  Rng rng = Rng::stream(use_.seed ^ 0xE45E4B1Eull, (uint64_t(e) << 32) + uint64_t(resets_[size_t(e)]));
  member_of_[size_t(e)] = int32_t(rng.below(members_.size()));
}

void LearnedBackend::combine(int e, double* inc) {
  const int M = int(members_.size());
  const size_t stride = size_t(envs_) * size_t(dout_);
  const float* out = outputs_.data() + size_t(e) * size_t(dout_);  // member 0's row; member m at + m·stride
  if (use_.mode == EnsembleMode::Mean) {
    for (int i = 0; i < dout_; ++i) {
      double sum = 0;
      for (int m = 0; m < M; ++m) sum += out[size_t(m) * stride + size_t(i)];
      inc[i] = sum / M;
    }
  } else {
    const float* chosen = out + size_t(member_of_[size_t(e)]) * stride;
    for (int i = 0; i < dout_; ++i) inc[i] = chosen[i];
  }
  if (M > 1) disagreement_[size_t(e)] = ensemble_disagreement(out, stride, M, dout_, members_[0]->target_std());
}

void LearnedBackend::sense(int e, int worker) {
  sim::ContactSensor& sensor = *sensors_[size_t(worker)];
  sensor.set_state(q(e), v(e));
  if (K_ > 0) {
    sim::ContactRowsOut out{contact_rows_.data() + size_t(e) * size_t(K_) * kContactRowDim,
                            contact_link_.data() + size_t(e) * size_t(K_), 0, 0};
    sensor.detect(K_, out);
    contact_count_[size_t(e)] = out.count;
    contact_dropped_[size_t(e)] = out.overflow;
  } else {
    sensor.kinematics();
  }
  if (model_probes_ > 0)
    sim::build_probe_features(*robot_, sensor.model(), sensor.data(), robot_->probes(climbing_probes_),
                              robot_->spec().probe_threshold,
                              probe_features_.data() + size_t(e) * size_t(model_probes_) * kProbeFeatureDim);
  sense_probes(e, sensor.model(), sensor.data());
}

void LearnedBackend::reset(int e, const double* qs, const double* vs) {
  put_state(e, qs, vs, "reset");
  for (auto& context : contexts_) engine::reset_env(*context, e);
  ++resets_[size_t(e)];
  draw_member(e);
  sense(e, 0);
}

void LearnedBackend::set_state(int e, const double* qs, const double* vs) {
  put_state(e, qs, vs, "set_state");
  sense(e, 0);
}

void LearnedBackend::reset_with_history(int e, int frames, const double* qs, const double* vs, const double* us) {
  FN_CHECK(frames >= 0, kind(), " backend: reset_with_history needs frames >= 0, got ", frames);
  for (auto& context : history_contexts_) engine::reset_env(*context, 0);
  const size_t K = size_t(std::max(0, K_));
  const engine::ContactBatch contacts{contact_rows_.data() + size_t(e) * K * kContactRowDim,
                                      contact_link_.data() + size_t(e) * K, contact_count_.data() + size_t(e)};
  for (int k = 0; k < frames; ++k) {
    // env's own rows serve as the sensing scratch: they are overwritten by the final state's
    put_state(e, qs + size_t(k) * size_t(nq_), vs + size_t(k) * size_t(nv_), "reset_with_history");
    sense(e, 0);
    features_.input(q(e), v(e), us + size_t(k) * size_t(nu_),
                    model_probes_ ? probe_features_.data() + size_t(e) * size_t(model_probes_) * kProbeFeatureDim
                                  : nullptr,
                    history_input_.data());
    for (size_t m = 0; m < members_.size(); ++m)
      engine::step(*members_[m], *history_contexts_[m], 1, history_input_.data(), K_ > 0 ? &contacts : nullptr,
                   history_output_.data());
  }
  put_state(e, qs + size_t(frames) * size_t(nq_), vs + size_t(frames) * size_t(nv_), "reset_with_history");
  for (size_t m = 0; m < members_.size(); ++m) engine::copy_env(*history_contexts_[m], 0, *contexts_[m], e);
  ++resets_[size_t(e)];
  draw_member(e);
  sense(e, 0);
}

int LearnedBackend::history_frames() const {
  int frames = 0;
  for (const auto& m : members_) frames = std::max(frames, m->config().history() - 1);
  return frames;
}

PlatformScene* LearnedBackend::platform_scene() { return sim::randomizes_scene(*robot_) ? this : nullptr; }

void LearnedBackend::set_platform(const sim::Platform& platform) {
  for (auto& sensor : sensors_) sensor->set_platform(platform);
  for (int e = 0; e < envs_; ++e) sense(e, 0);
}

void LearnedBackend::step_first(const double* u, int count) {
  count = checked_count(count);
  auto t0 = std::chrono::steady_clock::now();
  pool_->parallel_for(count, [&](int64_t e0, int64_t e1, int) {
    for (int64_t e = e0; e < e1; ++e)
      features_.input(q(int(e)), v(int(e)), u + size_t(e) * size_t(nu_),
                      model_probes_ ? probe_features_.data() + size_t(e) * size_t(model_probes_) * kProbeFeatureDim
                                    : nullptr,
                      inputs_.data() + size_t(e) * size_t(din_));
  });
  for (size_t m = 0; m < members_.size(); ++m)
    engine::step(*members_[m], *contexts_[m], count, inputs_.data(), K_ > 0 ? &contacts_ : nullptr,
                 outputs_.data() + m * size_t(envs_) * size_t(dout_));
  pool_->parallel_for(count, [&](int64_t e0, int64_t e1, int) {
    for (int64_t e = e0; e < e1; ++e) {
      double* inc = increments_.data() + size_t(e) * size_t(dout_);
      combine(int(e), inc);
      double* qn = q_next_.data() + size_t(e) * size_t(nq_);
      double* vn = v_next_.data() + size_t(e) * size_t(nv_);
      bool diverged = false;
      for (const auto& context : contexts_) diverged = diverged || context->diverged(int(e));
      // a failed step keeps the last finite state so the task can read it; the task ends the episode
      failed_[size_t(e)] = codec_.advance_finite(q(int(e)), v(int(e)), nullptr, inc, qn, vn, nullptr, diverged) ? 0 : 1;
    }
  });
  // the stepped rows move; the others keep their state
  std::copy_n(q_next_.begin(), size_t(count) * size_t(nq_), q_.begin());
  std::copy_n(v_next_.begin(), size_t(count) * size_t(nv_), v_.begin());
  timings_.dynamics_seconds += seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  pool_->parallel_for(count, [&](int64_t e0, int64_t e1, int wi) {
    for (int64_t e = e0; e < e1; ++e) sense(int(e), wi);
  });
  timings_.sensing_seconds += seconds_since(t0);
  timings_.env_steps += count;
  for (int e = 0; e < count; ++e) {
    if (K_ > 0) {
      timings_.contact_rows += contact_count_[size_t(e)];
      timings_.max_contact_rows = std::max(timings_.max_contact_rows, contact_count_[size_t(e)] + contact_dropped_[size_t(e)]);
      timings_.contact_rows_dropped += contact_dropped_[size_t(e)];
    }
    const float* pf = probe_features_.data() + size_t(e) * size_t(model_probes_) * kProbeFeatureDim;
    for (int k = 0; k < model_probes_; ++k) {  // beyond the threshold every feature is zero
      bool active = false;
      for (int f = 0; f < kProbeFeatureDim; ++f) active = active || pf[k * kProbeFeatureDim + f] != 0.0f;
      timings_.active_probes += active;
    }
  }
}

void LearnedBackend::copy_env(int src, int dst) {
  copy_base(src, dst);
  copy_row(probe_features_, model_probes_ * kProbeFeatureDim, src, dst);
  copy_row(contact_rows_, K_ * kContactRowDim, src, dst);
  copy_row(contact_link_, K_, src, dst);
  copy_row(contact_count_, 1, src, dst);
  copy_row(member_of_, 1, src, dst);
  copy_row(resets_, 1, src, dst);
  if (!disagreement_.empty()) copy_row(disagreement_, 1, src, dst);
  for (auto& context : contexts_) engine::copy_env(*context, src, dst);
}

void LearnedBackend::io_state(StateIo& io, std::vector<std::string>& histories) {
  io.io(q_);
  io.io(v_);
  io.io(clearance_);
  io.io(probe_position_);
  io.io(failed_);
  if (!body_pose_.empty()) io.io(body_pose_);  // states without tracked bodies keep their format
  io.io(probe_features_);
  io.io(contact_rows_);
  io.io(contact_link_);
  io.io(contact_count_);
  if (members_.size() > 1 || use_.mode != EnsembleMode::Mean) {  // a single model's blob is unchanged
    io.io(member_of_);
    io.io(resets_);
    io.io(disagreement_);
  }
  for (auto& history : histories) io.io(history);
}

std::string LearnedBackend::save_state() const {
  BlobWriter w;
  std::vector<std::string> histories;
  for (const auto& context : contexts_) histories.push_back(context->save_history());
  StateIo io(w);
  const_cast<LearnedBackend*>(this)->io_state(io, histories);
  return w.bytes();
}

void LearnedBackend::load_state(const std::string& bytes) {
  BlobReader r(bytes, str_cat(kind(), " backend"));
  std::vector<std::string> histories(contexts_.size());  // sizes are in the blob; load_history checks them
  StateIo io(r);
  io_state(io, histories);
  r.expect_end();
  for (size_t m = 0; m < contexts_.size(); ++m) contexts_[m]->load_history(histories[m]);
}

}  // namespace flashnerd::env
