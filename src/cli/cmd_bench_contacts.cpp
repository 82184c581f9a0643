// flashnerd bench-contacts: the cost of variable contacts in a rollout step (paper IV-C,
// III-D). For B environments at recorded states of a climbing dataset, times (median over
// groups) collision detection + contact-row building (MuJoCo, one mjData per thread) and the
// model step that reads those rows, so the full step = detection + model is visible next to
// the model alone. Detection is timed twice in the same run: through the robot-vs-scene
// collider the backends use (sim/robot_world_collider.h) and through mj_collision, the
// reference. Everything uses every thread of the pool.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <numeric>
#include <vector>

#include "cli/cli_common.h"
#include "cli/option_values.h"
#include "core/error.h"
#include "core/frame_features.h"
#include "core/thread_pool.h"
#include "engine/engine.h"
#include "sim/contact_sensor.h"
#include "sim/robot.h"

namespace flashnerd::cli {

namespace {

struct BenchContactsArgs {
  engine::Precision precision = engine::Precision::Auto;  // matrix products
  CommonOptions common;
  std::string model;
  std::string data;
  std::string batches = "1024";
  ThreadOptions threads;
  int groups = 9;
};

template <typename F>
double median_seconds(int groups, F&& f) {
  std::vector<double> t;
  f();  // warm-up
  for (int g = 0; g < groups; ++g) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void run_bench_contacts(const BenchContactsArgs& a) {
  auto model = engine::Model::load(a.model, model_options(a.precision));
  const ModelConfig& c = model->config();
  FN_CHECK(c.contact.enabled(), a.model, " reads no variable contacts (train it with --variable-contacts)");
  Dataset data = load_dataset(a.data);
  check_dataset_robot(data, c.robot, c.layout, "dataset " + a.data);
  auto robot = sim::Robot::from_spec(sim::RobotSpec::from_json(data.generator.at("spec"), a.data));
  const int K = c.contact.capacity, din = c.input_dim, dout = c.output_dim;
  const StateCodec codec(data.layout);
  const FrameFeatures features(codec, 0);
  FN_CHECK(features.input_dim() == din, "model input width ", din, " does not match the dataset's features");
  ThreadPool pool(checked_threads(a.threads.threads, a.threads.force_threads));
  std::vector<std::unique_ptr<sim::ContactSensor>> sensors, references;  // one per thread each
  for (int i = 0; i < pool.size(); ++i) {
    sensors.push_back(std::make_unique<sim::ContactSensor>(*robot));
    references.push_back(std::make_unique<sim::ContactSensor>(*robot));
    references.back()->use_reference_detection(true);
  }
  nlohmann::json rows_json = nlohmann::json::array();
  std::vector<std::vector<std::string>> table;
  for (int64_t B : parse_int_list(a.batches, "--batch")) {
    FN_CHECK(B >= 1 && B <= (1 << 20), "--batch ", B, " is out of range");
    // environment e sits at a recorded state: trajectory e mod N, frame 10 + e / N (clamped)
    std::vector<std::pair<int64_t, int64_t>> states;
    for (int64_t e = 0; e < B; ++e)
      states.push_back({e % data.trajectories, std::min<int64_t>(data.steps, 10 + e / data.trajectories)});
    std::vector<float> rows(size_t(B) * K * kContactRowDim), inputs(size_t(B) * din), outputs(size_t(B) * dout);
    std::vector<int32_t> link(size_t(B) * K), count(static_cast<size_t>(B)), overflow(static_cast<size_t>(B));
    for (int64_t e = 0; e < B; ++e) {
      const auto [n, t] = states[size_t(e)];
      features.input(data.q(n, t), data.v(n, t), data.a(n, t), data.u(n, std::min<int64_t>(t, data.steps - 1)), nullptr,
                     inputs.data() + size_t(e) * din);
    }
    auto detect_with = [&](std::vector<std::unique_ptr<sim::ContactSensor>>& with) {
      pool.parallel_for(B, [&](int64_t e0, int64_t e1, int wi) {
        sim::ContactSensor& sensor = *with[size_t(wi)];
        for (int64_t e = e0; e < e1; ++e) {
          const auto [n, t] = states[size_t(e)];
          sensor.place(data.seed, n, data.q(n, t), data.v(n, t));
          sim::ContactRowsOut out{rows.data() + size_t(e) * K * kContactRowDim, link.data() + size_t(e) * K, 0, 0};
          sensor.detect(K, out);
          count[size_t(e)] = out.count;
          overflow[size_t(e)] = out.overflow;
        }
      });
    };
    engine::ContextOptions opt;
    opt.max_batch = int(B);
    opt.pool = &pool;
    engine::Context ctx(*model, opt);
    const engine::ContactBatch cb{rows.data(), link.data(), count.data()};
    auto step = [&] { engine::step(*model, ctx, int(B), inputs.data(), &cb, outputs.data()); };
    const double t_reference = median_seconds(a.groups, [&] { detect_with(references); });
    const double t_detect = median_seconds(a.groups, [&] { detect_with(sensors); });
    const double t_model = median_seconds(a.groups, step);
    const double mean_rows = double(std::accumulate(count.begin(), count.end(), int64_t(0))) / double(B);
    const int64_t dropped = std::accumulate(overflow.begin(), overflow.end(), int64_t(0));
    rows_json.push_back({{"batch", B},
                         {"detection_ms", 1e3 * t_detect}, {"detection_mj_collision_ms", 1e3 * t_reference},
                         {"detection_speedup", t_reference / t_detect}, {"model_ms", 1e3 * t_model},
                         {"full_step_ms", 1e3 * (t_detect + t_model)}, {"detection_over_model", t_detect / t_model},
                         {"detection_us_per_env", 1e6 * t_detect / double(B)},
                         {"model_us_per_env", 1e6 * t_model / double(B)}, {"rows_per_env_mean", mean_rows},
                         {"rows_per_env_max", *std::max_element(count.begin(), count.end())}, {"overflow", dropped}});
    table.push_back({std::to_string(B), format_number(1e3 * t_reference), format_number(1e3 * t_detect),
                     format_number(t_reference / t_detect), format_number(1e3 * t_model),
                     format_number(1e3 * (t_detect + t_model)), format_number(t_detect / t_model),
                     format_number(mean_rows)});
  }
  nlohmann::json j = {{"model", a.model}, {"collider", sensors[0]->fast_detection()}, {"precision", engine::precision_name(model->precision())}, {"data", a.data}, {"threads", pool.size()}, {"groups", a.groups},
                      {"results", rows_json}};
  if (a.common.json) {
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  std::printf("\nContact detection vs model step (%s, %d threads, median of %d groups)\n%s", c.robot.c_str(),
              pool.size(), a.groups,
              format_table({"B", "mj_collision detect+rows ms", "detect+rows ms", "speedup", "model ms", "full step ms",
                            "detect/model", "rows/env"},
                           table)
                  .c_str());
}

}  // namespace

void register_bench_contacts(CLI::App& app) {
  auto [sub, a] = add_command<BenchContactsArgs>(app, "bench-contacts",
                                 "Cost of collision detection + contact rows vs the model step (variable contacts)", run_bench_contacts);
  add_precision_option(sub, a.precision);
  sub.add_option("--model", a.model, "Model directory trained with --variable-contacts")->required();
  sub.add_option("--data", a.data, "Dataset of the robot (recorded states and scenes)")->required();
  sub.add_option("--batch", a.batches, "Comma-separated batch sizes")->capture_default_str();
  sub.add_option("--groups", a.groups, "Timed groups; the median is reported")->check(at_least(1))->capture_default_str();
}

}  // namespace flashnerd::cli
