// The learned backend: a trained FlashNeRD or NeRD artifact steps every environment through
// the engine (one context for all environments, threads over the batch), the StateCodec
// decodes increments into states, and MuJoCo runs only kinematics and collision detection at
// each predicted state, for the model's fixed probes or contact rows and for the task's probe
// clearances, exactly as in eval's rollouts. A reset clears that environment's history only.
//
// Ensembles: with several members (independent trainings, core/ensemble_manifest.h) every
// member steps every environment from the same frames, each with its own history; an
// environment advances by the members' mean increment, by one member drawn at each of its
// resets (RWM's choice), or by a fixed member, and the backend reports the members'
// disagreement per environment (Backend::disagreement).
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/blob.h"
#include "core/frame_features.h"
#include "core/state_codec.h"
#include "engine/engine.h"
#include "env/backend.h"
#include "sim/contact_sensor.h"

namespace flashnerd::env {

enum class EnsembleMode { Mean, Random, Member };
const char* ensemble_mode_name(EnsembleMode m);  // mean | random | member
EnsembleMode parse_ensemble_mode(const std::string& s);  // throws naming the choices

struct EnsembleUse {
  EnsembleMode mode = EnsembleMode::Mean;
  int member = 0;     // EnsembleMode::Member: which
  uint64_t seed = 0;  // EnsembleMode::Random: draws are a pure function of (seed, env, reset count)
};

class LearnedBackend : public Backend, public PlatformScene {
 public:
  // gemm: the fp32 product kernels (RowInvariant for planners, whose forked samples must
  // step bit-identically to their source wherever they sit in the batch).
  LearnedBackend(std::shared_ptr<const sim::Robot> robot, std::shared_ptr<const engine::Model> model,
                 int envs, ThreadPool& pool, engine::GemmBackend gemm = engine::GemmBackend::Auto);
  // An ensemble (members checked to step side by side by engine::Model::load_members).
  LearnedBackend(std::shared_ptr<const sim::Robot> robot, std::vector<std::shared_ptr<const engine::Model>> members,
                 int envs, ThreadPool& pool, const EnsembleUse& use = {},
                 engine::GemmBackend gemm = engine::GemmBackend::Auto);

  // "flashnerd" or "nerd" (the artifact's architecture)
  std::string kind() const override;
  const engine::Model& model() const { return *members_[0]; }  // the first member
  const engine::Context& context() const { return *contexts_[0]; }
  const EnsembleUse& ensemble_use() const { return use_; }
  // The member env steps with (EnsembleMode::Member and Random), or -1 (Mean).
  int member_of(int env) const { return use_.mode == EnsembleMode::Mean ? -1 : member_of_[size_t(env)]; }
  void reset(int env, const double* q, const double* v) override;
  void set_state(int env, const double* q, const double* v) override;
  // The recorded frames go through one-environment contexts (made with the backend, so nothing
  // is allocated here), sensed as a step senses them, then become env's history.
  void reset_with_history(int env, int frames, const double* q, const double* v, const double* u) override;
  int history_frames() const override;
  int contact_capacity() const override { return std::max(0, K_); }
  // The backend steps these members from now on (the same number, each reading the same inputs
  // and histories as the one it replaces: a fine-tuned model). Every environment keeps its
  // state but loses its history, which the old weights made: reset them before stepping.
  void replace_members(std::vector<std::shared_ptr<const engine::Model>> members);
  void step_first(const double* u, int count) override;
  void copy_env(int src, int dst) override;
  PlatformScene* platform_scene() override;
  void set_platform(const sim::Platform& platform) override;
  std::string save_state() const override;
  void load_state(const std::string& bytes) override;

 private:
  void sense(int env, int worker);  // probes, contact rows and clearances at env's state
  void draw_member(int env);        // EnsembleMode::Random: env's member after a reset
  // env's increment from the members' outputs, and its disagreement when there are several
  void combine(int env, double* inc);
  void io_state(StateIo& io, std::vector<std::string>& histories);  // the fields save_state / load_state share
  void make_contexts();  // every member's step and history contexts, empty

  std::vector<std::shared_ptr<const engine::Model>> members_;
  std::vector<std::unique_ptr<engine::Context>> contexts_;  // one per member
  engine::GemmBackend gemm_ = engine::GemmBackend::Auto;
  std::vector<std::unique_ptr<engine::Context>> history_contexts_;  // one per member, one env: reset_with_history
  std::vector<float> history_input_, history_output_;              // (din), (dout)
  EnsembleUse use_;
  std::vector<int32_t> member_of_;  // (envs) Member / Random modes
  std::vector<int64_t> resets_;     // (envs) resets so far (Random draws)
  StateCodec codec_;
  FrameFeatures features_;
  int model_probes_ = 0;   // fixed probes the model reads
  bool climbing_probes_ = false;
  int K_ = 0;              // contact rows per frame (variable-contact models)
  int din_ = 0, dout_ = 0;
  std::vector<std::unique_ptr<sim::ContactSensor>> sensors_;  // one per worker
  std::vector<float> inputs_, probe_features_;
  std::vector<float> outputs_;  // (members, envs, dout)
  std::vector<double> q_next_, v_next_, increments_;
  std::vector<float> contact_rows_;
  std::vector<int32_t> contact_link_, contact_count_;
  std::vector<int32_t> contact_dropped_;  // rows beyond capacity at the last sensing (diagnostics)
  engine::ContactBatch contacts_{};
};

}  // namespace flashnerd::env
