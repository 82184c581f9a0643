// The learned backend: a trained FlashNeRD or NeRD artifact steps every environment through
// the engine (one context for all environments, threads over the batch), the StateCodec
// decodes increments into states, and MuJoCo runs only kinematics and collision detection at
// each predicted state, for the model's fixed probes or contact rows and for the task's probe
// clearances, exactly as in eval's rollouts. A reset clears that environment's history only.
#pragma once

#include <memory>

#include "core/frame_features.h"
#include "core/state_codec.h"
#include "engine/engine.h"
#include "env/backend.h"
#include "sim/contact_sensor.h"

namespace flashnerd::env {

class LearnedBackend : public Backend {
 public:
  // gemm: the fp32 product kernels (RowInvariant for planners, whose forked samples must
  // step bit-identically to their source wherever they sit in the batch).
  LearnedBackend(std::shared_ptr<const sim::Robot> robot, std::shared_ptr<const engine::Model> model,
                 int envs, ThreadPool& pool, engine::GemmBackend gemm = engine::GemmBackend::Auto);

  // "flashnerd" or "nerd" (the artifact's architecture)
  std::string kind() const override;
  const engine::Model& model() const { return *model_; }
  const engine::Context& context() const { return *context_; }
  void reset(int env, const double* q, const double* v) override;
  void set_state(int env, const double* q, const double* v) override;
  void step_first(const double* u, int count) override;
  void copy_env(int src, int dst) override;
  void set_platform(const sim::Platform& platform) override;
  std::string save_state() const override;
  void load_state(const std::string& bytes) override;

 private:
  void sense(int env, int worker);  // probes, contact rows and clearances at env's state
  template <class Io>
  void io_state(Io& io, std::string& history);  // the fields save_state / load_state share

  std::shared_ptr<const engine::Model> model_;
  std::unique_ptr<engine::Context> context_;
  StateCodec codec_;
  FrameFeatures features_;
  int model_probes_ = 0;   // fixed probes the model reads
  bool climbing_probes_ = false;
  int K_ = 0;              // contact rows per frame (variable-contact models)
  int din_ = 0, dout_ = 0;
  std::vector<std::unique_ptr<sim::ContactSensor>> sensors_;  // one per worker
  std::vector<float> inputs_, outputs_, probe_features_;
  std::vector<double> q_next_, v_next_, increments_;
  std::vector<float> contact_rows_;
  std::vector<int32_t> contact_link_, contact_count_;
  engine::ContactBatch contacts_{};
};

}  // namespace flashnerd::env
