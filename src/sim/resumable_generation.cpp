#include "sim/resumable_generation.h"

#include <chrono>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/dataset_merge.h"
#include "core/error.h"
#include "core/json_diff.h"
#include "core/option_error.h"
#include "core/progress.h"

namespace flashnerd::sim {

namespace fs = std::filesystem;

namespace {

// What fixes the run's bytes: a block of another run must never be merged into this one.
nlohmann::json run_identity(const Robot& robot, const GenerateOptions& o, int64_t blocks) {
  return {{"robot", robot.name()},        {"mjcf_hash", robot.mjcf_hash()},
          {"trajectories", o.trajectories}, {"steps", o.steps},
          {"seed", o.seed},                 {"contacts", o.contacts},
          {"probes", o.probes},             {"climbing_probes", o.climbing_probes},
          {"free_dynamics", o.free_dynamics}, {"actuator_delay", o.actuator_delay},
          {"max_velocity", o.max_velocity}, {"blocks", blocks}};
}

std::string block_path(const std::string& parts, int64_t i, int64_t n) {
  return (fs::path(parts) / str_cat("block_", i, "_of_", n, ".h5")).string();
}

}  // namespace

std::string parts_directory(const std::string& out) { return out + ".parts"; }

Dataset generate_resumable(const Robot& robot, const GenerateOptions& options, ThreadPool& pool,
                           const ResumableOptions& r, GenerateSummary* summary) {
  FN_CHECK(r.block_trajectories >= 1, "gen: blocks need at least one trajectory, got ", r.block_trajectories);
  const std::string parts = parts_directory(r.out);
  const int64_t n = (options.trajectories + r.block_trajectories - 1) / r.block_trajectories;
  if (n <= 1 || options.plan || options.total_trajectories > 0) {
    FN_CHECK(!fs::exists(parts), "gen: ", parts, " holds blocks of an interrupted run of other settings; remove it");
    return generate_dataset(robot, options, pool, summary);
  }
  check_generation_fits(robot, options, 2);  // the blocks and the merged file, both whole
  const nlohmann::json identity = run_identity(robot, options, n);
  const std::string identity_path = (fs::path(parts) / "run.json").string();
  if (fs::exists(parts)) {
    FN_CHECK_OPTION(r.resume, "out", parts, " holds the finished blocks of an interrupted run; pass ",
                    option_ref("resume"), " to continue it, or ", option_ref("overwrite"), " to start again");
    const nlohmann::json recorded = nlohmann::json::parse(read_file(identity_path));
    const std::string diff = json_differences(recorded, identity, "the interrupted run", "this run");
    FN_CHECK_OPTION(diff.empty(), "resume", "the blocks in ", parts, " are of another run: ", diff);
  } else {
    ensure_writable_directory(parts);
    write_file_atomic(identity_path, identity.dump(1));
  }
  const auto start = std::chrono::steady_clock::now();
  ProgressLine progress(str_cat("gen ", robot.name()), options.trajectories, "traj", r.progress);
  std::vector<Dataset> blocks;
  std::vector<std::string> names;
  for (int64_t i = 0; i < n; ++i) {
    GenerateOptions b = options;
    b.total_trajectories = options.trajectories;
    b.first_trajectory = options.trajectories * i / n;
    b.trajectories = options.trajectories * (i + 1) / n - b.first_trajectory;
    b.shard_index = int(i);
    b.shard_count = int(n);
    b.progress = false;
    names.push_back(block_path(parts, i, n));
    if (fs::exists(names.back())) {
      blocks.push_back(load_dataset(names.back()));
    } else {
      blocks.push_back(generate_dataset(robot, b, pool));
      save_dataset(names.back(), blocks.back());
    }
    progress.update(b.first_trajectory + b.trajectories);
  }
  progress.finish();
  Dataset d = merge_shards(std::move(blocks), names);
  if (summary) *summary = summarize_dataset(d, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return d;
}

}  // namespace flashnerd::sim
