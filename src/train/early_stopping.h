// Early stopping on the one-step validation loss: after `patience` validations without a new
// best the run stops, and the best validated weights (kept as detached copies) are the ones
// exported. patience 0 disables it. Its state travels in the checkpoint, so a resumed run
// stops where an uninterrupted one does and exports the same weights.
#pragma once

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace flashnerd::train {

class EarlyStopping {
 public:
  explicit EarlyStopping(int patience) : patience_(patience) {}

  bool enabled() const { return patience_ > 0; }
  int64_t best_update() const { return best_update_; }
  bool has_best() const { return !best_weights_.empty(); }
  bool stopped() const { return stopped_; }

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
    stopped_ = ++bad_validations_ >= patience_ && !last;
    return stopped_;
  }

  // The checkpoint's record: the counters as JSON (NaN loss as null), the best weights as bytes.
  nlohmann::json state() const {
    return {{"best_loss", std::isfinite(best_loss_) ? nlohmann::json(best_loss_) : nlohmann::json()},
            {"best_update", best_update_}, {"bad_validations", bad_validations_}, {"stopped", stopped_}};
  }
  std::string best_weights_bytes() const {
    std::ostringstream out;
    torch::save(best_weights_, out);
    return out.str();
  }
  void restore(const nlohmann::json& state, const std::string& best_weights) {
    best_loss_ = state.at("best_loss").is_null() ? std::numeric_limits<double>::quiet_NaN()
                                                 : state.at("best_loss").get<double>();
    best_update_ = state.at("best_update").get<int64_t>();
    bad_validations_ = state.at("bad_validations").get<int>();
    stopped_ = state.at("stopped").get<bool>();
    best_weights_.clear();
    if (best_update_ > 0) {
      std::istringstream in(best_weights);
      torch::load(best_weights_, in);
    }
  }

  // Copies the best validated weights into `params`.
  void restore_best(const std::vector<torch::Tensor>& params) const {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params.size(); ++i) params[i].copy_(best_weights_[i]);
  }

 private:
  int patience_;
  double best_loss_ = std::numeric_limits<double>::quiet_NaN();
  int64_t best_update_ = 0;
  int bad_validations_ = 0;
  bool stopped_ = false;
  std::vector<torch::Tensor> best_weights_;
};

}  // namespace flashnerd::train
