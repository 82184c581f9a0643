#include "rl/iteration_log.h"

#include <cmath>
#include <sstream>

#include "core/atomic_file.h"
#include "core/log_number.h"
#include "core/plot_spec.h"

namespace flashnerd::rl {

nlohmann::json row_to_json(const IterationRow& r) {
  return {{"iteration", r.iteration}, {"transitions", r.transitions}, {"seconds", r.seconds},
          {"reward_per_step", r.reward_per_step}, {"episode_reward", r.episode_reward},
          {"finished_return", finite_or_null(r.finished_return)}, {"episodes", r.episodes},
          {"finished_length", finite_or_null(r.finished_length)},
          {"uncertainty", {{"penalty", finite_or_null(r.uncertainty_penalty)}, {"truncations", r.uncertainty_truncations}}},
          {"eval_reward", finite_or_null(r.eval_reward)},
          {"time",
           {{"dynamics", r.dynamics_s}, {"sensing", r.sensing_s}, {"policy", r.policy_s}, {"update", r.update_s},
            {"task", r.task_s}}},
          {"stats",
           {{"learning_rate", r.stats.learning_rate}, {"kl", r.stats.kl}, {"value_loss", r.stats.value_loss},
            {"surrogate_loss", r.stats.surrogate_loss}, {"entropy", r.stats.entropy},
            {"action_std", r.stats.action_std}}},
          {"real",
           {{"transitions", r.real_transitions}, {"seconds", r.real_s}, {"return", finite_or_null(r.real_return)},
            {"branched_starts", r.branched_starts}, {"refresh_updates", r.refresh_updates},
            {"refresh_seconds", r.refresh_s}, {"refresh_replay_seconds", r.refresh_replay_s},
            {"model_valid_loss", finite_or_null(r.model_valid_loss)}}},
          {"terms", r.terms}};
}

IterationRow row_from_json(const nlohmann::json& j) {
  IterationRow r;
  r.iteration = j.at("iteration");
  r.transitions = j.at("transitions");
  r.seconds = j.at("seconds");
  r.reward_per_step = j.at("reward_per_step");
  r.episode_reward = j.at("episode_reward");
  r.finished_return = number_or_nan(j.at("finished_return"));
  r.episodes = j.at("episodes");
  r.eval_reward = number_or_nan(j.at("eval_reward"));
  if (j.contains("finished_length")) r.finished_length = number_or_nan(j.at("finished_length"));
  if (j.contains("uncertainty")) {  // checkpoints before the penalty was logged have none
    r.uncertainty_penalty = number_or_nan(j.at("uncertainty").at("penalty"));
    r.uncertainty_truncations = j.at("uncertainty").at("truncations");
  }
  const auto& t = j.at("time");
  if (t.is_array()) {  // checkpoints before the times were named: dynamics, sensing, policy, update, task
    r.dynamics_s = t.at(0), r.sensing_s = t.at(1), r.policy_s = t.at(2), r.update_s = t.at(3), r.task_s = t.at(4);
  } else {
    r.dynamics_s = t.at("dynamics"), r.sensing_s = t.at("sensing"), r.policy_s = t.at("policy");
    r.update_s = t.at("update"), r.task_s = t.at("task");
  }
  const auto& s = j.at("stats");
  if (s.is_array()) {  // checkpoints before the stats were named: lr, kl, value, surrogate, entropy, std
    r.stats.learning_rate = s.at(0), r.stats.kl = s.at(1), r.stats.value_loss = s.at(2);
    r.stats.surrogate_loss = s.at(3), r.stats.entropy = s.at(4), r.stats.action_std = s.at(5);
  } else {
    r.stats.value_loss = s.at("value_loss");
    r.stats.surrogate_loss = s.at("surrogate_loss");
    r.stats.entropy = s.at("entropy");
    r.stats.kl = s.at("kl");
    r.stats.learning_rate = s.at("learning_rate");
    r.stats.action_std = s.at("action_std");
  }
  if (j.contains("real")) {  // checkpoints before model-based PPO have none
    const auto& real = j.at("real");
    r.real_transitions = real.at("transitions");
    r.real_s = real.at("seconds");
    r.real_return = number_or_nan(real.at("return"));
    r.branched_starts = real.at("branched_starts");
    r.refresh_updates = real.value("refresh_updates", int64_t(0));
    r.refresh_s = real.value("refresh_seconds", 0.0);
    r.refresh_replay_s = real.value("refresh_replay_seconds", 0.0);
    if (real.contains("model_valid_loss")) r.model_valid_loss = number_or_nan(real.at("model_valid_loss"));
  }
  r.terms = j.at("terms").get<std::vector<double>>();
  return r;
}

void write_iteration_csv(const std::string& path, const std::vector<IterationRow>& rows,
                         const std::vector<std::string>& term_names) {
  std::ostringstream os;
  os << "iteration,transitions,seconds,reward_per_step,episode_reward,finished_return,episodes,eval_reward,"
        "dynamics_s,sensing_s,policy_s,update_s,task_s,learning_rate,kl,value_loss,surrogate_loss,entropy,action_std,"
        "real_transitions,real_s,real_return,branched_starts,refresh_updates,refresh_s,refresh_replay_s,model_valid_loss,"
        "finished_length,uncertainty_penalty,uncertainty_truncations";
  for (const auto& t : term_names) os << ",term_" << t;
  os << '\n';
  for (const auto& r : rows) {
    os << r.iteration << ',' << r.transitions;
    for (double v : {r.seconds, r.reward_per_step, r.episode_reward, r.finished_return}) os << ',' << csv_number(v);
    os << ',' << r.episodes;
    for (double v : {r.eval_reward, r.dynamics_s, r.sensing_s, r.policy_s, r.update_s, r.task_s,
                     r.stats.learning_rate, r.stats.kl, r.stats.value_loss, r.stats.surrogate_loss, r.stats.entropy,
                     r.stats.action_std})
      os << ',' << csv_number(v);
    os << ',' << r.real_transitions << ',' << csv_number(r.real_s) << ',' << csv_number(r.real_return) << ','
       << r.branched_starts << ',' << r.refresh_updates << ',' << csv_number(r.refresh_s) << ','
       << csv_number(r.refresh_replay_s) << ',' << csv_number(r.model_valid_loss) << ',' << csv_number(r.finished_length)
       << ',' << csv_number(r.uncertainty_penalty) << ',' << r.uncertainty_truncations;
    for (double t : r.terms) os << ',' << csv_number(t);
    os << '\n';
  }
  write_file_atomic(path, os.str());
}

void write_reward_curves(const std::string& dir, const std::vector<IterationRow>& rows, const std::string& title) {
  PlotSeries by_time{"training: return of finished episodes", {}, {}, 0x1f77b4, false};
  PlotSeries by_samples{"training: return of finished episodes", {}, {}, 0x1f77b4, false};
  PlotSeries eval_time{"evaluation (MuJoCo)", {}, {}, 0xd62728, true};
  PlotSeries eval_samples{"evaluation (MuJoCo)", {}, {}, 0xd62728, true};
  PlotSeries real_time{"real environments (MuJoCo, exploring)", {}, {}, 0x2ca02c, true};
  PlotSeries real_samples{"real environments (MuJoCo, exploring)", {}, {}, 0x2ca02c, true};
  for (const auto& r : rows) {
    by_time.x.push_back(r.seconds);
    by_time.y.push_back(r.finished_return);
    by_samples.x.push_back(double(r.transitions));
    by_samples.y.push_back(r.finished_return);
    if (std::isfinite(r.eval_reward)) {
      eval_time.x.push_back(r.seconds);
      eval_time.y.push_back(r.eval_reward);
      eval_samples.x.push_back(double(r.transitions));
      eval_samples.y.push_back(r.eval_reward);
    }
    if (std::isfinite(r.real_return)) {
      real_time.x.push_back(r.seconds);
      real_time.y.push_back(r.real_return);
      real_samples.x.push_back(double(r.transitions));
      real_samples.y.push_back(r.real_return);
    }
  }
  PlotOptions o;
  o.title = title;
  o.y_label = "episode return";
  o.x_label = "training wall time (s)";
  write_plot_spec(dir + "/reward_vs_time.plot.json", {by_time, eval_time, real_time}, o);
  o.x_label = "transitions";
  write_plot_spec(dir + "/reward_vs_transitions.plot.json", {by_samples, eval_samples, real_samples}, o);
}

}  // namespace flashnerd::rl
