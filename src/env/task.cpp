#include "env/task.h"

#include <cmath>

#include "core/error.h"

namespace flashnerd::env {

void Task::set_reward_scale(const std::string& term, double scale) {
  FN_CHECK(std::isfinite(scale), "reward scale of '", term, "' must be finite, got ", scale);
  std::string known;
  for (RewardTerm& t : terms_) {
    if (t.name == term) {
      t.scale = scale;
      return;
    }
    known += (known.empty() ? "" : ", ") + t.name;
  }
  throw Error(str_cat("task ", name(), " has no reward term '", term, "'; its terms: ", known));
}

}  // namespace flashnerd::env
