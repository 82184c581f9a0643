// The training loop, validation, checkpoints and export (see trainer.h for the lifecycle).
#include "train/trainer.h"

#include "train/precision.h"
#include "train/torch_threads.h"

#include <torch/torch.h>

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/frame_features.h"
#include "core/model_artifact.h"
#include "core/model_dataset_check.h"
#include "core/plot_png.h"
#include "core/progress.h"
#include "core/state_codec.h"
#include "core/stopwatch.h"
#include "core/system_memory.h"
#include "train/models.h"
#include "train/train_data.h"

namespace flashnerd::train {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kCheckpointFormat = "flashnerd-checkpoint";
constexpr int kCheckpointVersion = 1;

// One row of the training log (one per update; validation columns on validation updates).
struct LogRow {
  int64_t update = 0;  // 1-based: the row after update `update` was applied
  double lr = 0, loss = 0;
  double valid_loss = kNaN, rollout = kNaN;
  double seconds = 0;  // wall time since the run started (all invocations)
};

nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }
double number_or_nan(const nlohmann::json& j) { return j.is_number() ? j.get<double>() : kNaN; }

nlohmann::json rows_to_json(const std::vector<LogRow>& rows) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& r : rows)
    a.push_back({r.update, r.lr, finite_or_null(r.loss), finite_or_null(r.valid_loss),
                 finite_or_null(r.rollout), r.seconds});
  return a;
}

std::vector<LogRow> rows_from_json(const nlohmann::json& a) {
  std::vector<LogRow> rows;
  for (const auto& r : a)
    rows.push_back({r.at(0).get<int64_t>(), r.at(1).get<double>(), number_or_nan(r.at(2)),
                    number_or_nan(r.at(3)), number_or_nan(r.at(4)), r.at(5).get<double>()});
  return rows;
}

std::string csv_number(double v) {
  if (!std::isfinite(v)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

void write_log_csv(const std::string& path, const std::vector<LogRow>& rows) {
  std::ostringstream os;
  os << "update,lr,train_loss,valid_loss,valid_rollout_nrmse,seconds\n";
  for (const auto& r : rows)
    os << r.update << ',' << csv_number(r.lr) << ',' << csv_number(r.loss) << ','
       << csv_number(r.valid_loss) << ',' << csv_number(r.rollout) << ',' << csv_number(r.seconds)
       << '\n';
  write_file_atomic(path, os.str());
}

void write_loss_plot(const std::string& path, const std::vector<LogRow>& rows, const ModelConfig& c) {
  // raw training losses are noisy (one batch each): light, with a running mean on top
  PlotSeries train{"train", {}, {}, 0xaec7e8, false};
  PlotSeries mean{"train (mean of 25)", {}, {}, 0x1f4e9c, false};
  PlotSeries valid{"valid", {}, {}, 0xd62728, true};
  double window_sum = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const LogRow& r = rows[i];
    train.x.push_back(double(r.update));
    train.y.push_back(r.loss);
    window_sum += r.loss;
    if (i >= 25) window_sum -= rows[i - 25].loss;
    mean.x.push_back(double(r.update));
    mean.y.push_back(window_sum / double(std::min<size_t>(i + 1, 25)));
    if (std::isfinite(r.valid_loss)) {
      valid.x.push_back(double(r.update));
      valid.y.push_back(r.valid_loss);
    }
  }
  PlotOptions o;
  o.title = str_cat(arch_name(c.arch), " ", c.preset, " on ", c.robot);
  o.x_label = "update";
  o.y_label = "mse (standardized)";
  o.log_y = true;
  write_line_plot_png(path, {train, mean, valid}, o);
}

// ---------------------------------------------------------------------------------------
// checkpoints: one torch archive {model, optimizer, meta (JSON string)}, written atomically

struct Checkpoint {
  nlohmann::json meta;
  std::string bytes;  // the whole archive, read again for model and optimizer state
};

void save_checkpoint(const std::string& path, DynamicsModel& model, torch::optim::Adam& opt,
                     const nlohmann::json& meta) {
  torch::serialize::OutputArchive archive, model_archive, opt_archive;
  model.save(model_archive);
  opt.save(opt_archive);
  archive.write("model", model_archive);
  archive.write("optimizer", opt_archive);
  archive.write("meta", c10::IValue(meta.dump()));
  std::ostringstream os;
  archive.save_to(os);
  write_file_atomic(path, os.str());
}

// A checkpoint's bytes (read by rank 0 and broadcast to every rank) parsed; `path` names it.
Checkpoint parse_checkpoint(std::string bytes, const std::string& path) {
  Checkpoint ck;
  ck.bytes = std::move(bytes);
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(ck.bytes.data(), ck.bytes.size());
    c10::IValue meta;
    archive.read("meta", meta);
    ck.meta = nlohmann::json::parse(meta.toStringRef());
  } catch (const std::exception& e) {
    throw Error(str_cat(path, ": not a readable FlashNeRD checkpoint (truncated or corrupted?): ",
                        e.what()));
  }
  FN_CHECK(ck.meta.value("format", "") == kCheckpointFormat &&
               ck.meta.value("version", 0) == kCheckpointVersion,
           path, ": not a FlashNeRD checkpoint of version ", kCheckpointVersion);
  return ck;
}

void restore_checkpoint(const Checkpoint& ck, const std::string& path, DynamicsModel& model,
                        torch::optim::Adam& opt) {
  try {
    torch::serialize::InputArchive archive, model_archive, opt_archive;
    archive.load_from(ck.bytes.data(), ck.bytes.size());
    archive.read("model", model_archive);
    archive.read("optimizer", opt_archive);
    model.load(model_archive);
    opt.load(opt_archive);
  } catch (const c10::Error& e) {
    throw Error(str_cat(path, ": model or optimizer state does not match the model (",
                        e.what_without_backtrace(), ")"));
  }
}

// ---------------------------------------------------------------------------------------
// validation

// Windows b0 .. b0+nb−1 of a batch's contact rows as tensors (views of the batch's arrays);
// nullptr-equivalent (rows undefined) when the batch has none.
ContactWindow contact_tensors(const WindowBatch& b, int64_t b0, int64_t nb) {
  if (b.contact_k == 0) return {};
  const int64_t W = b.length, k = b.contact_k;
  auto* rows = const_cast<float*>(b.contact_rows.data()) + b0 * W * k * kContactRowDim;
  auto* link = const_cast<int64_t*>(b.contact_link.data()) + b0 * W * k;
  auto* mask = const_cast<uint8_t*>(b.contact_mask.data()) + b0 * W * k;
  return {torch::from_blob(rows, {nb, W, k, kContactRowDim}),
          torch::from_blob(link, {nb, W, k}, torch::kLong),
          torch::from_blob(mask, {nb, W, k}, torch::kUInt8).to(torch::kBool)};
}

torch::Tensor predict(DynamicsModel& model, const torch::Tensor& x, const ContactWindow& contacts) {
  return model.predict(x, contacts.rows.defined() ? &contacts : nullptr);
}

// Masked MSE of standardized increments over the fixed validation windows.
double validation_loss(DynamicsModel& model, const WindowBatch& vb) {
  if (vb.batch == 0) return kNaN;
  torch::NoGradGuard no_grad;
  const int64_t W = vb.length, din = vb.input_dim, dout = vb.output_dim;
  double sse = 0, count = 0;
  constexpr int64_t kChunk = 128;
  for (int64_t b0 = 0; b0 < vb.batch; b0 += kChunk) {
    const int64_t nb = std::min<int64_t>(kChunk, vb.batch - b0);
    auto x = torch::from_blob(const_cast<float*>(vb.inputs.data()) + b0 * W * din, {nb, W, din});
    auto y = torch::from_blob(const_cast<float*>(vb.targets.data()) + b0 * W * dout, {nb, W, dout});
    auto m = torch::from_blob(const_cast<float*>(vb.mask.data()) + b0 * W, {nb, W, 1});
    sse += ((predict(model, x, contact_tensors(vb, b0, nb)) - y).pow(2) * m).sum().item<double>();
    count += m.sum().item<double>() * double(dout);
  }
  return sse / count;
}

// Prefix-averaged NRMSE of open-loop rollouts: history − 1 recorded frames, then `horizon`
// steps decoding predicted increments with the codec and re-encoding the predicted state
// with the recorded command (and recorded probe features or contact rows, an approximation:
// both need the simulator; flashnerd eval recomputes them).
double rollout_nrmse(DynamicsModel& model, const ModelConfig& c, const Dataset& d,
                     const StateCodec& codec, const TransitionArrays& standardized,
                     const std::vector<WindowRef>& starts, int history, int horizon) {
  if (starts.empty()) return kNaN;
  torch::NoGradGuard no_grad;
  const int B = int(starts.size()), W = history, din = c.input_dim, dout = c.output_dim;
  const StateLayout& L = c.layout;
  FrameFeatures ff(codec, c.probe_dim / kProbeFeatureDim);
  std::vector<float> x(size_t(B) * size_t(W) * size_t(din));  // (B, W, din) standardized
  std::vector<double> q(size_t(B) * size_t(L.nq)), v(size_t(B) * size_t(L.nv)), a(size_t(B) * size_t(L.na));
  for (int b = 0; b < B; ++b) {
    const WindowRef& s = starts[size_t(b)];
    for (int p = 0; p < W; ++p) {
      const int64_t row = s.trajectory * standardized.steps + s.start + p;
      std::copy_n(&standardized.inputs[size_t(row * din)], din, &x[(size_t(b) * size_t(W) + size_t(p)) * size_t(din)]);
    }
    const int64_t t = s.start + W - 1;
    std::copy_n(d.q(s.trajectory, t), L.nq, &q[size_t(b) * size_t(L.nq)]);
    std::copy_n(d.v(s.trajectory, t), L.nv, &v[size_t(b) * size_t(L.nv)]);
    if (L.na > 0) std::copy_n(d.a(s.trajectory, t), L.na, &a[size_t(b) * size_t(L.na)]);
  }
  std::vector<double> inc(static_cast<size_t>(dout)), q1(static_cast<size_t>(L.nq)), v1(static_cast<size_t>(L.nv)),
      a1(static_cast<size_t>(L.na)), err(static_cast<size_t>(codec.channel_dim()));
  std::vector<float> frame(static_cast<size_t>(din));
  double sum = 0;
  int64_t count = 0;
  WindowBatch recorded;  // contact rows of the recorded frames under the current window
  std::vector<WindowRef> shifted(starts);
  for (int h = 0; h < horizon; ++h) {
    if (standardized.contact_capacity > 0) {
      for (int b = 0; b < B; ++b) shifted[size_t(b)].start = starts[size_t(b)].start + h;
      gather_windows(standardized, shifted, W, recorded);
    }
    auto y = predict(model, torch::from_blob(x.data(), {B, W, din}), contact_tensors(recorded, 0, B))
                 .select(1, W - 1)
                 .contiguous();
    const float* yp = y.data_ptr<float>();
    for (int b = 0; b < B; ++b) {
      const WindowRef& s = starts[size_t(b)];
      const int64_t t = s.start + W - 1 + h;  // current frame; predict t + 1
      for (int k = 0; k < dout; ++k)
        inc[size_t(k)] = double(yp[b * dout + k]) * c.norm.target_std[size_t(k)] + c.norm.target_mean[size_t(k)];
      double* qb = &q[size_t(b) * size_t(L.nq)];
      double* vb = &v[size_t(b) * size_t(L.nv)];
      double* ab = a.data() + size_t(b) * size_t(L.na);
      codec.apply(qb, vb, ab, inc.data(), q1.data(), v1.data(), a1.data());
      std::copy(q1.begin(), q1.end(), qb);
      std::copy(v1.begin(), v1.end(), vb);
      std::copy(a1.begin(), a1.end(), ab);
      codec.channel_error(qb, vb, ab, d.q(s.trajectory, t + 1), d.v(s.trajectory, t + 1), d.a(s.trajectory, t + 1),
                          err.data());
      for (size_t k = 0; k < err.size(); ++k) {
        double e = err[k] / c.norm.channel_std[k];
        sum += e * e;
        ++count;
      }
      if (h + 1 == horizon) continue;
      // shift the window and append the predicted frame with the recorded command
      float* xb = &x[size_t(b) * size_t(W) * size_t(din)];
      std::copy(xb + din, xb + size_t(W) * size_t(din), xb);
      ff.input(qb, vb, ab, d.u(s.trajectory, t + 1), c.probe_dim > 0 ? d.probe(s.trajectory, t + 1) : nullptr,
               frame.data());
      float* last = xb + size_t(W - 1) * size_t(din);
      for (int k = 0; k < din; ++k)
        last[k] = (frame[size_t(k)] - c.norm.input_mean[size_t(k)]) / c.norm.input_std[size_t(k)];
    }
  }
  return std::sqrt(sum / double(count));
}

double lr_at(const TrainOptions& o, int64_t update) {
  const double lr_final = o.lr_final > 0 ? o.lr_final : o.lr / 10;
  const double frac = o.updates > 1 ? double(update) / double(o.updates - 1) : 0.0;
  return o.lr + (lr_final - o.lr) * frac;
}

void check_options(const TrainOptions& o) {
  FN_CHECK(!o.out_dir.empty(), "train: no output directory given (--out DIR)");
  FN_CHECK(o.updates > 0, "train: --updates must be positive, got ", o.updates);
  FN_CHECK(o.batch > 0, "train: --batch must be positive, got ", o.batch);
  FN_CHECK(o.lr > 0 && std::isfinite(o.lr), "train: --lr must be positive, got ", o.lr);
  FN_CHECK(o.lr_final >= 0, "train: final learning rate must be >= 0, got ", o.lr_final);
  FN_CHECK(o.valid_every >= 0, "train: --valid-every must be >= 0, got ", o.valid_every);
  FN_CHECK(o.checkpoint_every >= 0, "train: checkpoint period must be >= 0");
  FN_CHECK(o.valid_fraction >= 0 && o.valid_fraction < 1, "train: validation fraction must be in [0, 1), got ",
           o.valid_fraction);
  FN_CHECK(o.window >= 0, "train: window must be >= 0 (0 = the model's history)");
  FN_CHECK(o.grad_clip > 0, "train: gradient clip must be positive");
}

}  // namespace

// ---------------------------------------------------------------------------------------

ModelConfig make_model_config(const Dataset& d, Arch arch, const std::string& preset, bool use_probes,
                              const std::string& target, bool use_contacts) {
  FN_CHECK(!use_contacts || arch == Arch::FlashNeRD, "variable contacts exist only for the flashnerd "
           "architecture; NeRD reads fixed probes (--probes on)");
  FN_CHECK(!use_contacts || d.contact_capacity > 0, "dataset of robot '", d.robot,
           "' has no contact rows recorded; regenerate it with --contacts on, or train without --variable-contacts");
  FN_CHECK(!use_probes || d.probe_count > 0, "dataset of robot '", d.robot,
           "' has no fixed probes recorded; train without probes (--probes off) or regenerate it with probes");
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
  c.output_dim = target == "free_velocity" ? d.layout.nv : codec.increment_dim();
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

// --activation / --norm: set on a fresh run, checked against the checkpoint on a resume.
void apply_block_choices(const TrainOptions& opts, ModelConfig& config, bool resuming) {
  if (opts.activation.empty() && opts.norm.empty()) return;
  FN_CHECK(config.arch == Arch::FlashNeRD, "--activation and --norm choose FlashNeRD's blocks; NeRD is the "
           "published GPT-2 block (LayerNorm, GELU MLP): drop them with --arch nerd");
  if (!opts.activation.empty()) {
    const FfnActivation a = parse_activation(opts.activation);
    FN_CHECK(!resuming || a == config.flash.activation, "--resume: the checkpoint was trained with --activation ",
             activation_name(config.flash.activation), ", not ", opts.activation);
    config.flash.activation = a;
  }
  if (!opts.norm.empty()) {
    const NormKind n = parse_norm(opts.norm);
    FN_CHECK(!resuming || n == config.flash.norm, "--resume: the checkpoint was trained with --norm ",
             norm_name(config.flash.norm), ", not ", opts.norm);
    config.flash.norm = n;
  }
}

TrainResult train_model(const Dataset& data, const TrainOptions& opts_in) {
  const auto t_start = std::chrono::steady_clock::now();
  TrainOptions opts = opts_in;
  check_options(opts);
  configure_threads();
  data.validate();
  DataParallel dp(opts.distributed);  // one rank: no process group, every call local
  const int world = dp.world_size();
  FN_CHECK(opts.batch % world == 0, "train: the global --batch ", opts.batch, " must be divisible by the ", world,
           " workers (each takes an equal slice)");
  if (!dp.is_root()) {  // rank 0 reports and writes; the others only compute
    opts.progress = false;
    opts.write_plot = false;
  } else {
    ensure_writable_directory(opts.out_dir);
  }
  const std::string ckpt_path = opts.out_dir + "/checkpoint.pt";
  const std::string fingerprint = dataset_fingerprint(data);
  {  // every rank must train on rank 0's data
    std::string root_fingerprint = fingerprint;
    dp.broadcast_bytes(root_fingerprint, "the dataset check");
    FN_CHECK(root_fingerprint == fingerprint, "rank ", dp.rank(), ": its dataset (", fingerprint,
             ") differs from rank 0's (", root_fingerprint, "); give every worker the same file");
  }
  StateCodec codec(data.layout);

  // ---- configuration: fresh from the dataset, or the checkpoint's on resume
  ModelConfig config;
  std::optional<ModelArtifact> parent;  // fine-tuning: the artifact we start from, read once
  Checkpoint ck;
  int64_t start = 0;
  double seconds_before = 0;
  std::vector<LogRow> rows;
  if (opts.resume) {
    std::string bytes;
    if (dp.is_root()) {  // the checkpoint lives with rank 0: the others receive its bytes
      FN_CHECK(std::filesystem::exists(ckpt_path), "--resume: no checkpoint at ", ckpt_path,
               "; run without --resume to start training in ", opts.out_dir);
      bytes = read_file(ckpt_path);
    }
    dp.broadcast_bytes(bytes, "the checkpoint broadcast");
    ck = parse_checkpoint(std::move(bytes), ckpt_path);
    config = ck.meta.at("config").get<ModelConfig>();
    FN_CHECK(config.robot == data.robot && config.layout == data.layout, "--resume: the dataset is of robot '",
             data.robot, "' but the checkpoint in ", opts.out_dir, " was trained on robot '", config.robot,
             "'; pass the dataset it was trained on, or start a new run with another --out");
    FN_CHECK(ck.meta.value("dataset_fingerprint", "") == fingerprint, "--resume: the dataset (",
             fingerprint, ") is not the one the checkpoint was trained on (",
             ck.meta.value("dataset_fingerprint", "?"),
             "); pass the same file, or start a new run with another --out");
    FN_CHECK(config.arch == opts.arch && config.preset == opts.preset, "--resume: the checkpoint is --arch ",
             arch_name(config.arch), " --preset ", config.preset, ", not --arch ", arch_name(opts.arch),
             " --preset ", opts.preset);
    const auto& s = ck.meta.at("settings");
    FN_CHECK(s.at("seed").get<uint64_t>() == opts.seed && s.at("batch").get<int>() == opts.batch,
             "--resume: the checkpoint was trained with --seed ", s.at("seed").get<uint64_t>(), " --batch ",
             s.at("batch").get<int>(), "; resume with the same values (they fix the batch sequence)");
    apply_block_choices(opts, config, true);
    opts.window = s.at("window").get<int>();
    opts.valid_fraction = s.at("valid_fraction").get<double>();
    start = ck.meta.at("update").get<int64_t>();
    seconds_before = ck.meta.value("seconds", 0.0);
    rows = rows_from_json(ck.meta.at("log"));
    FN_CHECK(opts.updates >= start, "--resume: the checkpoint is at update ", start, ", beyond --updates ",
             opts.updates, "; give --updates >= ", start);
  } else {
    FN_CHECK(opts.overwrite || !dp.is_root() || !std::filesystem::exists(ckpt_path), opts.out_dir,
             " already holds a training checkpoint; pass --resume to continue it, --overwrite to start a new "
             "run over it, or choose another --out");
    if (!opts.init_from.empty()) {  // fine-tuning: the parent's config, checked against the data
      parent = ModelArtifact::load(opts.init_from);
      config = parent->config;
      // recorded data comes from the real robot, not the model's MJCF: a warning, not a refusal
      for (std::string w : check_model_dataset(config, opts.init_from, data, opts.data_path, true)) {
        const size_t flag = w.find(" (--allow-other-mjcf given)");
        if (flag != std::string::npos) w.erase(flag);
        std::fprintf(stderr, "warning: %s\n", w.c_str());
      }
      FN_CHECK(config.target == "increment", "finetune: ", opts.init_from, " predicts ", config.target,
               "; only increment models are fine-tuned");
    } else {
      const bool use_probes = opts.probes == ProbeUse::On || (opts.probes == ProbeUse::Auto && data.probe_count > 0);
      config = make_model_config(data, opts.arch, opts.preset, use_probes, opts.target, opts.variable_contacts);
      apply_block_choices(opts, config, false);
    }
    if (opts.customize) opts.customize(config);
  }
  const int window = opts.window > 0 ? opts.window : config.history();
  FN_CHECK(config.arch != Arch::NeRD || window <= config.nerd.window, "train: window ", window,
           " exceeds NeRD's ", config.nerd.window, " learned positions");
  {  // positions past a trajectory's end are always masked: such a window only costs memory
    const double batch_bytes = double(opts.batch) * window * (config.input_dim + config.output_dim + 1) * sizeof(float);
    FN_CHECK(window <= data.steps, "train: --window ", window, " exceeds the ", data.steps,
             " steps of each trajectory of the dataset (a batch of ", opts.batch, " such windows would need ",
             format_bytes(batch_bytes), " for its inputs alone); give --window ", data.steps, " or less");
    check_memory_fits(batch_bytes, str_cat("train: a batch of ", opts.batch, " windows of ", window, " frames"),
                      "lower --batch or --window");
  }

  // ---- data: transitions, split, normalization, windows
  const bool free_velocity = config.target == "free_velocity";
  TransitionArrays arrays =
      build_transitions(data, codec, config.probe_dim > 0, free_velocity, config.contact.enabled());
  {
    int64_t valid = 0;
    for (uint8_t m : arrays.mask) valid += m;
    FN_CHECK(valid > 0, "dataset of robot '", data.robot, "' (", data.trajectories, " trajectories of ",
             data.steps, " steps) has every transition masked invalid; nothing to train on. "
             "Regenerate it (flashnerd gen) and check why every transition was rejected");
  }
  auto [train_traj, valid_traj] = split_trajectories(data.trajectories, opts.valid_fraction, opts.seed);
  if (!opts.resume && (opts.init_from.empty() || opts.refit_normalization)) {
    // each rank sums its share of the training trajectories; the statistics are global
    std::vector<int64_t> share;
    for (size_t i = size_t(dp.rank()); i < train_traj.size(); i += size_t(world)) share.push_back(train_traj[i]);
    config.norm = fit_normalization(data, arrays, codec, share,
                                    [&dp](std::vector<double>& v) { dp.sum(v, "the normalization all-reduce"); });
    config.validate();
  }
  standardize_transitions(arrays, config.norm);
  WindowIndex train_index(arrays, train_traj, window);
  FN_CHECK(train_index.size() > 0, "dataset of robot '", data.robot, "': no training window starts on a valid "
           "transition (every transition of the training split is masked)");
  WindowIndex valid_index(arrays, valid_traj, window);
  WindowBatch valid_batch;
  gather_windows(arrays, valid_index.evenly(opts.valid_windows), window, valid_batch);
  // open-loop rollouts decode increments; a free-velocity model is validated one step at a time
  const std::vector<WindowRef> rollouts =
      free_velocity ? std::vector<WindowRef>{}
                    : rollout_starts(arrays, valid_traj, config.history(), opts.rollout_steps, opts.rollout_count);

  nlohmann::json settings = {{"dataset", opts.data_path},
                             {"dataset_fingerprint", fingerprint},
                             {"updates", opts.updates},
                             {"batch", opts.batch},
                             {"lr", opts.lr},
                             {"lr_final", opts.lr_final > 0 ? opts.lr_final : opts.lr / 10},
                             {"schedule", "linear"},
                             {"optimizer", "adam"},
                             {"grad_clip", opts.grad_clip},
                             {"seed", opts.seed},
                             {"window", window},
                             {"valid_fraction", opts.valid_fraction},
                             {"workers", world},
                             {"train_trajectories", train_traj.size()},
                             {"valid_trajectories", valid_traj.size()},
                             {"loss", "masked mse on standardized increments, every window position"}};
  if (!opts.init_from.empty()) {
    settings["finetune"] = {{"parent_model", std::filesystem::absolute(opts.init_from).string()},
                            {"refit_normalization", opts.refit_normalization},
                            {"dropout", opts.dropout},
                            {"patience", opts.patience}};
    if (parent) settings["finetune"]["parent_training"] = parent->config.training;
  }

  // ---- model and optimizer
  auto model = make_model(config, opts.seed);
  if (parent) load_weights(*model, *parent);
  model->set_dropout(opts.dropout);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(opts.lr));
  if (opts.resume) restore_checkpoint(ck, ckpt_path, *model, optimizer);
  if (opts.resume && ck.meta.at("settings").contains("finetune"))
    settings["finetune"] = ck.meta.at("settings").at("finetune");  // the parent recorded at the start
  std::vector<torch::Tensor> params = model->parameters();
  dp.broadcast_parameters(params);  // every rank starts from rank 0's weights

  TrainResult result;
  result.parameters = parameter_count(config);
  result.window = window;
  result.workers = world;
  const int64_t ckpt_every = opts.checkpoint_every > 0 ? opts.checkpoint_every : opts.valid_every;
  int64_t last_checkpoint = opts.resume ? start : -1;
  auto make_meta = [&](int64_t update, double seconds) {
    nlohmann::json meta = {{"format", kCheckpointFormat}, {"version", kCheckpointVersion},
                           {"update", update},            {"config", config},
                           {"dataset_fingerprint", fingerprint},
                           {"settings", settings},        {"seconds", seconds},
                           {"log", rows_to_json(rows)}};
    return meta;
  };
  auto write_logs = [&] {
    if (!dp.is_root()) return;
    write_log_csv(opts.out_dir + "/train_log.csv", rows);
    if (opts.write_plot && !rows.empty()) write_loss_plot(opts.out_dir + "/loss.png", rows, config);
  };

  // ---- the loop
  const int64_t width = config.arch == Arch::FlashNeRD ? config.flash.d_model : config.nerd.d_model;
  const int64_t ffn = config.arch == Arch::FlashNeRD ? config.flash.ffn_hidden : config.nerd.mlp_hidden;
  PrecisionChoice precision = choose_precision(opts.precision, int64_t(opts.batch / world) * window, width, ffn);
  {  // every rank follows rank 0's choice (a measurement could differ between machines)
    std::string choice = str_cat(precision.bf16 ? '1' : '0', precision.reason);
    dp.broadcast_bytes(choice, "the precision choice");
    precision.bf16 = choice[0] == '1';
    precision.reason = choice.substr(1);
  }
  result.precision = precision.bf16 ? "bf16" : "fp32";
  result.precision_reason = precision.reason;
  ProgressLine progress(str_cat("train ", arch_name(config.arch), " ", config.preset),
                        opts.updates - start, "updates", opts.progress);
  WindowBatch batch;
  // the global batch of update u is drawn from (seed, u); this rank trains on slice `rank`
  const int64_t B = opts.batch / world, W = window, din = config.input_dim, dout = config.output_dim;
  std::vector<WindowRef> slice(static_cast<size_t>(B));
  double train_seconds = 0;
  int64_t trained = 0;
  double last_valid = kNaN;
  // early stopping: the best validated weights so far (tracked from the start of this process)
  double best_valid = kNaN;
  int64_t best_update = 0;
  int bad_validations = 0;
  std::vector<torch::Tensor> best_weights;
  OpProfiler op_profiler;
  const int64_t profile_from = start + std::min<int64_t>(5, (opts.updates - start) / 2);
  for (int64_t u = start; u < opts.updates; ++u) {
    if (opts.profile_updates > 0 && u == profile_from) op_profiler.start();
    if (op_profiler.running() && u == profile_from + opts.profile_updates) {
      result.op_profile = op_profiler.stop();
      result.profiled_updates = u - profile_from;
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto tp = t0;  // phase clock (the split of TrainResult)
    auto phase = [&tp](double& acc) {
      const auto now = std::chrono::steady_clock::now();
      acc += std::chrono::duration<double>(now - tp).count();
      tp = now;
    };
    const std::vector<WindowRef> global = train_index.sample(opts.seed, u, opts.batch);
    std::copy_n(global.begin() + B * dp.rank(), B, slice.begin());
    gather_windows(arrays, slice, window, batch);
    phase(result.split.gather);
    auto x = torch::from_blob(batch.inputs.data(), {B, W, din});
    auto y = torch::from_blob(batch.targets.data(), {B, W, dout});
    auto m = torch::from_blob(batch.mask.data(), {B, W, 1});
    torch::Tensor sse;
    {
      AutocastScope autocast(precision.bf16);  // products in bf16; the loss on fp32 predictions
      const torch::Tensor prediction = predict(*model, x, contact_tensors(batch, 0, B)).to(torch::kFloat);
      sse = ((prediction - y).pow(2) * m).sum();
    }
    // the loss is the masked mean over the global batch: one process divides by its count;
    // ranks back-propagate their sums and the all-reduce divides by the global count
    std::vector<double> sums{sse.item<double>(), m.sum().item<double>() * double(dout)};
    const torch::Tensor loss = world == 1 ? sse / sums[1] : sse;
    double loss_value = sums[0] / sums[1];
    phase(result.split.forward);
    const double lr = lr_at(opts, u);
    double grad_norm = 0;
    if (world > 1) {  // every rank must join the all-reduce, whatever its own loss
      optimizer.zero_grad();
      loss.backward();
      phase(result.split.backward);
      dp.sum_gradients(params, sums, [](const std::vector<double>& s) { return 1.0 / s[1]; });
      loss_value = sums[0] / sums[1];
      phase(result.split.allreduce);
    }
    if (std::isfinite(loss_value)) {
      if (world == 1) {
        optimizer.zero_grad();
        loss.backward();
        phase(result.split.backward);
      }
      grad_norm = torch::nn::utils::clip_grad_norm_(params, opts.grad_clip);
      phase(result.split.clip);
    }
    if (!std::isfinite(loss_value) || !std::isfinite(grad_norm)) {
      write_logs();
      progress.finish("diverged");
      throw Error(str_cat(
          "training diverged at update ", u + 1, ": the ", std::isfinite(loss_value) ? "gradient norm" : "loss",
          " is ", std::isfinite(loss_value) ? grad_norm : loss_value, ". ",
          last_checkpoint >= 0 ? str_cat("The last good checkpoint (update ", last_checkpoint, ") is kept at ", ckpt_path)
                               : std::string("No checkpoint was written yet"),
          "; lower --lr (now ", opts.lr, ") and start again, or check the dataset for outliers"));
    }
    for (auto& group : optimizer.param_groups()) group.options().set_lr(lr);
    optimizer.step();
    phase(result.split.optimizer);
    train_seconds += seconds_since(t0);
    ++trained;

    LogRow row;
    row.update = u + 1;
    row.lr = lr;
    row.loss = loss_value;
    const bool last = u + 1 == opts.updates;
    const bool stop = opts.stop_at > 0 && u + 1 == opts.stop_at && !last;
    bool early_stop = false;
    const bool validate = last || (opts.valid_every > 0 && (u + 1) % opts.valid_every == 0);
    if (validate && dp.is_root()) {
      const auto tv = std::chrono::steady_clock::now();
      model->eval();  // no dropout while validating
      last_valid = row.valid_loss = validation_loss(*model, valid_batch);
      row.rollout = rollout_nrmse(*model, config, data, codec, arrays, rollouts,
                                                 config.history(), opts.rollout_steps);
      model->train();
      result.split.validation += seconds_since(tv);
      if (opts.patience > 0) {
        if (!std::isfinite(best_valid) || row.valid_loss < best_valid) {
          best_valid = row.valid_loss;
          best_update = u + 1;
          bad_validations = 0;
          torch::NoGradGuard no_grad;
          best_weights.clear();
          for (const auto& p : params) best_weights.push_back(p.detach().clone());
        } else if (++bad_validations >= opts.patience && !last) {
          early_stop = true;
        }
      }
    }
    if (validate && opts.patience > 0) {  // rank 0 decides; every rank stops with it
      std::vector<double> flag{early_stop ? 1.0 : 0.0};
      dp.sum(flag, "the early-stopping decision");
      early_stop = flag[0] > 0;
    }
    row.seconds = seconds_before + seconds_since(t_start);
    rows.push_back(row);
    dp.finished_update(u + 1);
    if (dp.is_root() && (stop || last || early_stop || (ckpt_every > 0 && (u + 1) % ckpt_every == 0))) {
      const auto tc = std::chrono::steady_clock::now();
      save_checkpoint(ckpt_path, *model, optimizer, make_meta(u + 1, row.seconds));
      last_checkpoint = u + 1;
      write_logs();
      result.split.checkpoint += seconds_since(tc);
    }
    progress.update(u + 1 - start, str_cat("update ", u + 1, ", loss ", short_number(loss_value),
                                           std::isfinite(last_valid) ? ", valid " + short_number(last_valid) : ""));
    if (stop) break;
    if (early_stop) {
      result.stopped_early = true;
      break;
    }
  }
  if (op_profiler.running()) {  // the run ended inside the profiled updates
    result.profiled_updates = (rows.empty() ? start : rows.back().update) - profile_from;
    result.op_profile = op_profiler.stop();
  }
  if (!best_weights.empty() && best_update != (rows.empty() ? 0 : rows.back().update)) {
    torch::NoGradGuard no_grad;  // export the best validated weights, not the last
    for (size_t i = 0; i < params.size(); ++i) params[i].copy_(best_weights[i]);
    result.best_update = best_update;
  }
  progress.finish(rows.empty() ? "" : str_cat("loss ", short_number(rows.back().loss)));

  // ---- results and export
  result.updates = rows.empty() ? 0 : rows.back().update;
  if (!rows.empty()) {
    result.first_loss = rows.front().loss;
    result.last_loss = rows.back().loss;
  }
  for (const auto& r : rows)
    if (std::isfinite(r.valid_loss) && (result.best_update == 0 || r.update == result.best_update)) {
      result.valid_loss = r.valid_loss;  // the exported weights' validation
      result.valid_rollout_nrmse = r.rollout;
    }
  result.windows_per_second = train_seconds > 0 ? double(trained * opts.batch) / train_seconds : 0;  // global
  result.gflops = result.windows_per_second * training_flops_per_window(config, window) / 1e9;
  if (dp.is_root() && (result.updates == opts.updates || result.stopped_early)) {
    if (trained == 0) write_logs();  // resumed a finished run: nothing new, export again
    config.training = settings;
    config.training["updates_done"] = result.updates;
    config.training["final_train_loss"] = finite_or_null(result.last_loss);
    config.training["final_valid_loss"] = finite_or_null(result.valid_loss);
    config.training["valid_rollout_nrmse"] = finite_or_null(result.valid_rollout_nrmse);
    config.training["valid_rollout_steps"] = opts.rollout_steps;
    if (result.stopped_early) config.training["stopped_early_at"] = result.updates;
    if (result.best_update > 0) config.training["exported_update"] = result.best_update;
    config.training["seconds"] = seconds_before + seconds_since(t_start);
    config.training["precision"] = result.precision;
    config.training["precision_reason"] = result.precision_reason;
    export_model(*model, config, opts.out_dir);
    result.artifact_dir = opts.out_dir;
  }
  result.seconds = seconds_since(t_start);
  return result;
}

}  // namespace flashnerd::train
