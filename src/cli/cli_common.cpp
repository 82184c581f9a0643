#include "cli/cli_common.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <thread>

#include "cli/option_values.h"
#include "core/error.h"
#include "env/factory.h"
#include "core/thread_pool.h"

namespace flashnerd::cli {

void add_common_options(CLI::App& sub, CommonOptions& opts) {
  sub.add_flag("--json", opts.json, "Print the final summary as one JSON object on stdout");
}

void add_quiet_flag(CLI::App& sub, bool& progress) {
  const auto quiet = [&progress] { progress = false; };
  sub.add_flag_callback("--quiet", quiet, "No progress line");
  sub.add_flag_callback("--no-progress", quiet, "No progress line (the older spelling of --quiet)")->group("");
}

void add_precision_option(CLI::App& sub, engine::Precision& precision) {
  add_enum_option(sub, "--precision", precision, names_of(engine::kPrecisionNames),
                  "Matrix products: auto (bf16 where the CPU has native bf16), fp32 or bf16");
}

CLI::Option* add_model_data_options(CLI::App& sub, ModelDataOptions& o, const std::string& model_help,
                                    const std::string& data_help, const std::string& verb) {
  add_precision_option(sub, o.precision);
  CLI::Option* models = sub.add_option("--model", o.models, model_help);
  sub.add_option("--data", o.data, data_help)->required();
  sub.add_flag("--allow-other-mjcf", o.allow_other_mjcf,
               verb + " even when the data comes from another MJCF than the model's (warns)");
  return models;
}

void add_dataset_output_options(CLI::App& sub, DatasetOutput& o, const std::string& out_help,
                                const std::string& overwrite_help) {
  sub.add_option("--out", o.out, out_help)->required();
  sub.add_flag("--overwrite", o.overwrite, overwrite_help);
}

std::unique_ptr<OutputLock> claim_dataset_output(const DatasetOutput& o, const CommandInputs& inputs) {
  check_output_not_input(o.out, "--out", inputs);
  check_output_file(o.out, "--out", o.overwrite);
  return std::make_unique<OutputLock>(o.out, "--out");
}

engine::ModelOptions model_options(engine::Precision precision) {
  engine::ModelOptions o;
  o.precision = engine::resolve_precision(precision);
  return o;
}

void add_thread_options(CLI::App& sub, ThreadOptions& opts) {
  sub.add_option("--threads", opts.threads, "Worker threads (0 = all cores; at most the core count)")
      ->capture_default_str();
  sub.add_flag("--force-threads", opts.force_threads, "Allow --threads above the core count (oversubscribe)");
}

int checked_threads(int requested, bool force) { return checked_thread_count(requested, force, "threads", "force_threads"); }

std::string format_table(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(header.size(), 0);
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size() && c < width.size(); ++c) width[c] = std::max(width[c], r[c].size());
  std::ostringstream os;
  auto line = [&](const std::vector<std::string>& r) {
    for (size_t c = 0; c < width.size(); ++c) {
      std::string cell = c < r.size() ? r[c] : "";
      os << (c ? "  " : "") << cell << std::string(width[c] - cell.size(), ' ');
    }
    os << "\n";
  };
  line(header);
  size_t total = 0;
  for (size_t w : width) total += w;
  os << std::string(total + 2 * (width.size() - 1), '-') << "\n";
  for (const auto& r : rows) line(r);
  return os.str();
}

void print_summary(const CommonOptions& opts, const std::string& title, const nlohmann::json& summary) {
  if (opts.json) {
    std::cout << summary.dump() << std::endl;
    return;
  }
  std::vector<std::vector<std::string>> rows;
  for (auto it = summary.begin(); it != summary.end(); ++it) {
    std::string value = it->is_string() ? it->get<std::string>() : it->dump();
    rows.push_back({it.key(), value});
  }
  std::cout << "\n" << title << "\n" << format_table({"quantity", "value"}, rows) << std::flush;
}

void print_warnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
}

std::string format_number(double x, const char* printf_format) {
  char b[64];
  std::snprintf(b, sizeof b, printf_format, x);
  return b;
}

std::vector<int64_t> parse_int_list(const std::string& text, const std::string& option) {
  std::vector<int64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      size_t pos = 0;
      long long v = std::stoll(item, &pos);
      FN_CHECK(pos == item.size(), "");
      out.push_back(v);
    } catch (const std::exception&) {
      throw Error(str_cat(option, ": '", item, "' is not an integer; give a comma-separated list like 1,16,256"));
    }
  }
  FN_CHECK(!out.empty(), option, ": empty list; give a comma-separated list like 1,16,256");
  return out;
}

std::string model_label(const ModelConfig& config, const std::string& dir) {
  const std::string arch = config.arch == Arch::FlashNeRD ? "FlashNeRD" : "NeRD";
  std::string label = arch + (config.preset.empty() ? "" : " " + config.preset);
  std::string name = std::filesystem::path(dir).lexically_normal().filename().string();
  if (name.empty()) name = std::filesystem::path(dir).lexically_normal().parent_path().filename().string();
  std::string lower_name = name, lower_arch = arch;
  for (auto* s : {&lower_name, &lower_arch})
    std::transform(s->begin(), s->end(), s->begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return lower_name == lower_arch || name.empty() ? label : label + " (" + name + ")";
}

std::string backend_label(const std::string& kind) {
  const EnumName<env::BackendKind>* e = find_enum(env::kBackendKindNames, kind);
  if (e && e->value == env::BackendKind::Mujoco) return "MuJoCo";
  if (e && e->value == env::BackendKind::FlashNeRD) return "FlashNeRD";
  if (e && e->value == env::BackendKind::NeRD) return "NeRD";
  return kind;
}

}  // namespace flashnerd::cli
