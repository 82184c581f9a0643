// Shared CLI plumbing: every subcommand registers itself, takes --json, and reports its
// final summary either as a human table (stderr/stdout) or as one JSON object on stdout.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/model_config.h"
#include "core/output_policy.h"
#include "engine/engine.h"

namespace flashnerd::cli {

// Options every subcommand has.
struct CommonOptions {
  bool json = false;  // print the final summary as one JSON object on stdout
};

void add_common_options(CLI::App& sub, CommonOptions& opts);

// --threads N (0 = all cores) and --force-threads, for subcommands that run a thread pool.
struct ThreadOptions {
  int threads = 0;            // worker threads requested; 0 = all cores
  bool force_threads = false; // allow more threads than cores
};
void add_thread_options(CLI::App& sub, ThreadOptions& opts);

// The thread count to give ThreadPool: `requested` unchanged when 0 <= requested <= the core
// count (std::thread::hardware_concurrency), or above it with `force`. Throws
// flashnerd::Error naming --threads, the value and the core count for a negative value or
// for more threads than cores without --force-threads. Call it before allocating anything.
int checked_threads(int requested, bool force);

// A subcommand and the options struct its flags bind to (owned by its callback).
template <class Args>
struct Command {
  CLI::App& sub;
  Args& args;
};

template <class Args, class = void>
struct HasThreadOptions : std::false_type {};
template <class Args>
struct HasThreadOptions<Args, std::void_t<decltype(std::declval<Args&>().threads)>> : std::true_type {};

// Adds subcommand `name` with a fresh `Args` (which holds `CommonOptions common`, and
// `ThreadOptions threads` when the command runs a thread pool): --json, --threads and
// --force-threads, and `run(args)` once the command line is parsed. The caller binds the
// other flags.
template <class Args, class Run>
Command<Args> add_command(CLI::App& app, const std::string& name, const std::string& help, Run run) {
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand(name, help);
  add_common_options(*sub, args->common);
  if constexpr (HasThreadOptions<Args>::value) add_thread_options(*sub, args->threads);
  sub->callback([args, run] { run(*args); });
  return {*sub, *args};
}

// --quiet: no progress line (clears `progress`); --no-progress, its older spelling, is a
// hidden alias.
void add_quiet_flag(CLI::App& sub, bool& progress);


// Prints `summary` as JSON (opts.json) or as an aligned two-column table.
void print_summary(const CommonOptions& opts, const std::string& title, const nlohmann::json& summary);

// Prints each line to stderr as "warning: LINE" (stdout stays clean for --json).
void print_warnings(const std::vector<std::string>& warnings);

// A simple aligned text table for humans.
std::string format_table(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows);

// A number for a table cell, printf-formatted ("%.4g" by default).
std::string format_number(double x, const char* printf_format = "%.4g");

// Parses "1,16,256" into integers; throws flashnerd::Error naming the option on bad input.
std::vector<int64_t> parse_int_list(const std::string& text, const std::string& option);

// A model as plots, strips and tables name it: "FlashNeRD small", with its directory's name
// when that says more ("NeRD small (climb_long)").
std::string model_label(const ModelConfig& config, const std::string& dir);
// "MuJoCo", "FlashNeRD", "NeRD" for the backend kinds mujoco, flashnerd and nerd; others as given.
std::string backend_label(const std::string& kind);

// --precision auto|fp32|bf16 on every command that runs a model (engine::Precision).
void add_precision_option(CLI::App& sub, engine::Precision& precision);
// The model options for it; bf16 on a CPU without native bf16 throws with the fix.
engine::ModelOptions model_options(engine::Precision precision);

// Trained models run on a dataset's recorded trajectories (eval, rollout).
struct ModelDataOptions {
  std::vector<std::string> models;
  std::string data;
  engine::Precision precision = engine::Precision::Auto;  // matrix products
  bool allow_other_mjcf = false;   // data of another MJCF than the models' (warns)
};
// --precision, --model (repeatable; returned), --data (required) and --allow-other-mjcf, whose
// help starts with `verb` ("Evaluate", "Roll out").
CLI::Option* add_model_data_options(CLI::App& sub, ModelDataOptions& o, const std::string& model_help,
                                    const std::string& data_help, const std::string& verb);

// The dataset file a command writes (gen, merge, import).
struct DatasetOutput {
  std::string out;
  bool overwrite = false;
};
// --out FILE (required) and --overwrite.
void add_dataset_output_options(CLI::App& sub, DatasetOutput& o, const std::string& out_help,
                                const std::string& overwrite_help);
// Refuses an --out that is one of the command's `inputs`, and an existing --out unless
// --overwrite (before any long work), then locks it for the command's life.
std::unique_ptr<OutputLock> claim_dataset_output(const DatasetOutput& o, const CommandInputs& inputs);

// Each subcommand file defines one register function.
void register_gen(CLI::App& app);
void register_merge(CLI::App& app);
void register_train(CLI::App& app);
void register_finetune(CLI::App& app);
void register_import(CLI::App& app);
void register_eval(CLI::App& app);
void register_calibrate(CLI::App& app);
void register_bench(CLI::App& app);
void register_bench_contacts(CLI::App& app);
void register_rollout(CLI::App& app);
void register_couple(CLI::App& app);
void register_info(CLI::App& app);
void register_ppo(CLI::App& app);
void register_fit(CLI::App& app);
void register_policy_eval(CLI::App& app);
void register_bench_env(CLI::App& app);
void register_policy_video(CLI::App& app);
void register_plan(CLI::App& app);
void register_plan_video(CLI::App& app);
void register_plot(CLI::App& app);
void register_tasks(CLI::App& app);
void register_export_onnx(CLI::App& app);

}  // namespace flashnerd::cli
