// The trainer end to end on the analytic pendulum: overfitting, bit-for-bit resume, the
// files of a run, and the bad inputs the issue lists. No libtorch header here.
#include "train/trainer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/frame_features.h"
#include "core/model_artifact.h"
#include "pendulum.h"
#include "train/train_data.h"
#include "training_fixtures.h"

namespace flashnerd::train {
namespace {

namespace fs = std::filesystem;
using testing::make_pendulum_dataset;
using testing::fresh_temp_dir;
using testing::PendulumOptions;

TrainOptions quick_options(const std::string& dir, Arch arch) {
  TrainOptions o;
  o.arch = arch;
  o.preset = ModelPreset::Tiny;
  o.out_dir = dir;
  o.updates = 60;
  o.batch = 16;
  o.valid_every = 30;
  o.progress = false;
  o.seed = 5;
  return o;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Trainer, TinyModelsOverfitThePendulum) {
  const Dataset d = make_pendulum_dataset({16, 30, 2});
  for (Arch arch : {Arch::FlashNeRD, Arch::NeRD}) {
    TrainOptions o = quick_options(fresh_temp_dir(std::string("trainer_overfit_") + arch_name(arch)), arch);
    o.updates = 500;
    o.batch = 32;
    o.lr = 3e-3;
    o.valid_every = 250;
    o.write_plot = false;
    TrainResult r = train_model(d, o);
    std::printf("  %s: loss %.3g -> %.3g, valid %.3g, rollout nrmse %.3g, %.0f windows/s, %.2f GFLOP/s\n",
                arch_name(arch), r.first_loss, r.last_loss, r.valid_loss, r.valid_rollout_nrmse,
                r.windows_per_second, r.gflops);
    EXPECT_EQ(r.updates, 500);
    EXPECT_GT(r.first_loss, 0.3);
    EXPECT_LT(r.last_loss, 2e-3) << arch_name(arch);
    EXPECT_LT(r.valid_loss, 1e-2) << arch_name(arch);
    EXPECT_LT(r.valid_rollout_nrmse, 0.1) << arch_name(arch);
    EXPECT_FALSE(r.artifact_dir.empty());
  }
}

TEST(Trainer, ResumedRunEqualsUninterruptedBitForBit) {
  const Dataset d = make_pendulum_dataset({12, 25, 3, "pendulum", 0.05});
  for (Arch arch : {Arch::FlashNeRD, Arch::NeRD}) {
    TrainOptions whole = quick_options(fresh_temp_dir(std::string("trainer_whole_") + arch_name(arch)), arch);
    whole.updates = 30;
    whole.checkpoint_every = 10;
    whole.valid_every = 10;
    TrainResult rw = train_model(d, whole);

    TrainOptions part = whole;
    part.out_dir = fresh_temp_dir(std::string("trainer_part_") + arch_name(arch));
    part.stop_at = 17;  // "killed" after update 17: checkpoint written, no artifact
    TrainResult r1 = train_model(d, part);
    EXPECT_EQ(r1.updates, 17);
    EXPECT_TRUE(r1.artifact_dir.empty());
    EXPECT_FALSE(fs::exists(part.out_dir + "/weights.safetensors"));
    part.stop_at = 0;
    part.resume = true;
    TrainResult r2 = train_model(d, part);
    EXPECT_EQ(r2.updates, 30);
    EXPECT_EQ(r2.first_loss, rw.first_loss);
    EXPECT_EQ(r2.last_loss, rw.last_loss);
    EXPECT_EQ(r2.valid_loss, rw.valid_loss);
    EXPECT_EQ(read_file(part.out_dir + "/weights.safetensors"), read_file(whole.out_dir + "/weights.safetensors"))
        << arch_name(arch) << ": resumed weights differ from the uninterrupted run";
  }
}

// Early stopping's best weights and counters travel in the checkpoint: a run killed after its
// best validation stops where the uninterrupted one does and exports the same weights.
TEST(Trainer, EarlyStoppedRunResumesBitForBit) {
  const Dataset d = make_pendulum_dataset({12, 25, 3, "pendulum", 0.05});
  TrainOptions whole = quick_options(fresh_temp_dir("trainer_early_whole"), Arch::FlashNeRD);
  whole.updates = 200;
  whole.valid_every = 4;
  whole.checkpoint_every = 4;
  whole.patience = 2;
  whole.lr = 0.03;  // a rate that overshoots, so validation stops improving well before the end
  const TrainResult rw = train_model(d, whole);
  ASSERT_TRUE(rw.stopped_early) << "the run did not stop early; the test needs one that does";
  ASSERT_GT(rw.best_update, 0);
  ASSERT_LT(rw.best_update + 1, rw.updates);

  TrainOptions part = whole;
  part.out_dir = fresh_temp_dir("trainer_early_part");
  part.stop_at = rw.best_update + 1;  // killed between the best validation and the stop
  train_model(d, part);
  part.stop_at = 0;
  part.resume = true;
  const TrainResult r2 = train_model(d, part);
  EXPECT_TRUE(r2.stopped_early);
  EXPECT_EQ(r2.updates, rw.updates);
  EXPECT_EQ(r2.best_update, rw.best_update);
  EXPECT_EQ(r2.valid_loss, rw.valid_loss);
  EXPECT_EQ(read_file(part.out_dir + "/weights.safetensors"), read_file(whole.out_dir + "/weights.safetensors"))
      << "the resumed run exported other weights than the uninterrupted one";

  part.resume = true;  // killed after the stop's checkpoint, before its export: it ends there
  fs::remove(part.out_dir + "/weights.safetensors");
  const TrainResult r3 = train_model(d, part);
  EXPECT_EQ(r3.updates, rw.updates);
  EXPECT_EQ(read_file(part.out_dir + "/weights.safetensors"), read_file(whole.out_dir + "/weights.safetensors"));
}

TEST(Trainer, DropoutIsSeededSoRunsRepeatAndResumeBitForBit) {
  const Dataset d = make_pendulum_dataset({12, 25, 3, "pendulum", 0.05});
  TrainOptions whole = quick_options(fresh_temp_dir("trainer_dropout_whole"), Arch::FlashNeRD);
  whole.updates = 20;
  whole.checkpoint_every = 10;
  whole.valid_every = 10;
  whole.dropout = 0.1;  // finetune's default
  train_model(d, whole);
  TrainOptions again = whole;
  again.out_dir = fresh_temp_dir("trainer_dropout_again");
  train_model(d, again);
  EXPECT_EQ(read_file(again.out_dir + "/weights.safetensors"), read_file(whole.out_dir + "/weights.safetensors"))
      << "two identical runs with dropout differ";
  TrainOptions part = whole;
  part.out_dir = fresh_temp_dir("trainer_dropout_part");
  part.stop_at = 7;
  train_model(d, part);
  part.stop_at = 0;
  part.resume = true;
  train_model(d, part);
  EXPECT_EQ(read_file(part.out_dir + "/weights.safetensors"), read_file(whole.out_dir + "/weights.safetensors"))
      << "a resumed run with dropout differs from the uninterrupted one";
}

TEST(Trainer, ResumeRefusesAnotherParentModel) {
  const Dataset d = make_pendulum_dataset({12, 25, 3, "pendulum", 0.05});
  TrainOptions parent = quick_options(fresh_temp_dir("trainer_parent_a"), Arch::FlashNeRD);
  parent.updates = 4;
  train_model(d, parent);
  TrainOptions sibling = parent;
  sibling.out_dir = fresh_temp_dir("trainer_parent_b");
  train_model(d, sibling);
  TrainOptions child = parent;
  child.out_dir = fresh_temp_dir("trainer_parent_child");
  child.init_from = parent.out_dir;
  child.updates = 8;
  child.stop_at = 4;
  train_model(d, child);
  child.stop_at = 0;
  child.resume = true;
  TrainOptions other = child;
  other.init_from = sibling.out_dir;  // a model of the same shape, not the one it continues
  EXPECT_THROW(train_model(d, other), Error);
  other.init_from.clear();  // nor a run from scratch
  EXPECT_THROW(train_model(d, other), Error);
  other.init_from = parent.out_dir + "/";  // the same parent, spelled otherwise
  EXPECT_EQ(train_model(d, other).updates, 8);
}

TEST(Trainer, RunWritesArtifactLogAndPlot) {
  const Dataset d = make_pendulum_dataset({10, 20, 4});
  TrainOptions o = quick_options(fresh_temp_dir("trainer_files"), Arch::FlashNeRD);
  o.data_path = "pendulum.h5";
  TrainResult r = train_model(d, o);
  ModelArtifact a = ModelArtifact::load(o.out_dir);
  EXPECT_EQ(a.config.robot, "pendulum");
  EXPECT_EQ(a.config.input_dim, 3);   // q, v, u
  EXPECT_EQ(a.config.output_dim, 2);  // Δq, Δv
  EXPECT_EQ(a.config.norm.input_std.size(), 3u);
  EXPECT_EQ(a.config.norm.channel_std.size(), 2u);
  EXPECT_EQ(a.config.training.at("dataset_fingerprint").get<std::string>(), dataset_fingerprint(d));
  EXPECT_EQ(a.config.training.at("updates_done").get<int64_t>(), 60);
  EXPECT_EQ(a.config.training.at("seed").get<uint64_t>(), 5u);
  EXPECT_EQ(r.parameters, parameter_count(a.config));
  // the log: a header and one row per update, validation on updates 30 and 60
  std::ifstream csv(o.out_dir + "/train_log.csv");
  std::string line;
  int rows = 0, with_valid = 0;
  std::getline(csv, line);
  EXPECT_EQ(line, "update,lr,train_loss,valid_loss,valid_rollout_nrmse,seconds");
  while (std::getline(csv, line)) {
    ++rows;
    if (line.find(",,") == std::string::npos) ++with_valid;
  }
  EXPECT_EQ(rows, 60);
  EXPECT_EQ(with_valid, 2);
  // the loss plot as data (the CLI draws it): raw losses of every update, validation at 2
  const nlohmann::json plot = nlohmann::json::parse(read_file(o.out_dir + "/loss.plot.json"));
  ASSERT_EQ(plot["series"].size(), 3u);
  EXPECT_EQ(plot["series"][0]["y"].size(), 60u);
  EXPECT_EQ(plot["series"][2]["label"], "valid");
  EXPECT_EQ(plot["series"][2]["y"].size(), 2u);
  EXPECT_TRUE(plot["log_y"].get<bool>());
  EXPECT_TRUE(fs::exists(o.out_dir + "/checkpoint.pt"));
}

TEST(Trainer, BadInputsGiveClearMessages) {
  const Dataset good = make_pendulum_dataset({8, 20, 6});
  // every transition masked
  Dataset masked = good;
  std::fill(masked.valid.begin(), masked.valid.end(), 0);
  std::string msg = error_of([&] { train_model(masked, quick_options(fresh_temp_dir("trainer_masked"), Arch::FlashNeRD)); });
  EXPECT_NE(msg.find("every transition masked"), std::string::npos) << msg;

  // resume without a checkpoint, and a fresh run over an existing one
  TrainOptions o = quick_options(fresh_temp_dir("trainer_resume"), Arch::FlashNeRD);
  o.updates = 4;
  o.resume = true;
  msg = error_of([&] { train_model(good, o); });
  EXPECT_NE(msg.find("no checkpoint"), std::string::npos) << msg;
  o.resume = false;
  train_model(good, o);
  msg = error_of([&] { train_model(good, o); });
  EXPECT_NE(msg.find("already holds a training checkpoint; pass resume to continue it"), std::string::npos) << msg;

  // resume with a dataset of another robot, with other data, other settings
  o.resume = true;
  o.updates = 8;
  PendulumOptions other;
  other.trajectories = 8;
  other.steps = 20;
  other.seed = 6;
  other.robot = "acrobot";
  msg = error_of([&] { train_model(make_pendulum_dataset(other), o); });
  EXPECT_NE(msg.find("robot 'acrobot'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("trained on robot 'pendulum'"), std::string::npos) << msg;
  msg = error_of([&] { train_model(make_pendulum_dataset({8, 20, 7}), o); });
  EXPECT_NE(msg.find("not the one the checkpoint was trained on"), std::string::npos) << msg;
  TrainOptions nerd = o;
  nerd.arch = Arch::NeRD;
  msg = error_of([&] { train_model(good, nerd); });
  EXPECT_NE(msg.find("resume: the checkpoint is arch flashnerd"), std::string::npos) << msg;
  TrainOptions seed = o;
  seed.seed = 99;
  msg = error_of([&] { train_model(good, seed); });
  EXPECT_NE(msg.find("trained with seed 5"), std::string::npos) << msg;
  EXPECT_EQ(train_model(good, o).updates, 8);  // the right data resumes

  // unwritable output directory (a path below a regular file)
  const std::string file = fresh_temp_dir("trainer_plainfile");
  write_file_atomic(file, "not a directory");
  msg = error_of([&] { train_model(good, quick_options(file + "/run", Arch::FlashNeRD)); });
  EXPECT_NE(msg.find("cannot create directory"), std::string::npos) << msg;

  // probes requested but not recorded
  TrainOptions probes = quick_options(fresh_temp_dir("trainer_probes"), Arch::FlashNeRD);
  probes.probes = ProbeUse::On;
  msg = error_of([&] { train_model(good, probes); });
  EXPECT_NE(msg.find("no fixed probes"), std::string::npos) << msg;
}

TEST(Trainer, DivergenceStopsAndKeepsTheLastGoodCheckpoint) {
  const Dataset d = make_pendulum_dataset({8, 20, 8});
  TrainOptions o = quick_options(fresh_temp_dir("trainer_nan"), Arch::FlashNeRD);
  o.updates = 20;
  o.checkpoint_every = 1;
  o.lr = 1e30;  // the first step throws every weight to ~1e30: the next loss is not finite
  std::string msg = error_of([&] { train_model(d, o); });
  EXPECT_NE(msg.find("training diverged at update 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("last good checkpoint (update 1)"), std::string::npos) << msg;
  EXPECT_TRUE(fs::exists(o.out_dir + "/checkpoint.pt"));
  EXPECT_FALSE(fs::exists(o.out_dir + "/weights.safetensors"));
  // the checkpoint is intact: a resume loads it and, with the same learning rate, diverges again
  o.resume = true;
  msg = error_of([&] { train_model(d, o); });
  EXPECT_NE(msg.find("training diverged at update 2"), std::string::npos) << msg;
}

TEST(TrainData, NormalizationUsesOnlyValidTrainingTransitions) {
  Dataset d = make_pendulum_dataset({6, 10, 9, "pendulum", 0.3});
  StateCodec codec(d.layout);
  TransitionArrays a = build_transitions(d, codec, false);
  std::vector<int64_t> traj = {0, 2, 3};
  Normalization n = fit_normalization(d, a, codec, traj);
  double sum = 0, sum2 = 0;
  int count = 0;
  for (int64_t tr : traj)
    for (int64_t t = 0; t < d.steps; ++t)
      if (d.is_valid(tr, t)) {
        sum += d.q(tr, t)[0];
        sum2 += d.q(tr, t)[0] * d.q(tr, t)[0];
        ++count;
      }
  const double mean = sum / count, var = sum2 / count - mean * mean;
  EXPECT_NEAR(n.input_mean[0], mean, 1e-5);
  EXPECT_NEAR(n.input_std[0], std::sqrt(var + 1e-5), 1e-5);
  EXPECT_NEAR(n.channel_std[0], std::sqrt(var + 1e-5), 1e-5);
  Dataset masked = d;
  std::fill(masked.valid.begin(), masked.valid.end(), 0);
  TransitionArrays am = build_transitions(masked, codec, false);
  EXPECT_THROW(fit_normalization(masked, am, codec, traj), Error);
}

TEST(TrainData, WindowsAreMaskedAfterTheFirstBrokenTransitionAndSampledPurely) {
  Dataset d = make_pendulum_dataset({3, 12, 10});
  for (auto& v : d.valid) v = 1;
  d.valid[size_t(1 * 12 + 6)] = 0;  // trajectory 1, transition 6
  StateCodec codec(d.layout);
  TransitionArrays a = build_transitions(d, codec, false);
  WindowIndex idx(a, {0, 1, 2}, 5);
  EXPECT_EQ(idx.size(), 3 * 8 - 1);  // starts 0..7 each, minus the broken start
  WindowBatch b;
  gather_windows(a, {{1, 3}}, 5, b);
  EXPECT_EQ(b.mask, (std::vector<float>{1, 1, 1, 0, 0}));
  auto s1 = idx.sample(7, 42, 16), s2 = idx.sample(7, 42, 16), s3 = idx.sample(7, 43, 16);
  bool same = true, differs = false;
  for (size_t i = 0; i < s1.size(); ++i) {
    same &= s1[i].trajectory == s2[i].trajectory && s1[i].start == s2[i].start;
    differs |= s1[i].trajectory != s3[i].trajectory || s1[i].start != s3[i].start;
  }
  EXPECT_TRUE(same);
  EXPECT_TRUE(differs);
  // trajectories shorter than the window give one padded window
  WindowIndex longer(a, {0}, 20);
  EXPECT_EQ(longer.size(), 1);
  gather_windows(a, {longer[0]}, 20, b);
  EXPECT_EQ(std::count(b.mask.begin(), b.mask.end(), 1.0f), 12);
  EXPECT_NE(dataset_fingerprint(d), dataset_fingerprint(make_pendulum_dataset({3, 12, 11})));
}

}  // namespace
}  // namespace flashnerd::train
