// The trainer (see trainer.h for the lifecycle): one Trainer per run, whose steps are setup
// (configuration, data, model), update, validate, save and export; the update itself
// (train/supervised_update.h), checkpoints, the training log, the learning-rate schedule,
// early stopping, validation and the batch source each live in a file of their own.
#include "train/trainer.h"

#include "train/precision.h"
#include "train/torch_threads.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/frame_features.h"
#include "core/model_artifact.h"
#include "core/model_dataset_check.h"
#include "core/option_error.h"
#include "core/output_policy.h"
#include "core/progress.h"
#include "core/rng.h"
#include "core/state_codec.h"
#include "core/stopwatch.h"
#include "core/system_memory.h"
#include "train/batch_source.h"
#include "train/checkpoint.h"
#include "train/early_stopping.h"
#include "train/lr_schedule.h"
#include "train/supervised_update.h"
#include "train/models.h"
#include "train/train_data.h"
#include "train/train_log.h"
#include "train/unrolled_loss.h"
#include "train/validation.h"

namespace flashnerd::train {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

void check_options(const TrainOptions& o) {
  FN_CHECK_OPTION(!o.out_dir.empty(), "out", "no output directory given");
  FN_CHECK_OPTION(o.updates > 0, "updates", "must be positive, got ", o.updates);
  FN_CHECK_OPTION(o.batch > 0, "batch", "must be positive, got ", o.batch);
  FN_CHECK_OPTION(o.lr > 0 && std::isfinite(o.lr), "lr", "must be positive, got ", o.lr);
  FN_CHECK(o.lr_final >= 0, "train: final learning rate must be >= 0, got ", o.lr_final);
  FN_CHECK_OPTION(o.lr_warmup >= 0 && o.lr_warmup < o.updates, "lr_warmup", "must be in [0, ", option_ref("updates"),
                  " = ", o.updates, "), got ", o.lr_warmup);
  FN_CHECK_OPTION(o.valid_every >= 0, "valid_every", "must be >= 0, got ", o.valid_every);
  FN_CHECK(o.checkpoint_every >= 0, "train: checkpoint period must be >= 0");
  FN_CHECK(o.valid_fraction >= 0 && o.valid_fraction < 1, "train: validation fraction must be in [0, 1), got ",
           o.valid_fraction);
  FN_CHECK(o.window >= 0, "train: window must be >= 0 (0 = the model's history)");
  FN_CHECK(o.grad_clip > 0, "train: gradient clip must be positive");
}


nlohmann::json own_state_settings(const OwnStateOptions& o) {
  nlohmann::json gradient = "none (predicted frames are data)";
  if (o.unroll_gradient)
    gradient = {{"through", "every forecast step (unroll = forecast steps, the first from recorded frames)"},
                {"step_weight_decay", o.unroll_decay},
                {"feedback", enum_name(kUnrollFeedbackNames, o.unroll_feedback)}};
  return {{"unroll", o.unroll},
          {"unroll_ramp", o.unroll_ramp}, {"unroll_fraction", o.unroll_fraction}, {"input_noise", o.input_noise},
          {"noise_fraction", o.noise_fraction}, {"unroll_gradient", gradient},
          {"sensed_at_own_states", "probes and contact rows recomputed by the simulator"}};
}

}  // namespace

// ---------------------------------------------------------------------------------------

ModelConfig make_model_config(const Dataset& d, Arch arch, ModelPreset preset, bool use_probes,
                              PredictionTarget target, bool use_contacts) {
  FN_CHECK_OPTION(!use_contacts || arch == Arch::FlashNeRD, "variable_contacts", "exist only for the flashnerd "
                  "architecture; NeRD reads fixed probes instead (", option_ref("probes"), " on)");
  FN_CHECK_OPTION(!use_contacts || d.contact_capacity > 0, "variable_contacts", "dataset of robot '", d.robot,
                  "' has no contact rows recorded; regenerate it with contact rows, or train without ",
                  option_ref("variable_contacts"));
  FN_CHECK_OPTION(!use_probes || d.probe_count > 0, "probes", "dataset of robot '", d.robot,
                  "' has no fixed probes recorded; train without probes (", option_ref("probes"),
                  " off) or regenerate it with probes");
  StateCodec codec(d.layout);
  ModelConfig c;
  c.arch = arch;
  c.robot = d.robot;
  c.mjcf_hash = d.mjcf_hash;
  c.actuator_model = d.actuator_model;
  c.timestep = d.timestep;
  c.layout = d.layout;
  c.state_dim = codec.feature_dim();
  c.probe_dim = use_probes ? d.probe_count * kProbeFeatureDim : 0;
  c.input_dim = c.state_dim + d.layout.nu + c.probe_dim;
  c.target = target;
  c.output_dim = target == PredictionTarget::FreeVelocity ? d.layout.nv : codec.increment_dim();
  apply_preset(preset, c);
  if (use_contacts) {
    FN_CHECK(std::any_of(d.contact_count.begin(), d.contact_count.end(), [](int32_t n) { return n > 0; }),
             "dataset of robot '", d.robot, "' has no contact row in any frame (a robot without collision "
             "geometry, or one that never touches anything): variable contacts have nothing to learn from");
    c.contact.capacity = d.contact_capacity;
    c.contact.link_count = d.link_count;
  }
  return c;
}

double training_flops_per_window(const ModelConfig& c, int window) {
  double fwd;
  if (c.arch == Arch::FlashNeRD) {
    fwd = double(window) * flops_per_transition(c);
  } else {
    ModelConfig w = c;
    w.nerd.window = window;
    fwd = flops_per_transition(w) +
          2.0 * double(window - 1) * (double(c.nerd.d_model) * c.nerd.head_hidden + double(c.nerd.head_hidden) * c.output_dim);
  }
  return 3.0 * fwd;
}

// The activation and norm chosen: set on a fresh run, checked against the checkpoint on a resume.
void apply_block_choices(const TrainOptions& opts, ModelConfig& config, bool resuming) {
  if (!opts.activation && !opts.norm) return;
  FN_CHECK(config.arch == Arch::FlashNeRD, "the activation and norm choose FlashNeRD's blocks; NeRD is the "
           "published GPT-2 block (LayerNorm, GELU MLP): choose neither for a NeRD model");
  if (opts.activation) {
    FN_CHECK(!resuming || *opts.activation == config.flash.activation, "resume: the checkpoint was trained with "
             "activation ", activation_name(config.flash.activation), ", not ", activation_name(*opts.activation));
    config.flash.activation = *opts.activation;
  }
  if (opts.norm) {
    FN_CHECK(!resuming || *opts.norm == config.flash.norm, "resume: the checkpoint was trained with norm ",
             norm_name(config.flash.norm), ", not ", norm_name(*opts.norm));
    config.flash.norm = *opts.norm;
  }
}

namespace {

// One run of training: setup (configuration, data, model), then update / validate / save per
// update, then export. Rank 0 of a data-parallel run validates and writes; every rank updates.
class Trainer {
 public:
  Trainer(const Dataset& data, const TrainOptions& opts)
      : data_(data), opts_(opts), dp_(opts.distributed), codec_(data.layout), stopping_(opts.patience) {}

  TrainResult run();

 private:
  void setup_run();
  void resume_configuration();
  void check_resumed_parent(const nlohmann::json& settings) const;
  void fresh_configuration();
  void setup_data();
  void setup_model();
  double update(int64_t u);
  void seed_dropout(int64_t u) const;
  bool validate(LogRow& row, bool last);
  void save(int64_t update, double seconds);
  void write_logs();
  void export_artifact(double seconds);
  [[noreturn]] void diverged(int64_t u, double loss, double grad_norm);
  nlohmann::json checkpoint_meta(int64_t update, double seconds) const;

  const Dataset& data_;
  TrainOptions opts_;
  DataParallel dp_;
  StateCodec codec_;
  std::chrono::steady_clock::time_point t_start_ = std::chrono::steady_clock::now();
  std::string ckpt_path_, fingerprint_;
  // configuration
  ModelConfig config_;
  std::optional<ModelArtifact> parent_;  // fine-tuning: the artifact we start from, read once
  std::optional<CheckpointReader> ck_;  // a resumed run's checkpoint
  int64_t start_ = 0;
  double seconds_before_ = 0;
  std::vector<LogRow> rows_;
  int window_ = 0;
  nlohmann::json settings_;
  // data
  TransitionArrays arrays_;
  std::optional<WindowIndex> train_index_;
  WindowBatch valid_batch_, batch_;
  std::vector<WindowRef> rollouts_;
  std::optional<BatchSource> source_;
  std::optional<UnrolledLoss> unrolled_loss_;  // --unroll-grad
  // model
  std::shared_ptr<DynamicsModel> model_;
  std::optional<SupervisedUpdate> update_;
  EarlyStopping stopping_;
  // progress
  std::optional<ProgressLine> progress_;
  TrainResult result_;
  double train_seconds_ = 0;
  int64_t trained_ = 0;
  int64_t last_checkpoint_ = -1;
  double last_valid_ = kNaN;
};

void Trainer::setup_run() {
  check_options(opts_);
  configure_threads();
  data_.validate();
  FN_CHECK_OPTION(opts_.batch % dp_.world_size() == 0, "batch", "the global batch ", opts_.batch,
                  " must be divisible by the ", dp_.world_size(), " workers (each takes an equal slice)");
  if (!dp_.is_root()) {  // rank 0 reports and writes; the others only compute
    opts_.progress = false;
    opts_.write_plot = false;
  } else {
    ensure_writable_directory(opts_.out_dir);
  }
  ckpt_path_ = opts_.out_dir + "/checkpoint.pt";
  fingerprint_ = dataset_fingerprint(data_);
  std::string root_fingerprint = fingerprint_;  // every rank must train on rank 0's data
  dp_.broadcast_bytes(root_fingerprint, "the dataset check");
  FN_CHECK(root_fingerprint == fingerprint_, "rank ", dp_.rank(), ": its dataset (", fingerprint_,
           ") differs from rank 0's (", root_fingerprint, "); give every worker the same file");
}

// A resumed fine-tune continues the parent it started from, with the same dropout: another
// --model or --init-from would be silently ignored (the weights come from the checkpoint).
void Trainer::check_resumed_parent(const nlohmann::json& settings) const {
  const std::string recorded = settings.contains("finetune") ? settings.at("finetune").value("parent_model", "") : "";
  const std::string given = opts_.init_from.empty() ? "" : resolved_path(opts_.init_from);
  FN_CHECK_OPTION((recorded.empty() ? "" : resolved_path(recorded)) == given, "resume", "the checkpoint in ",
                  opts_.out_dir,
                  recorded.empty() ? std::string(" was trained from scratch") : " continues the model " + recorded,
                  ", not ", given.empty() ? std::string("a run from scratch") : "the model " + given,
                  "; resume with the same parent, or start a new run with another ", option_ref("out"));
  if (recorded.empty()) return;
  const double dropout = settings.at("finetune").value("dropout", 0.0);
  FN_CHECK_OPTION(dropout == opts_.dropout, "dropout", opts_.dropout, " differs from the checkpoint's ", dropout,
                  " (it was fine-tuned with that); resume with the same value");
}

void Trainer::resume_configuration() {
  std::string bytes;
  if (dp_.is_root()) {  // the checkpoint lives with rank 0: the others receive its bytes
    FN_CHECK_OPTION(std::filesystem::exists(ckpt_path_), "resume", "no checkpoint at ", ckpt_path_,
                    "; run without ", option_ref("resume"), " to start training in ", opts_.out_dir);
    bytes = CheckpointReader::read_bytes(ckpt_path_, opts_.allow_unsealed);
  }
  dp_.broadcast_bytes(bytes, "the checkpoint broadcast");
  ck_.emplace(std::move(bytes), ckpt_path_, kCheckpointFormat, kCheckpointVersion);
  config_ = ck_->meta().at("config").get<ModelConfig>();
  FN_CHECK_OPTION(config_.robot == data_.robot && config_.layout == data_.layout, "resume", "the dataset is of robot '",
                  data_.robot, "' but the checkpoint in ", opts_.out_dir, " was trained on robot '", config_.robot,
                  "'; pass the dataset it was trained on, or start a new run with another ", option_ref("out"));
  FN_CHECK_OPTION(ck_->meta().value("dataset_fingerprint", "") == fingerprint_, "resume", "the dataset (",
                  fingerprint_, ") is not the one the checkpoint was trained on (",
                  ck_->meta().value("dataset_fingerprint", "?"), "); pass the same file, or start a new run with "
                  "another ", option_ref("out"));
  // a run continuing a model (init_from) has that model's sizes, a preset or not
  const bool same_preset = !opts_.init_from.empty() || config_.preset == preset_name(opts_.preset);
  FN_CHECK_OPTION(config_.arch == opts_.arch && same_preset, "resume", "the checkpoint is ",
                  option_ref("arch"), " ", arch_name(config_.arch), " ", option_ref("preset"), " ", config_.preset,
                  ", not ", option_ref("arch"), " ", arch_name(opts_.arch), " ", option_ref("preset"), " ",
                  preset_name(opts_.preset));
  const auto& s = ck_->meta().at("settings");
  FN_CHECK_OPTION(s.at("seed").get<uint64_t>() == opts_.seed && s.at("batch").get<int>() == opts_.batch,
                  "resume", "the checkpoint was trained with ", option_ref("seed"), " ", s.at("seed").get<uint64_t>(),
                  " and ", option_ref("batch"), " ", s.at("batch").get<int>(),
                  "; resume with the same values (they fix the batch sequence)");
  const nlohmann::json own = opts_.own.any() ? own_state_settings(opts_.own) : nlohmann::json();
  const nlohmann::json recorded_own = s.contains("own_states") ? s.at("own_states") : nlohmann::json();
  FN_CHECK_OPTION(own == recorded_own, "resume", "the checkpoint was trained with own-state settings ",
                  recorded_own.is_null() ? std::string("none") : recorded_own.dump(), ", not ",
                  own.is_null() ? std::string("none") : own.dump(), "; resume with the same ", option_ref("unroll"),
                  " and ", option_ref("input_noise"), " settings");
  check_resumed_parent(s);
  apply_block_choices(opts_, config_, true);
  opts_.window = s.at("window").get<int>();
  opts_.valid_fraction = s.at("valid_fraction").get<double>();
  start_ = ck_->meta().at("update").get<int64_t>();
  seconds_before_ = ck_->meta().value("seconds", 0.0);
  rows_ = rows_from_json(ck_->meta().at("log"));
  FN_CHECK_OPTION(opts_.updates >= start_, "updates", opts_.updates, " is before the checkpoint's update ", start_,
                  "; give at least that many to resume the run");
}

void Trainer::fresh_configuration() {
  FN_CHECK_OPTION(opts_.overwrite || !dp_.is_root() || !std::filesystem::exists(ckpt_path_), "out", opts_.out_dir,
                  " already holds a training checkpoint; pass ", option_ref("resume"), " to continue it, ",
                  option_ref("overwrite"), " to start a new run over it, or choose another directory");
  if (!opts_.init_from.empty()) {  // continuing a trained artifact: its config, checked against the data
    parent_ = ModelArtifact::load(opts_.init_from);
    config_ = parent_->config;
    // recorded data comes from the real robot, not the model's MJCF: a warning, not a refusal
    for (std::string w : check_model_dataset(config_, opts_.init_from, data_, opts_.data_path, true)) {
      const size_t flag = w.find(kOtherMjcfAllowed);
      if (flag != std::string::npos) w.erase(flag);
      std::fprintf(stderr, "warning: %s\n", w.c_str());
    }
  } else {
    const bool use_probes =
        opts_.probes == ProbeUse::On || (opts_.probes == ProbeUse::Auto && data_.probe_count > 0);
    config_ = make_model_config(data_, opts_.arch, opts_.preset, use_probes, opts_.target, opts_.variable_contacts);
    apply_block_choices(opts_, config_, false);
  }
  if (opts_.customize) opts_.customize(config_);
}

void Trainer::setup_data() {
  window_ = opts_.window > 0 ? opts_.window : config_.history();
  FN_CHECK(config_.arch != Arch::NeRD || window_ <= config_.nerd.window, "train: window ", window_,
           " exceeds NeRD's ", config_.nerd.window, " learned positions");
  {  // positions past a trajectory's end are always masked: such a window only costs memory
    const double positions = double(opts_.batch) * window_;
    const double batch_bytes = positions * (config_.input_dim + config_.output_dim + 1) * sizeof(float);
    FN_CHECK_OPTION(window_ <= data_.steps, "window", window_, " exceeds the ", data_.steps,
                    " steps of each trajectory of the dataset (a batch of ", opts_.batch, " such windows would need ",
                    format_bytes(batch_bytes), " for its inputs alone); give ", data_.steps, " or less");
    MemoryPlan(str_cat("train: a batch of ", opts_.batch, " windows of ", window_, " frames"))
        .add("batch inputs", batch_bytes)
        .add("activations and their gradients", positions * training_floats_per_position(config_) * sizeof(float))
        .add("transition arrays", double(data_.trajectories) * data_.steps *
                                      (config_.input_dim + config_.output_dim + 1) * sizeof(float))
        .check(str_cat("lower ", option_ref("batch"), " or ", option_ref("window")));
  }
  const bool free_velocity = config_.target == PredictionTarget::FreeVelocity;
  arrays_ = build_transitions(data_, codec_, config_.probe_dim > 0, free_velocity, config_.contact.enabled());
  int64_t valid = 0;
  for (uint8_t m : arrays_.mask) valid += m;
  FN_CHECK(valid > 0, "dataset of robot '", data_.robot, "' (", data_.trajectories, " trajectories of ",
           data_.steps, " steps) has every transition masked invalid; nothing to train on. "
           "Regenerate it (flashnerd gen) and check why every transition was rejected");
  auto [train_traj, valid_traj] = split_trajectories(data_.trajectories, opts_.valid_fraction, opts_.seed);
  if (!opts_.resume && (opts_.init_from.empty() || opts_.refit_normalization)) {
    // each rank sums its share of the training trajectories; the statistics are global
    std::vector<int64_t> share;
    for (size_t i = size_t(dp_.rank()); i < train_traj.size(); i += size_t(dp_.world_size()))
      share.push_back(train_traj[i]);
    config_.norm = fit_normalization(data_, arrays_, codec_, share,
                                     [this](std::vector<double>& v) { dp_.sum(v, "the normalization all-reduce"); });
    config_.validate();
  }
  standardize_transitions(arrays_, config_.norm);
  train_index_.emplace(arrays_, train_traj, window_);
  FN_CHECK(train_index_->size() > 0, "dataset of robot '", data_.robot, "': no training window starts on a valid "
           "transition (every transition of the training split is masked)");
  WindowIndex valid_index(arrays_, valid_traj, window_);
  gather_windows(arrays_, valid_index.evenly(opts_.valid_windows), window_, valid_batch_);
  // open-loop rollouts decode increments; a free-velocity model is validated one step at a time
  if (!free_velocity)
    rollouts_ = rollout_starts(arrays_, valid_traj, config_.history(), opts_.rollout_steps, opts_.rollout_count);
  source_.emplace(data_, config_, arrays_, *train_index_, window_, opts_.own, opts_.seed, dp_.rank(),
                  dp_.world_size(), opts_.batch, opts_.sensor);
  if (opts_.own.unroll_gradient) unrolled_loss_.emplace(data_, config_, opts_.sensor);

  settings_ = {{"dataset", opts_.data_path},
               {"dataset_fingerprint", fingerprint_}, {"updates", opts_.updates}, {"batch", opts_.batch},
               {"lr", opts_.lr}, {"lr_final", opts_.lr_final > 0 ? opts_.lr_final : opts_.lr / 10},
               {"schedule", "linear"}, {"optimizer", "adam"}, {"grad_clip", opts_.grad_clip}, {"seed", opts_.seed},
               {"window", window_}, {"valid_fraction", opts_.valid_fraction}, {"workers", dp_.world_size()},
               {"train_trajectories", train_traj.size()}, {"valid_trajectories", valid_traj.size()},
               {"loss", "masked mse on standardized increments, every window position"}};
  if (opts_.lr_warmup > 0) settings_["lr_warmup"] = opts_.lr_warmup;  // absent when 0: older runs resume
  if (opts_.own.any()) settings_["own_states"] = own_state_settings(opts_.own);
  if (!opts_.init_from.empty()) {
    settings_["finetune"] = {{"parent_model", std::filesystem::absolute(opts_.init_from).string()},
                             {"refit_normalization", opts_.refit_normalization},
                             {"dropout", opts_.dropout},
                             {"patience", opts_.patience}};
    if (parent_) settings_["finetune"]["parent_training"] = parent_->config.training;
  }
}

void Trainer::setup_model() {
  model_ = make_model(config_, opts_.seed);
  if (parent_) load_weights(*model_, *parent_);
  model_->set_dropout(opts_.dropout);
  const int64_t width = config_.arch == Arch::FlashNeRD ? config_.flash.d_model : config_.nerd.d_model;
  const int64_t ffn = config_.arch == Arch::FlashNeRD ? config_.flash.ffn_hidden : config_.nerd.mlp_hidden;
  PrecisionChoice precision =
      choose_precision(opts_.precision, int64_t(opts_.batch / dp_.world_size()) * window_, width, ffn);
  std::string choice = str_cat(precision.bf16 ? '1' : '0', precision.reason);
  dp_.broadcast_bytes(choice, "the precision choice");  // every rank follows rank 0's measurement
  precision.bf16 = choice[0] == '1';
  precision.reason = choice.substr(1);
  const SupervisedUpdateOptions update_options{LinearSchedule{opts_.lr, opts_.lr_final, opts_.updates, opts_.lr_warmup},
                                       opts_.grad_clip, precision.bf16, opts_.seed, opts_.own,
                                       opts_.fused_update, opts_.threads};
  update_.emplace(*model_, dp_, update_options, unrolled_loss_ ? &*unrolled_loss_ : nullptr);
  if (opts_.resume) {
    ck_->module("model", *model_);
    ck_->optimizer("optimizer", update_->optimizer());
    if (stopping_.enabled() && ck_->meta().contains("early_stopping")) {
      const nlohmann::json& state = ck_->meta().at("early_stopping");
      stopping_.restore(state, state.at("best_update").get<int64_t>() > 0 ? ck_->blob("early_stopping_best") : "");
    }
  }
  if (opts_.resume && ck_->meta().at("settings").contains("finetune"))
    settings_["finetune"] = ck_->meta().at("settings").at("finetune");  // the parent recorded at the start
  dp_.broadcast_parameters(update_->parameters());  // every rank starts from rank 0's weights
  result_.precision = precision.bf16 ? TrainingPrecision::BF16 : TrainingPrecision::FP32;
  result_.precision_reason = precision.reason;
  result_.parameters = parameter_count(config_);
  result_.window = window_;
  result_.workers = dp_.world_size();
  if (opts_.resume) last_checkpoint_ = start_;
}

// One optimizer step on update u's windows; returns the global batch's loss.
double Trainer::update(int64_t u) {
  const auto t0 = std::chrono::steady_clock::now();
  source_->next(*model_, u, batch_);
  result_.split.gather += seconds_since(t0);
  UpdatePhases phases;
  const UpdateOutcome outcome = update_->step(u, batch_, source_->windows(), source_->unrolled_count(), phases);
  result_.split.forward += phases.forward;
  result_.split.backward += phases.backward;
  result_.split.allreduce += phases.allreduce;
  result_.split.clip += phases.clip;
  result_.split.optimizer += phases.optimizer;
  if (!outcome.finite()) diverged(u, outcome.loss, outcome.grad_norm);
  train_seconds_ += seconds_since(t0);
  ++trained_;
  return outcome.loss;
}

// Dropout draws from libtorch's global generator: seeded from (seed, update, rank) before
// each update, its masks repeat in a second run and in a resumed one.
void Trainer::seed_dropout(int64_t u) const {
  if (opts_.dropout <= 0) return;
  torch::manual_seed(Rng::stream(opts_.seed, uint64_t(u) * 1024 + uint64_t(dp_.rank())).next());
}

void Trainer::diverged(int64_t u, double loss, double grad_norm) {
  write_logs();
  progress_->finish("diverged");
  throw OptionError("", str_cat(
      "training diverged at update ", u + 1, ": the ", std::isfinite(loss) ? "gradient norm" : "loss", " is ",
      std::isfinite(loss) ? grad_norm : loss, ". ",
      last_checkpoint_ >= 0 ? str_cat("The last good checkpoint (update ", last_checkpoint_, ") is kept at ", ckpt_path_)
                            : std::string("No checkpoint was written yet"),
      "; lower ", option_ref("lr"), " (now ", opts_.lr, ") and start again, or check the dataset for outliers"));
}

// Validation after update row.update (rank 0 measures, every rank learns the early-stopping
// decision); returns true when the run stops early.
bool Trainer::validate(LogRow& row, bool last) {
  bool early_stop = false;
  if (dp_.is_root()) {
    const auto tv = std::chrono::steady_clock::now();
    model_->eval();  // no dropout while validating
    last_valid_ = row.valid_loss = validation_loss(*model_, valid_batch_);
    row.rollout = rollout_nrmse(*model_, config_, data_, codec_, arrays_, rollouts_, config_.history(),
                                opts_.rollout_steps);
    model_->train();
    result_.split.validation += seconds_since(tv);
    early_stop = stopping_.observe(row.update, row.valid_loss, update_->parameters(), last);
  }
  if (stopping_.enabled()) {  // rank 0 decides; every rank stops with it
    std::vector<double> flag{early_stop ? 1.0 : 0.0};
    dp_.sum(flag, "the early-stopping decision");
    early_stop = flag[0] > 0;
  }
  return early_stop;
}

nlohmann::json Trainer::checkpoint_meta(int64_t update, double seconds) const {
  return {{"format", kCheckpointFormat}, {"version", kCheckpointVersion}, {"update", update},
          {"config", config_},           {"dataset_fingerprint", fingerprint_},
          {"settings", settings_},       {"seconds", seconds},
          {"log", rows_to_json(rows_)}};
}

void Trainer::save(int64_t update, double seconds) {
  const auto tc = std::chrono::steady_clock::now();
  CheckpointWriter w;
  w.module("model", *model_);
  w.optimizer("optimizer", update_->optimizer());
  nlohmann::json meta = checkpoint_meta(update, seconds);
  if (stopping_.enabled()) {
    meta["early_stopping"] = stopping_.state();
    if (stopping_.has_best()) w.blob("early_stopping_best", stopping_.best_weights_bytes());
  }
  w.commit(ckpt_path_, meta);
  last_checkpoint_ = update;
  write_logs();
  result_.split.checkpoint += seconds_since(tc);
}

void Trainer::write_logs() {
  if (!dp_.is_root()) return;
  write_log_csv(opts_.out_dir + "/train_log.csv", rows_);
  if (opts_.write_plot && !rows_.empty()) write_loss_plot_spec(opts_.out_dir + "/loss.plot.json", rows_, config_);
}

void Trainer::export_artifact(double seconds) {
  if (trained_ == 0) write_logs();  // resumed a finished run: nothing new, export again
  config_.training = settings_;
  config_.training["updates_done"] = result_.updates;
  config_.training["final_train_loss"] = finite_or_null(result_.last_loss);
  config_.training["final_valid_loss"] = finite_or_null(result_.valid_loss);
  config_.training["valid_rollout_nrmse"] = finite_or_null(result_.valid_rollout_nrmse);
  config_.training["valid_rollout_steps"] = opts_.rollout_steps;
  if (result_.stopped_early) config_.training["stopped_early_at"] = result_.updates;
  if (result_.best_update > 0) config_.training["exported_update"] = result_.best_update;
  config_.training["seconds"] = seconds;
  config_.training["precision"] = training_precision_name(result_.precision);
  config_.training["precision_reason"] = result_.precision_reason;
  config_.training["update"] = opts_.fused_update ? str_cat("fused, ", opts_.threads, " threads") : "autograd";
  export_model(*model_, config_, opts_.out_dir);
  result_.artifact_dir = opts_.out_dir;
}

TrainResult Trainer::run() {
  setup_run();
  if (opts_.resume) {
    resume_configuration();
  } else {
    fresh_configuration();
  }
  setup_data();
  setup_model();
  progress_.emplace(str_cat("train ", arch_name(config_.arch), " ", config_.preset), opts_.updates - start_,
                    "updates", opts_.progress);
  const int64_t ckpt_every = opts_.checkpoint_every > 0 ? opts_.checkpoint_every : opts_.valid_every;
  OpProfiler op_profiler;
  const int64_t profile_from = start_ + std::min<int64_t>(5, (opts_.updates - start_) / 2);
  // a run that stopped early and was killed before its export ends where it stopped
  if (stopping_.stopped()) result_.stopped_early = true;
  for (int64_t u = start_; u < opts_.updates && !stopping_.stopped(); ++u) {
    if (opts_.profile_updates > 0 && u == profile_from) op_profiler.start();
    if (op_profiler.running() && u == profile_from + opts_.profile_updates) {
      result_.op_profile = op_profiler.stop();
      result_.profiled_updates = u - profile_from;
    }
    LogRow row;
    row.update = u + 1;
    row.lr = update_->learning_rate(u);
    seed_dropout(u);
    row.loss = update(u);
    const bool last = u + 1 == opts_.updates;
    const bool stop = opts_.stop_at > 0 && u + 1 == opts_.stop_at && !last;
    const bool validating = last || (opts_.valid_every > 0 && (u + 1) % opts_.valid_every == 0);
    const bool early_stop = validating && validate(row, last);
    row.seconds = seconds_before_ + seconds_since(t_start_);
    rows_.push_back(row);
    dp_.finished_update(u + 1);
    if (dp_.is_root() && (stop || last || early_stop || (ckpt_every > 0 && (u + 1) % ckpt_every == 0)))
      save(u + 1, row.seconds);
    progress_->update(u + 1 - start_, str_cat("update ", u + 1, ", loss ", short_number(row.loss),
                                            std::isfinite(last_valid_) ? ", valid " + short_number(last_valid_) : ""));
    if (stop) break;
    if (early_stop) {
      result_.stopped_early = true;
      break;
    }
  }
  if (op_profiler.running()) {  // the run ended inside the profiled updates
    result_.profiled_updates = (rows_.empty() ? start_ : rows_.back().update) - profile_from;
    result_.op_profile = op_profiler.stop();
  }
  if (stopping_.has_best() && stopping_.best_update() != (rows_.empty() ? 0 : rows_.back().update)) {
    stopping_.restore_best(update_->parameters());  // export the best validated weights, not the last
    result_.best_update = stopping_.best_update();
  }
  progress_->finish(rows_.empty() ? "" : str_cat("loss ", short_number(rows_.back().loss)));

  result_.updates = rows_.empty() ? 0 : rows_.back().update;
  if (!rows_.empty()) {
    result_.first_loss = rows_.front().loss;
    result_.last_loss = rows_.back().loss;
  }
  for (const auto& r : rows_)
    if (std::isfinite(r.valid_loss) && (result_.best_update == 0 || r.update == result_.best_update)) {
      result_.valid_loss = r.valid_loss;  // the exported weights' validation
      result_.valid_rollout_nrmse = r.rollout;
    }
  result_.windows_per_second = train_seconds_ > 0 ? double(trained_ * opts_.batch) / train_seconds_ : 0;  // global
  result_.gflops = result_.windows_per_second * training_flops_per_window(config_, window_) / 1e9;
  result_.own_state_seconds = source_->own_state_seconds();
  if (dp_.is_root() && (result_.updates == opts_.updates || result_.stopped_early))
    export_artifact(seconds_before_ + seconds_since(t_start_));
  result_.seconds = seconds_since(t_start_);
  return result_;
}

}  // namespace

TrainResult train_model(const Dataset& data, const TrainOptions& opts) { return Trainer(data, opts).run(); }

}  // namespace flashnerd::train
