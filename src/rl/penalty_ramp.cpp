#include "rl/penalty_ramp.h"

#include <algorithm>

#include "core/error.h"

namespace flashnerd::rl {

PenaltyRamp::PenaltyRamp(env::Task& task, int iterations) : task_(&task), iterations_(iterations) {
  FN_CHECK(iterations >= 0, "penalty ramp: iterations must be >= 0, got ", iterations);
  if (iterations == 0) return;
  for (const env::RewardTerm& t : task.reward_terms())
    if (t.scale < 0 && !t.after_clip) penalties_.emplace_back(t.name, t.scale);
}

PenaltyRamp::~PenaltyRamp() {
  for (const auto& [name, scale] : penalties_) task_->set_reward_scale(name, scale);
}

double PenaltyRamp::factor(int iteration) const {
  return iterations_ == 0 ? 1.0 : std::min(1.0, double(iteration + 1) / iterations_);
}

void PenaltyRamp::apply(int iteration) {
  const double f = factor(iteration);
  for (const auto& [name, scale] : penalties_) task_->set_reward_scale(name, f * scale);
}

}  // namespace flashnerd::rl
