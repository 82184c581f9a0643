#include "train/train_log.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/log_number.h"
#include "core/plot_spec.h"

namespace flashnerd::train {

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

void write_log_csv(const std::string& path, const std::vector<LogRow>& rows) {
  std::ostringstream os;
  os << "update,lr,train_loss,valid_loss,valid_rollout_nrmse,seconds\n";
  for (const auto& r : rows)
    os << r.update << ',' << csv_number(r.lr) << ',' << csv_number(r.loss) << ','
       << csv_number(r.valid_loss) << ',' << csv_number(r.rollout) << ',' << csv_number(r.seconds)
       << '\n';
  write_file_atomic(path, os.str());
}

void write_loss_plot_spec(const std::string& path, const std::vector<LogRow>& rows, const ModelConfig& c) {
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
  write_plot_spec(path, {train, mean, valid}, o);
}

}  // namespace flashnerd::train
