// The training log: one row per update (validation columns on validation updates), kept in
// the checkpoint's meta so a resumed run continues it, and written as train_log.csv and the
// loss plot's data (loss.plot.json, drawn as loss.png by the CLI) beside the checkpoint.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/log_number.h"
#include "core/model_config.h"

namespace flashnerd::train {

struct LogRow {
  int64_t update = 0;  // 1-based: the row after update `update` was applied
  double lr = 0, loss = 0;
  double valid_loss = std::numeric_limits<double>::quiet_NaN();
  double rollout = std::numeric_limits<double>::quiet_NaN();
  double seconds = 0;  // wall time since the run started (all invocations)
};

// Compact JSON rows [update, lr, loss, valid_loss, rollout, seconds]; non-finite values as null.
nlohmann::json rows_to_json(const std::vector<LogRow>& rows);
std::vector<LogRow> rows_from_json(const nlohmann::json& rows);

// update,lr,train_loss,valid_loss,valid_rollout_nrmse,seconds (empty cells where not measured).
void write_log_csv(const std::string& path, const std::vector<LogRow>& rows);

// Training loss (raw and a running mean of 25) and validation loss against updates, log scale.
void write_loss_plot_spec(const std::string& path, const std::vector<LogRow>& rows, const ModelConfig& c);

}  // namespace flashnerd::train
