// flashnerd bench: model-only speed of FlashNeRD and Optimized NeRD side by side in one run
// (docs/DESIGN.md §6). Per batch size: median per-step latency over nine steady-state groups (inputs
// pre-normalized and already in memory, histories full), throughput Q(B) = B / (10³ L) million
// transitions/s, achieved GFLOP/s from flops_per_transition, and the machine's own GEMM rate
// measured in the same run; memory per environment. Random weights of a preset's shape unless
// --model gives a trained model. Each precision (fp32, and bf16 where the CPU has it) is timed
// against its own ceiling: OpenBLAS sgemm for fp32, oneDNN's bf16 matmul for bf16.
#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <unistd.h>

#include "cli/cli_common.h"
#include "cli/option_values.h"
#include "cli/plot_drawing.h"
#include "core/error.h"
#include "core/model_artifact.h"
#include "core/rng.h"
#include "core/thread_pool.h"
#include "core/plot_spec.h"
#include "engine/cpu/cpu_features.h"
#include "engine/engine.h"
#include "engine/gemm_rate.h"

namespace flashnerd::cli {

namespace {

enum class BenchArch { FlashNeRD, NeRD, Both };
constexpr EnumName<BenchArch> kBenchArchNames[] = {
    {BenchArch::FlashNeRD, "flashnerd"}, {BenchArch::NeRD, "nerd"}, {BenchArch::Both, "both"}};

// --precision: all (fp32, and bf16 where the CPU has it) or one engine::Precision.
enum class BenchPrecision { All, Auto, FP32, BF16 };
constexpr EnumName<BenchPrecision> kBenchPrecisionNames[] = {{BenchPrecision::All, "all"},
                                                             {BenchPrecision::Auto, "auto"},
                                                             {BenchPrecision::FP32, "fp32"},
                                                             {BenchPrecision::BF16, "bf16"}};

struct BenchOptions {
  CommonOptions common;
  BenchArch arch = BenchArch::Both;
  ModelPreset preset = ModelPreset::PaperCartpole;
  std::string model_dir;
  int input_dim = 6;
  int output_dim = 4;
  std::string batches = "1,16,256,4096,65536";
  ThreadOptions threads;
  int groups = 9;
  double group_seconds = 0.2;
  double warmup_seconds = 10;
  engine::GemmBackend gemm = engine::GemmBackend::Auto;
  BenchPrecision precision = BenchPrecision::All;
  int64_t parallel_min_macs = 0;
  int tile_rows = 0;
  double max_memory_gb = 0;
  uint64_t seed = 1;
  std::string plot;  // PNG of Q(B) for each architecture
};

std::string fmt(double v, int precision) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", precision, v);
  return buf;
}

std::string bytes_text(double b) {
  if (b >= 1 << 20) return fmt(b / double(1 << 20), 1) + " MiB";
  if (b >= 1 << 10) return fmt(b / double(1 << 10), 1) + " KiB";
  return fmt(b, 0) + " B";
}

double physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? double(pages) * double(page) : 8e9;
}

struct Result {
  std::string arch, precision;
  int64_t batch = 0;
  double latency_ms = 0, mtps = 0, gflops = 0;
};

// What every timing of one run shares, and the notes it collects.
struct BenchRun {
  const BenchOptions& o;
  ThreadPool& pool;
  int din, dout;
  double memory_limit;
  std::map<std::string, std::string> kernels;  // precision -> the context's kernel summary
  std::vector<std::string> skipped, notes;
};

// The median step latency of `model` at batch B (nothing when B would not fit in memory); the
// model's sizes into m.
std::optional<Result> time_batch(BenchRun& bc, const engine::Model& model, Arch a, engine::Precision prec, int64_t B,
                                 double flops, nlohmann::json& m) {
  const BenchOptions& o = bc.o;
  using clock = std::chrono::steady_clock;
  // memory check before reserving: cache per env + inputs/outputs + per-thread scratch
  {
    engine::ContextOptions probe;
    probe.max_batch = 1;
    probe.pool = &bc.pool;
    probe.gemm = bc.o.gemm;
    probe.tile_rows = o.tile_rows;
    engine::Context small(model, probe);
    bc.kernels[engine::precision_name(prec)] = small.kernel_summary();
    m["cache_bytes_per_env"] = small.cache_bytes_per_env();
    m["activation_bytes_per_env"] = small.activation_bytes_per_env();
    const double need = double(B) * (double(small.cache_bytes_per_env()) + 4.0 * (bc.din + bc.dout) + 9) +
                        double(small.total_bytes()) * 4;
    if (need > bc.memory_limit) {
      bc.skipped.push_back(str_cat(arch_name(a), " B=", B, ": needs ~", bytes_text(need),
                                   ", over the memory limit ", bytes_text(bc.memory_limit)));
      std::fprintf(stderr, "skipping %s\n", bc.skipped.back().c_str());
      return std::nullopt;
    }
  }
  engine::ContextOptions opt;
  opt.max_batch = int(B);
  opt.pool = &bc.pool;
  opt.gemm = bc.o.gemm;
  opt.tile_rows = o.tile_rows;
  opt.parallel_min_macs = o.parallel_min_macs;
  engine::Context ctx(model, opt);
  std::vector<float> x(size_t(B) * bc.din), y(size_t(B) * bc.dout);
  Rng rng(o.seed + 7);
  for (auto& v : x) v = float(rng.normal());
  // steady state: full histories (history() frames; when steps take seconds, at most
  // --warmup-seconds of them, noted), then calibrate the steps per group
  const int history = model.config().history();
  double one = 0, warm = 0;
  int warm_steps = 0;
  while (warm_steps < history + 1 && (warm_steps < 2 || warm < o.warmup_seconds)) {
    const auto t0 = clock::now();
    engine::step_normalized(model, ctx, int(B), x.data(), y.data());
    one = std::chrono::duration<double>(clock::now() - t0).count();
    warm += one;
    ++warm_steps;
  }
  if (warm_steps < history + 1)
    bc.notes.push_back(str_cat(arch_name(a), " B=", B, ": timed after ", warm_steps,
                               " warm-up steps (history ", history, " frames not yet full; the work per step does not depend on it)"));
  auto t0 = clock::now();
  const int per_group = std::max(1, int(o.group_seconds / std::max(one, 1e-7)));
  std::vector<double> lat;
  for (int g = 0; g < o.groups; ++g) {
    t0 = clock::now();
    for (int k = 0; k < per_group; ++k) engine::step_normalized(model, ctx, int(B), x.data(), y.data());
    lat.push_back(std::chrono::duration<double>(clock::now() - t0).count() / per_group);
  }
  std::sort(lat.begin(), lat.end());
  const double L = lat[lat.size() / 2];
  Result r{arch_name(a), engine::precision_name(prec), B, L * 1e3, double(B) / (1e6 * L), flops * double(B) / L / 1e9};
  std::fprintf(stderr, "%-9s %s B=%-6lld %10.4f ms  %9.4f Mtrans/s  %7.1f GFLOP/s\n", r.arch.c_str(),
               r.precision.c_str(), (long long)B, r.latency_ms, r.mtps, r.gflops);
  return r;
}

// --plot FILE.png: Q(B) of every arch and precision, written as FILE.plot.json and drawn.
void write_bench_plot(const std::string& png, const std::vector<Arch>& archs,
                      const std::vector<engine::Precision>& precisions, const std::vector<Result>& results,
                      ModelPreset preset, int threads, nlohmann::json& summary) {
  std::vector<PlotSeries> series;
  for (Arch a : archs)
   for (engine::Precision prec : precisions) {
    PlotSeries ps;
    const std::string pn = engine::precision_name(prec);
    ps.label = std::string(a == Arch::FlashNeRD ? "FlashNeRD" : "Optimized NeRD") + " " + pn;
    ps.rgb = a == Arch::FlashNeRD ? (prec == engine::Precision::BF16 ? 0x17becf : 0x1f77b4)
                                  : (prec == engine::Precision::BF16 ? 0xff7f0e : 0xd62728);
    ps.markers = true;
    for (const auto& r : results) {
      if (r.arch != arch_name(a) || r.precision != pn) continue;
      ps.x.push_back(std::log10(double(r.batch)));
      ps.y.push_back(r.mtps);
    }
    series.push_back(ps);
  }
  PlotOptions po;
  po.title = str_cat("Throughput Q(B), preset ", preset_name(preset), " (", threads, " CPU threads)");
  po.x_label = "log10 batch B";
  po.y_label = "million transitions / s";
  po.log_y = true;
  const std::string spec = plot_spec_path(png);
  write_plot_spec(spec, series, po);
  summary["plot_data"] = spec;
  if (!draw_plots({spec}).empty()) summary["plot"] = plot_png_path(spec);
}

// The human table: both archs per batch, the ratio of their throughputs, bf16 against fp32.
void print_bench_table(const BenchRun& bc, const nlohmann::json& summary, const std::vector<Result>& results,
                       const std::vector<Arch>& archs, ModelPreset preset, double gemm_gflops,
                       double bf16_gflops) {
  const int din = bc.din, dout = bc.dout;
  auto ceiling = [&](const std::string& precision) { return precision == "bf16" ? bf16_gflops : gemm_gflops; };
  auto find = [&](const std::string& arch, const std::string& precision, int64_t b) -> const Result* {
    for (const auto& r : results)
      if (r.arch == arch && r.precision == precision && r.batch == b) return &r;
    return nullptr;
  };
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : results) {
    std::string ratio = "", vs_fp32 = "";
    if (r.arch == "flashnerd")
      if (const Result* n = find("nerd", r.precision, r.batch)) ratio = fmt(r.mtps / n->mtps, 2) + "x";
    if (r.precision == "bf16")
      if (const Result* f = find(r.arch, "fp32", r.batch)) vs_fp32 = fmt(r.mtps / f->mtps, 2) + "x";
    rows.push_back({r.arch, r.precision, std::to_string(r.batch), fmt(r.latency_ms, 4), fmt(r.mtps, 4),
                    fmt(r.gflops, 1), fmt(100.0 * r.gflops / ceiling(r.precision), 1) + "%", ratio, vs_fp32});
  }
  std::cout << "\nflashnerd bench: preset " << preset_name(preset) << ", input " << din << ", output " << dout
            << ", " << bc.pool.size() << " threads\n  " << engine::cpu_features().summary() << "\n";
  for (const auto& [p, k] : bc.kernels) std::cout << "  kernels " << k << "\n";
  std::cout << "  ceilings: fp32 sgemm (" << engine::gemm_backend_name(bc.o.gemm) << ") " << fmt(gemm_gflops, 1)
            << " GFLOP/s";
  if (bf16_gflops > 0)
    std::cout << "; bf16 oneDNN matmul " << fmt(bf16_gflops, 1) << " GFLOP/s (engine's own bf16 kernel "
              << fmt(summary["bf16_engine_kernel_gflops"].get<double>(), 1) << ")";
  std::cout << "\n";
  for (Arch a : archs) {
    const auto& m = summary["models"][arch_name(a)];
    std::cout << "  " << arch_name(a) << ": " << m["parameters"].get<int64_t>() << " parameters, "
              << fmt(m["flops_per_transition"].get<double>() / 1e6, 2) << " MFLOP/transition";
    if (m.contains("cache_bytes_per_env"))
      std::cout << ", cache " << bytes_text(m["cache_bytes_per_env"].get<double>())
                << "/env, activations " << bytes_text(m["activation_bytes_per_env"].get<double>()) << "/env";
    std::cout << "\n";
  }
  std::cout << "\n"
            << format_table({"arch", "precision", "batch", "latency ms", "Mtrans/s", "GFLOP/s", "of ceiling",
                             "FlashNeRD/NeRD", "bf16/fp32"}, rows);
  for (const auto& s : bc.skipped) std::cout << "skipped: " << s << "\n";
  for (const auto& s : bc.notes) std::cout << "note: " << s << "\n";
  std::cout << "latency: median of " << bc.o.groups << " groups of >= " << bc.o.group_seconds << " s (at least one step)\n";
  std::cout << std::flush;
}

// The precisions --precision times: all = fp32 and, where the CPU has native bf16, bf16; else
// the one named, resolved for this CPU (bf16 on a CPU without it throws with the fix).
std::vector<engine::Precision> bench_precisions(BenchPrecision p) {
  switch (p) {
    case BenchPrecision::All:
      if (engine::cpu_features().native_bf16()) return {engine::Precision::FP32, engine::Precision::BF16};
      return {engine::Precision::FP32};
    case BenchPrecision::Auto: return {engine::resolve_precision(engine::Precision::Auto)};
    case BenchPrecision::FP32: return {engine::resolve_precision(engine::Precision::FP32)};
    case BenchPrecision::BF16: return {engine::resolve_precision(engine::Precision::BF16)};
  }
  return {};
}

void run_bench(const BenchOptions& o) {
  const auto batches = parse_int_list(o.batches, "--batch");
  for (int64_t b : batches) FN_CHECK(b >= 1 && b <= (1 << 24), "--batch: ", b, " is out of range [1, 2^24]");
  ThreadPool pool(checked_threads(o.threads.threads, o.threads.force_threads));
  const double memory_limit = o.max_memory_gb > 0 ? o.max_memory_gb * 1e9 : 0.6 * physical_memory_bytes();

  const std::vector<engine::Precision> precisions = bench_precisions(o.precision);
  // models: from --model (its own arch; the other arch gets the same preset and dims) or random
  std::vector<Arch> archs;
  if (o.arch != BenchArch::NeRD) archs.push_back(Arch::FlashNeRD);
  if (o.arch != BenchArch::FlashNeRD) archs.push_back(Arch::NeRD);
  std::shared_ptr<const engine::Model> loaded;
  int din = o.input_dim, dout = o.output_dim;
  ModelPreset preset = o.preset;
  if (!o.model_dir.empty()) {
    loaded = engine::Model::load(o.model_dir);  // fp32 copy: its config and weights
    FN_CHECK(!loaded->config().contact.enabled(), o.model_dir, " reads variable contacts: its step needs "
             "detected rows; time it with 'flashnerd bench-contacts --model ", o.model_dir, " --data DATA'");
    din = loaded->input_dim();
    dout = loaded->output_dim();
    if (const auto recorded = recorded_preset(loaded->config())) preset = *recorded;
  }
  std::map<std::pair<Arch, engine::Precision>, std::shared_ptr<const engine::Model>> models;
  for (Arch a : archs)
    for (engine::Precision p : precisions) {
      const engine::ModelOptions mo{p};
      if (loaded && loaded->arch() == a)
        models[{a, p}] = engine::Model::from_tensors(loaded->config(), loaded->tensors(), mo);
      else
        models[{a, p}] = engine::Model::random(engine::synthetic_config(a, preset, din, dout), o.seed, mo);
    }
  const bool bf16 = std::count(precisions.begin(), precisions.end(), engine::Precision::BF16) > 0;

  std::fprintf(stderr, "measuring the GEMM rates (%d threads)...\n", pool.size());
  const double gemm_before = engine::measure_gemm_gflops(&pool, o.gemm, 1.0);
  const double bf16_before = bf16 ? engine::measure_bf16_gemm_gflops(&pool, engine::Bf16Gemm::OneDNN, 1.0) : 0;

  nlohmann::json summary;
  summary["models"] = nlohmann::json::object();
  std::vector<Result> results;
  BenchRun bc{o, pool, din, dout, memory_limit, {}, {}, {}};
  for (Arch a : archs)
   for (engine::Precision prec : precisions) {
    const engine::Model& model = *models[{a, prec}];
    const double flops = flops_per_transition(model.config());
    nlohmann::json m = {{"parameters", parameter_count(model.config())}, {"flops_per_transition", flops}};
    for (int64_t B : batches)
      if (const auto r = time_batch(bc, model, a, prec, B, flops, m)) results.push_back(*r);
    summary["models"][arch_name(a)] = m;
  }

  // the ceiling: the better of the measurements before and after (the machine is shared)
  std::fprintf(stderr, "measuring the GEMM rate again...\n");
  const double gemm_after = engine::measure_gemm_gflops(&pool, o.gemm, 1.0);
  const double gemm_gflops = std::max(gemm_before, gemm_after);
  summary["gemm_gflops"] = gemm_gflops;
  summary["gemm_gflops_before_after"] = {gemm_before, gemm_after};
  double bf16_gflops = 0;
  if (bf16) {
    const double bf16_after = engine::measure_bf16_gemm_gflops(&pool, engine::Bf16Gemm::OneDNN, 1.0);
    bf16_gflops = std::max(bf16_before, bf16_after);
    summary["bf16_gemm_gflops"] = bf16_gflops;
    summary["bf16_gemm_gflops_before_after"] = {bf16_before, bf16_after};
    summary["bf16_engine_kernel_gflops"] = engine::measure_bf16_gemm_gflops(&pool, engine::Bf16Gemm::Engine, 1.0);
  }
  auto ceiling = [&](const std::string& precision) { return precision == "bf16" ? bf16_gflops : gemm_gflops; };
  summary["cpu"] = engine::cpu_features().summary();
  summary["kernels"] = bc.kernels;
  summary["results"] = nlohmann::json::array();
  for (const auto& r : results)
    summary["results"].push_back({{"arch", r.arch}, {"precision", r.precision}, {"batch", r.batch},
                                  {"latency_ms", r.latency_ms}, {"mtransitions_per_s", r.mtps},
                                  {"gflops", r.gflops}, {"share_of_ceiling", r.gflops / ceiling(r.precision)}});
  summary["threads"] = pool.size();
  summary["preset"] = preset_name(preset);
  summary["input_dim"] = din;
  summary["output_dim"] = dout;
  summary["gemm_backend"] = engine::gemm_backend_name(o.gemm);
  if (!bc.skipped.empty()) summary["skipped"] = bc.skipped;
  if (!bc.notes.empty()) summary["notes"] = bc.notes;
  summary["groups"] = o.groups;

  if (!o.plot.empty()) write_bench_plot(o.plot, archs, precisions, results, preset, pool.size(), summary);
  if (o.common.json) {
    std::cout << summary.dump() << std::endl;
    return;
  }
  print_bench_table(bc, summary, results, archs, preset, gemm_gflops, bf16 ? bf16_gflops : 0);
}

}  // namespace

void register_bench(CLI::App& app) {
  auto [sub, o] = add_command<BenchOptions>(
      app, "bench", "Model-only speed of FlashNeRD vs Optimized NeRD: latency, throughput, GFLOP/s vs the machine's GEMM rate",
      run_bench);
  add_enum_option(sub, "--arch", o.arch, names_of(kBenchArchNames), "flashnerd, nerd or both");
  add_enum_option(sub, "--preset", o.preset, names_of(kModelPresetNames), "Model size preset (random weights)");
  sub.add_option("--model", o.model_dir, "A trained model directory: its dims and preset (its own weights for its arch)");
  sub.add_option("--input-dim", o.input_dim, "Per-frame input features (without --model)")->capture_default_str();
  sub.add_option("--output-dim", o.output_dim, "Increment features (without --model)")->capture_default_str();
  sub.add_option("--batch", o.batches, "Comma-separated batch sizes")->capture_default_str();
  sub.add_option("--groups", o.groups, "Timed groups per batch; the latency is their median")->check(at_least(1))
      ->capture_default_str();
  sub.add_option("--group-seconds", o.group_seconds, "Minimum duration of one group (at least one step)")->capture_default_str();
  sub.add_option("--warmup-seconds", o.warmup_seconds, "Stop warming up after this long (at least 2 steps)")->capture_default_str();
  add_enum_option(sub, "--gemm", o.gemm, names_of(engine::kGemmBackendNames), "fp32 GEMM backend");
  add_enum_option(sub, "--precision", o.precision, names_of(kBenchPrecisionNames),
                  "all (fp32, and bf16 where the CPU has it), auto, fp32 or bf16");
  sub.add_option("--parallel-min-macs", o.parallel_min_macs,
                 "Split a small batch's GEMM over threads from this many multiply-adds (0: default, -1: never)")
      ->capture_default_str();
  sub.add_option("--tile-rows", o.tile_rows, "GEMM rows per tile (0: engine default)")->capture_default_str();
  sub.add_option("--max-memory-gb", o.max_memory_gb, "Skip batches needing more (0: 60% of RAM)")->capture_default_str();
  sub.add_option("--plot", o.plot, "Write a PNG plot of Q(B) for each architecture");
  sub.add_option("--seed", o.seed, "Seed of the random weights and inputs")->capture_default_str();
}

}  // namespace flashnerd::cli
