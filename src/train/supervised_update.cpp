#include "train/supervised_update.h"

#include <chrono>
#include <cmath>

#include "core/option_error.h"
#include "core/rng.h"
#include "core/scope_exit.h"
#include "core/stopwatch.h"
#include "train/precision.h"

namespace flashnerd::train {

bool UpdateOutcome::finite() const { return std::isfinite(loss) && std::isfinite(grad_norm); }

SupervisedUpdate::SupervisedUpdate(DynamicsModel& model, DataParallel& dp, const SupervisedUpdateOptions& options,
                                   UnrolledLoss* forecast)
    : model_(model), dp_(dp), o_(options), forecast_(forecast), params_(model.parameters()),
      optimizer_(params_, torch::optim::AdamOptions(options.schedule.initial)) {
  if (o_.fused) {
    const std::string refusal = fused_flash_pass_refusal(model, model.dropout(), forecast != nullptr);
    FN_CHECK_OPTION(refusal.empty(), "fused_update", refusal, ": train without ", option_ref("fused_update"));
  }
}

// The fused pass's loss sums, its gradients in the parameters' .grad(): of the mean loss in one
// process, of the sum where the all-reduce divides.
std::vector<double> SupervisedUpdate::fused_loss(const WindowBatch& batch) {
  if (!fused_ || fused_->batch() != batch.batch || fused_->window() != batch.length)
    fused_.emplace(model_, batch.batch, batch.length, o_.bf16, o_.fused_threads);
  double weights = 0;
  for (float m : batch.mask) weights += double(m);
  const double outputs = double(model_.config().output_dim);
  const double scale = dp_.world_size() == 1 ? 1.0 / (weights * outputs) : 1.0;
  const FusedLoss loss = fused_->forward_backward(batch, scale);
  return {loss.sse, loss.weights * outputs};
}

UpdateOutcome SupervisedUpdate::step(int64_t u, const WindowBatch& batch, const std::vector<WindowRef>& windows,
                                     int unrolled, UpdatePhases& phases) {
  auto tp = std::chrono::steady_clock::now();
  auto phase = [&tp](double& acc) {
    const auto now = std::chrono::steady_clock::now();
    acc += std::chrono::duration<double>(now - tp).count();
    tp = now;
  };
  const int world = dp_.world_size();
  UpdateOutcome out;
  std::vector<double> sums;
  if (o_.fused) {
    sums = fused_loss(batch);
    out.loss = sums[0] / sums[1];
    phase(phases.backward);
  } else {
    WeightedLoss weighted;
    {
      const ScopeExit autocast = bf16_autocast(o_.bf16);  // products in bf16; the loss on fp32 predictions
      if (forecast_ != nullptr) {
        Rng rng = Rng::stream(o_.seed ^ 0xFEEDBAC4ull, uint64_t(u) * uint64_t(world) + uint64_t(dp_.rank()));
        const ForecastSettings forecast{unroll_steps_at(o_.own, u), o_.own.unroll_decay, o_.own.unroll_feedback};
        weighted = (*forecast_)(model_, batch, windows, unrolled, forecast, rng);
      } else {
        weighted = teacher_forced_loss(model_, batch);
      }
    }
    // the loss is the masked mean over the global batch (forecast steps weighted): one process
    // divides by its count; ranks back-propagate their sums and the all-reduce divides by the
    // global count
    const double outputs = double(model_.config().output_dim);
    sums = {weighted.sse.item<double>(), weighted.weights.item<double>() * outputs};
    const torch::Tensor loss = world == 1 ? weighted.sse / sums[1] : weighted.sse;
    out.loss = sums[0] / sums[1];
    phase(phases.forward);
    // every rank must join the all-reduce, whatever its own loss; one process skips a
    // non-finite loss's backward pass
    if (world > 1 || std::isfinite(out.loss)) {
      optimizer_.zero_grad();
      loss.backward();
      phase(phases.backward);
    }
  }
  if (world > 1) {
    dp_.sum_gradients(params_, sums, [](const std::vector<double>& s) { return 1.0 / s[1]; });
    out.loss = sums[0] / sums[1];
    phase(phases.allreduce);
  }
  if (std::isfinite(out.loss)) {
    out.grad_norm = torch::nn::utils::clip_grad_norm_(params_, o_.grad_clip);
    phase(phases.clip);
  }
  if (!out.finite()) return out;
  for (auto& group : optimizer_.param_groups()) group.options().set_lr(o_.schedule.at(u));
  optimizer_.step();
  phase(phases.optimizer);
  return out;
}

}  // namespace flashnerd::train
