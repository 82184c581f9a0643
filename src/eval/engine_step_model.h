// StepModel over the hand-written engine (engine::Model + engine::Context), and over an
// ensemble of them stepped from the same frames, each with its own history, whose output is
// the members' mean increment.
#pragma once

#include <memory>
#include <vector>

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

class EnsembleStepModel : public StepModel {
 public:
  EnsembleStepModel(const std::vector<std::shared_ptr<const engine::Model>>& members, int max_batch, ThreadPool* pool);
  int input_dim() const override { return members_[0]->input_dim(); }
  int output_dim() const override { return members_[0]->output_dim(); }
  int probe_dim() const override { return members_[0]->probe_dim(); }
  int history() const override { return members_[0]->history(); }
  int contact_capacity() const override { return members_[0]->contact_capacity(); }
  void begin(int batch) override;
  void step(int batch, const float* inputs, const engine::ContactBatch* contacts, float* outputs) override;

 private:
  std::vector<std::unique_ptr<EngineStepModel>> members_;
  std::vector<float> member_outputs_;  // (max_batch, output_dim) of one member
};

}  // namespace flashnerd::eval
