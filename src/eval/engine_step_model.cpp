#include "eval/engine_step_model.h"

#include <algorithm>

namespace flashnerd::eval {

EngineStepModel::EngineStepModel(std::shared_ptr<const engine::Model> model, int max_batch,
                                 ThreadPool* pool)
    : model_(std::move(model)) {
  engine::ContextOptions opt;
  opt.max_batch = max_batch;
  opt.pool = pool;
  context_ = std::make_unique<engine::Context>(*model_, opt);
}

void EngineStepModel::begin(int batch) { engine::reset_all(*context_); }

void EngineStepModel::step(int batch, const float* inputs, const engine::ContactBatch* contacts,
                           float* outputs) {
  engine::step(*model_, *context_, batch, inputs, contacts, outputs);
}

EnsembleStepModel::EnsembleStepModel(const std::vector<std::shared_ptr<const engine::Model>>& members, int max_batch,
                                     ThreadPool* pool) {
  for (const auto& m : members) members_.push_back(std::make_unique<EngineStepModel>(m, max_batch, pool));
  member_outputs_.assign(size_t(max_batch) * size_t(output_dim()), 0.f);
}

void EnsembleStepModel::begin(int batch) {
  for (auto& m : members_) m->begin(batch);
}

void EnsembleStepModel::step(int batch, const float* inputs, const engine::ContactBatch* contacts, float* outputs) {
  const size_t n = size_t(batch) * size_t(output_dim());
  const float scale = 1.0f / float(members_.size());
  std::fill_n(outputs, n, 0.f);
  for (auto& m : members_) {
    m->step(batch, inputs, contacts, member_outputs_.data());
    for (size_t i = 0; i < n; ++i) outputs[i] += scale * member_outputs_[i];
  }
}

}  // namespace flashnerd::eval
