// StepModel over the hand-written engine (engine::Model + engine::Context).
#pragma once

#include <memory>

#include "core/thread_pool.h"
#include "engine/engine.h"
#include "eval/rollout.h"

namespace flashnerd::eval {

class EngineStepModel : public StepModel {
 public:
  EngineStepModel(std::shared_ptr<const engine::Model> model, int max_batch, ThreadPool* pool);
  int input_dim() const override { return model_->input_dim(); }
  int output_dim() const override { return model_->output_dim(); }
  int probe_dim() const override { return model_->config().probe_dim; }
  int history() const override { return model_->config().history(); }
  int contact_capacity() const override { return model_->config().contact.capacity; }
  void begin(int batch) override;
  void step(int batch, const float* inputs, const engine::ContactBatch* contacts, float* outputs) override;

 private:
  std::shared_ptr<const engine::Model> model_;
  std::unique_ptr<engine::Context> context_;
};

}  // namespace flashnerd::eval
