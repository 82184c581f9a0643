// Early stopping on the one-step validation loss: after `patience` validations without a new
// best the run stops, and the best validated weights (kept as detached copies) are the ones
// exported. patience 0 disables it.
#pragma once

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace flashnerd::train {

class EarlyStopping {
 public:
  explicit EarlyStopping(int patience) : patience_(patience) {}

  bool enabled() const { return patience_ > 0; }
  int64_t best_update() const { return best_update_; }
  bool has_best() const { return !best_weights_.empty(); }

  // A validation after `update`; returns true when the run should stop now (never on `last`).
  bool observe(int64_t update, double valid_loss, const std::vector<torch::Tensor>& params, bool last) {
    if (!enabled()) return false;
    if (!std::isfinite(best_loss_) || valid_loss < best_loss_) {
      best_loss_ = valid_loss;
      best_update_ = update;
      bad_validations_ = 0;
      torch::NoGradGuard no_grad;
      best_weights_.clear();
      for (const auto& p : params) best_weights_.push_back(p.detach().clone());
      return false;
    }
    return ++bad_validations_ >= patience_ && !last;
  }

  // Copies the best validated weights into `params`.
  void restore_best(std::vector<torch::Tensor>& params) const {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params.size(); ++i) params[i].copy_(best_weights_[i]);
  }

 private:
  int patience_;
  double best_loss_ = std::numeric_limits<double>::quiet_NaN();
  int64_t best_update_ = 0;
  int bad_validations_ = 0;
  std::vector<torch::Tensor> best_weights_;
};

}  // namespace flashnerd::train
