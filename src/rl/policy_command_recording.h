// On-policy dynamics data (the DAgger step against model exploitation): a policy acts in a
// VecEnv, normally on the mujoco backend, and the states it visits and the commands it sends
// become a sim::CommandPlan, which the generator replays to record a dataset exactly like a
// random one (states, probes, contact rows). Each environment contributes consecutive windows
// of `steps` control steps: a window starts at the environment's current robot state; when its
// episode ends inside the window (a fall or a time-out, then the automatic reset), the rest of
// the window holds the last command, so the replay keeps the fall and what follows it.
#pragma once

#include <cstdint>

#include "env/vec_env.h"
#include "rl/policy.h"
#include "sim/command_plan.h"

namespace flashnerd::rl {

struct PolicyRecordingOptions {
  int64_t trajectories = 0;
  int steps = 100;       // control steps per trajectory
  double noise = 1.0;    // action noise, in units of the policy's own action std (0: mean actions)
  uint64_t seed = 0;     // the noise's streams (one per environment) and the environments' resets
};

// env is reset first; its task must send one command per control step and have no objects.
sim::CommandPlan record_policy_commands(env::VecEnv& env, const Policy& policy, const PolicyRecordingOptions& options);

}  // namespace flashnerd::rl
