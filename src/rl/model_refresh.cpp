#include "rl/model_refresh.h"

#include <filesystem>

#include "core/contact_row.h"
#include "core/error.h"
#include "train/trainer.h"

namespace flashnerd::rl {

sim::GenerateOptions data_options_for(const ModelConfig& c, const sim::Robot& robot) {
  sim::GenerateOptions g;
  const int probes = c.probe_dim / kProbeFeatureDim;
  g.probes = probes > 0;
  g.climbing_probes = probes > 0 && probes != int(robot.probes().size());
  g.contacts = c.contact.capacity > 0;
  g.free_dynamics = false;
  return g;
}

int64_t ModelRefreshOptions::updates_at(int iteration) const {
  int64_t n = updates;
  for (const RefreshUpdatesFrom& s : updates_from)
    if (iteration >= s.from) n = s.updates;
  return n;
}

void ModelRefreshOptions::check_schedule() const {
  for (size_t i = 0; i < updates_from.size(); ++i) {
    const RefreshUpdatesFrom& s = updates_from[i];
    FN_CHECK(s.from >= 1 && s.updates >= 1, "model refresh: ", s.updates, " updates from iteration ", s.from,
             " (the iteration and the updates must be >= 1)");
    FN_CHECK(i == 0 || s.from > updates_from[i - 1].from, "model refresh: the budget's iterations must ascend (",
             updates_from[i - 1].from, " then ", s.from, ")");
  }
}

RefreshResult refresh_model(const ModelRefreshOptions& o, const Dataset& explored, int64_t updates,
                            const std::string& from_dir, const std::string& to_dir, uint64_t seed) {
  FN_CHECK(explored.trajectories >= 2, "model refresh: ", explored.trajectories, " explored windows; a fine-tune "
           "holds some out for validation and needs at least 2");
  train::TrainOptions t;
  t.init_from = from_dir;
  t.out_dir = to_dir;
  t.data_path = "model-based PPO: explored windows";
  t.updates = updates;
  t.batch = o.batch;
  t.lr = o.lr;
  t.seed = seed;
  t.overwrite = true;  // a new run, even over a half refresh: one redone after a resume replaces its own
  t.valid_every = updates;             // one validation, at the end
  t.valid_windows = 64;
  t.rollout_count = 8;
  t.precision = o.precision;
  t.progress = false;
  t.write_plot = false;
  const train::TrainResult r = train::train_model(explored, t);
  std::filesystem::remove(std::filesystem::path(to_dir) / "checkpoint.pt");  // the artifact is what a run reads
  RefreshResult out;
  out.model_dir = r.artifact_dir;
  out.valid_loss = r.valid_loss;
  return out;
}

}  // namespace flashnerd::rl
