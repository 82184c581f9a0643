#include "rl/penalty_ramp.h"

#include <algorithm>

#include "core/error.h"

namespace flashnerd::rl {

PenaltyRamp::PenaltyRamp(env::Task& task, int iterations, int delay)
    : task_(&task), iterations_(iterations), delay_(delay) {
  FN_CHECK(iterations >= 0 && delay >= 0, "penalty ramp: iterations and delay must be >= 0, got ", iterations, " and ",
           delay);
  if (iterations == 0 && delay == 0) return;
  for (const env::RewardTerm& t : task.reward_terms())
    if (!t.objective && !t.after_clip) shaping_.emplace_back(t.name, t.scale);
}

PenaltyRamp::~PenaltyRamp() {
  for (const auto& [name, scale] : shaping_) task_->set_reward_scale(name, scale);
}

double PenaltyRamp::factor(int iteration) const {
  if (iteration < delay_) return 0.0;
  return iterations_ == 0 ? 1.0 : std::min(1.0, double(iteration + 1 - delay_) / iterations_);
}

void PenaltyRamp::apply(int iteration) {
  const double f = factor(iteration);
  for (const auto& [name, scale] : shaping_) task_->set_reward_scale(name, f * scale);
}

}  // namespace flashnerd::rl
