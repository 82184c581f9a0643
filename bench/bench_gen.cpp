// Data-generation throughput against raw mj_step on the same model, in the same run
// (target: >= 70% of raw stepping per core with contacts recorded, scaling to all
// cores). Prints a table; `--json` prints one object. Usage: bench_gen [--json] [robots...]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/rng.h"
#include "core/thread_pool.h"
#include "sim/generator.h"
#include "sim/robot.h"
#include "sim/samplers.h"

using namespace flashnerd;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Raw MuJoCo: the same states and random commands, mj_step only, nothing recorded.
double raw_steps_per_second(const sim::Robot& robot, int64_t trajectories, int steps, int threads) {
  ThreadPool pool(threads);
  sim::StateSampler states(robot);
  auto t0 = std::chrono::steady_clock::now();
  pool.parallel_for(trajectories, [&](int64_t begin, int64_t end, int) {
    mjModel* m = robot.copy_model();
    mjData* d = mj_makeData(m);
    sim::CommandSampler commands(robot);
    std::vector<double> u(static_cast<size_t>(m->nu));
    for (int64_t n = begin; n < end; ++n) {
      Rng rng = Rng::stream(1, uint64_t(n));
      mj_resetData(m, d);
      states.sample(rng, d->qpos, d->qvel);
      commands.reset(rng);
      for (int t = 0; t < steps; ++t) {
        commands.next(rng, u.data());
        std::memcpy(d->ctrl, u.data(), sizeof(double) * u.size());
        for (int s = 0; s < robot.substeps(); ++s) mj_step(m, d);
      }
    }
    mj_deleteData(d);
    mj_deleteModel(m);
  });
  return double(trajectories) * steps / seconds_since(t0);
}

double gen_steps_per_second(const sim::Robot& robot, int64_t trajectories, int steps, int threads) {
  ThreadPool pool(threads);
  sim::GenerateOptions o;
  o.trajectories = trajectories;
  o.steps = steps;
  o.progress = false;
  auto t0 = std::chrono::steady_clock::now();
  Dataset d = sim::generate_dataset(robot, o, pool);
  return double(trajectories) * steps / seconds_since(t0);
}

}  // namespace

int main(int argc, char** argv) {
  bool json = false;
  std::vector<std::string> robots;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--json") json = true;
    else robots.push_back(argv[i]);
  }
  if (robots.empty()) robots = {"cartpole", "arm7", "humanoid", "quadruped", "hand16"};
  nlohmann::json out = nlohmann::json::array();
  if (!json)
    std::printf("%-12s %8s %14s %14s %8s %14s %14s %8s\n", "robot", "threads", "raw steps/s",
                "gen steps/s", "ratio", "raw 2T", "gen 2T", "ratio");
  for (const auto& name : robots) {
    auto robot = sim::Robot::load(name);
    const int steps = 100;
    // size the run to roughly a second of raw stepping per measurement
    int64_t traj = std::max<int64_t>(8, int64_t(2e5 / (robot->substeps() * robot->model()->nv + 1) / steps));
    raw_steps_per_second(*robot, traj / 4, steps, 1);  // warm-up
    double raw1 = raw_steps_per_second(*robot, traj, steps, 1);
    double gen1 = gen_steps_per_second(*robot, traj, steps, 1);
    double raw2 = raw_steps_per_second(*robot, 2 * traj, steps, 2);
    double gen2 = gen_steps_per_second(*robot, 2 * traj, steps, 2);
    if (!json)
      std::printf("%-12s %8d %14.0f %14.0f %7.0f%% %14.0f %14.0f %7.0f%%\n", name.c_str(), 1, raw1, gen1,
                  100 * gen1 / raw1, raw2, gen2, 100 * gen2 / raw2);
    out.push_back({{"robot", name}, {"raw_1t", raw1}, {"gen_1t", gen1}, {"raw_2t", raw2}, {"gen_2t", gen2},
                   {"ratio_1t", gen1 / raw1}, {"ratio_2t", gen2 / raw2}, {"scaling_gen", gen2 / gen1}});
  }
  if (json) std::printf("%s\n", out.dump().c_str());
  return 0;
}
