// Dataset generation: N random trajectories of T control steps, each from its own seeded
// RNG stream (same seed, same file, whatever the thread count), recording robot states,
// commands, validity, fixed-probe features and contact rows at every frame. Uses
// mj_step1 / mj_step2 so contacts are read at exactly the recorded state at no extra cost.
#pragma once

#include <cstdint>

#include "core/dataset.h"
#include "core/thread_pool.h"
#include "sim/command_plan.h"
#include "sim/robot.h"

namespace flashnerd::sim {

struct GenerateOptions {
  int64_t trajectories = 1000;
  // Shards (gen --shard i/n): this file holds trajectories first_trajectory .. +trajectories
  // of a run of total_trajectories; trajectory n draws from the stream (seed, n) of that run,
  // so merged shards equal the single run byte for byte (core/dataset_merge.h).
  int64_t first_trajectory = 0;
  int64_t total_trajectories = 0;  // 0: this file is the whole run
  int shard_index = 0, shard_count = 1;
  int steps = 0;                 // 0: the spec's trajectory_steps
  uint64_t seed = 0;
  bool contacts = true;          // record contact rows (capacity from the spec)
  bool probes = true;            // record fixed probes (when the spec has any)
  bool climbing_probes = false;  // use the spec's climbing probe set instead
  bool free_dynamics = false;    // record qacc_smooth·dt of the robot (needs one substep)
  double max_velocity = 1e3;     // |qvel| beyond this marks a blow-up
  // Control steps between a command and its effect ("real" robots with a latency): the
  // dataset records the commands sent; the simulator applies the one sent this many steps
  // earlier (the nominal command before the first ones).
  int actuator_delay = 0;
  // Replay these start states and commands instead of sampling them (trajectories and
  // steps must match the plan's; not with a randomized scene or actuator activations).
  const CommandPlan* plan = nullptr;
  bool progress = true;
};

struct GenerateSummary {
  int64_t transitions = 0;
  double valid_fraction = 0;
  int contacts_min = 0, contacts_max = 0;
  double contacts_mean = 0;
  int64_t overflow_total = 0;
  double seconds = 0;
  double transitions_per_second = 0;
};

Dataset generate_dataset(const Robot& robot, const GenerateOptions& options, ThreadPool& pool,
                         GenerateSummary* summary = nullptr);

// Throws, with the memory it would need, when `copies` of the whole run of `options` cannot fit.
void check_generation_fits(const Robot& robot, const GenerateOptions& options, int copies = 1);

// The summary of a generated dataset that took `seconds`.
GenerateSummary summarize_dataset(const Dataset& d, double seconds);

}  // namespace flashnerd::sim
