#include "eval/engine_step_model.h"

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

}  // namespace flashnerd::eval
