// Shared CLI plumbing: every subcommand registers itself, takes --json, and reports its
// final summary either as a human table (stderr/stdout) or as one JSON object on stdout.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "engine/engine.h"

namespace flashnerd::cli {

// Options every subcommand has.
struct CommonOptions {
  bool json = false;  // print the final summary as one JSON object on stdout
};

void add_common_options(CLI::App& sub, CommonOptions& opts);

// Prints `summary` as JSON (opts.json) or as an aligned two-column table.
void print_summary(const CommonOptions& opts, const std::string& title, const nlohmann::json& summary);

// A simple aligned text table for humans.
std::string format_table(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows);

// A number for a table cell, printf-formatted ("%.4g" by default).
std::string format_number(double x, const char* printf_format = "%.4g");

// Parses "1,16,256" into integers; throws flashnerd::Error naming the option on bad input.
std::vector<int64_t> parse_int_list(const std::string& text, const std::string& option);

// --precision auto|fp32|bf16 on every command that runs a model (engine::Precision).
void add_precision_option(CLI::App& sub, std::string& precision);
// The model options for it; bf16 on a CPU without native bf16 throws with the fix.
engine::ModelOptions model_options(const std::string& precision);

// Each subcommand file defines one register function.
void register_gen(CLI::App& app);
void register_train(CLI::App& app);
void register_eval(CLI::App& app);
void register_bench(CLI::App& app);
void register_bench_contacts(CLI::App& app);
void register_rollout(CLI::App& app);
void register_couple(CLI::App& app);
void register_info(CLI::App& app);

}  // namespace flashnerd::cli
