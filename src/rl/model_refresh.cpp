#include "rl/model_refresh.h"

#include <filesystem>

#include "core/contact_row.h"
#include "core/ensemble_manifest.h"
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

namespace {

// Seeds of an ensemble's members within one refresh: far apart from the next refreshes' (the
// run's seed plus the iteration), so the members' splits and batches stay their own.
constexpr uint64_t kMemberSeedStride = 1000003;

// One plain artifact fine-tuned on the explored windows.
train::TrainResult fine_tune(const ModelRefreshOptions& o, const Dataset& explored, int64_t updates,
                             const std::string& from_dir, const std::string& to_dir, uint64_t seed) {
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
  return r;
}

}  // namespace

RefreshResult refresh_model(const ModelRefreshOptions& o, const Dataset& explored, int64_t updates,
                            const std::string& from_dir, const std::string& to_dir, uint64_t seed) {
  FN_CHECK(explored.trajectories >= 2, "model refresh: ", explored.trajectories, " explored windows; a fine-tune "
           "holds some out for validation and needs at least 2");
  RefreshResult out;
  if (!is_ensemble_dir(from_dir)) {
    const train::TrainResult r = fine_tune(o, explored, updates, from_dir, to_dir, seed);
    out.model_dir = r.artifact_dir;
    out.valid_loss = r.valid_loss;
    return out;
  }
  // an ensemble: every member continues on the same windows with its own seed, so the members
  // stay independent trainings and their disagreement keeps its meaning
  const std::vector<std::string> members = model_member_dirs(from_dir);
  std::vector<std::string> names;
  for (size_t i = 0; i < members.size(); ++i) {
    names.push_back(str_cat("member_", i));
    const std::string member_to = (std::filesystem::path(to_dir) / names.back()).string();
    out.valid_loss += fine_tune(o, explored, updates, members[i], member_to, seed + i * kMemberSeedStride).valid_loss;
  }
  out.valid_loss /= double(members.size());
  write_ensemble_manifest(to_dir, names);
  out.model_dir = to_dir;
  return out;
}

}  // namespace flashnerd::rl
