// A penalty curriculum for PPO: the task's shaping terms (every term that is not its objective
// and is clipped with the rest of the step's reward: the penalties, feet air time) are off for
// the first D iterations (the delay), then start at 1/N of their scale and grow linearly to the
// full scale over the next N iterations. Under the initial action noise (std 1) the
// quadruped's penalties cost 2.9 per second against at most 1.5 that tracking pays
// (experiments/locomotion/reward_terms_under_noise.py),
// so without a ramp PPO first shrinks its noise and settles on standing; with the tracking
// terms dominant at first, a gait is found before the penalties shape it. The objective and the
// terms added after the clip (a fall's penalty) are never scaled. A pure function of the
// iteration, so a resumed run sees the same scales.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "env/task.h"

namespace flashnerd::rl {

class PenaltyRamp {
 public:
  // Remembers the task's current (full) scales; iterations 0 (and delay 0) leaves every scale alone.
  PenaltyRamp(env::Task& task, int iterations, int delay = 0);
  ~PenaltyRamp();  // restores the full scales
  PenaltyRamp(const PenaltyRamp&) = delete;
  PenaltyRamp& operator=(const PenaltyRamp&) = delete;

  // Sets the scales for 0-based PPO iteration `iteration`: factor 0 before the delay D, then
  // min(1, (iteration + 1 − D) / N).
  void apply(int iteration);
  double factor(int iteration) const;

 private:
  env::Task* task_;
  int iterations_, delay_;
  std::vector<std::pair<std::string, double>> shaping_;  // name, full scale
};

}  // namespace flashnerd::rl
