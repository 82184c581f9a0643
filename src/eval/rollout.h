// Recursive rollouts (paper IV-A): each trajectory's model history is primed with R
// ground-truth frames, then the model's own predictions are fed back for H steps with the
// recorded commands; increments are decoded by the StateCodec (quaternions integrated).
// When the model reads fixed probes or variable contacts, MuJoCo recomputes them at every
// predicted state (in that trajectory's own scene), in parallel over environments: the
// detector's rows feed the next step, the model's cache carries earlier contacts. Divergence (non-finite state or output) is reported per
// trajectory, never thrown. With input noise (the Robotic World Model's judgement of a model) each
// predicted state is reported as predicted, then a noisy copy of it is what the next step reads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/dataset.h"
#include "core/thread_pool.h"
#include "engine/engine.h"
#include "sim/robot.h"

namespace flashnerd::eval {

// The model being rolled out, behind one function so the engine and the libtorch reference
// share the same rollout code. Both receive raw frame inputs and return raw increments.
class StepModel {
 public:
  virtual ~StepModel() = default;
  virtual int input_dim() const = 0;
  virtual int output_dim() const = 0;
  virtual int probe_dim() const = 0;
  virtual int history() const = 0;  // R: frames of ground truth that prime a rollout
  // K rows per frame when the model reads variable contacts, else 0.
  virtual int contact_capacity() const { return 0; }
  // Starts fresh histories for `batch` environments.
  virtual void begin(int batch) = 0;
  // One frame for every environment: inputs (batch, input_dim) -> increments (batch,
  // output_dim); contacts: the frame's rows when contact_capacity() > 0, else nullptr.
  virtual void step(int batch, const float* inputs, const engine::ContactBatch* contacts,
                    float* outputs) = 0;
};

struct RolloutResult {
  int64_t trajectories = 0;  // N
  int horizon = 0;           // H predicted steps
  int start_frame = 0;       // first predicted frame (= R)
  std::vector<int64_t> source;   // (N) trajectory index in the dataset
  std::vector<double> qpos;      // (N, H, nq) predicted states at frames R .. R+H-1
  std::vector<double> qvel;      // (N, H, nv)
  std::vector<double> act;       // (N, H, na) activations (empty when na = 0)
  std::vector<int> diverged_at;  // (N) first step h (0-based) with a non-finite state, or -1
  // Contact rows the detector found at the predicted states (variable-contact models).
  int64_t contact_rows_min = 0, contact_rows_max = 0, contact_overflow = 0;
  int64_t contact_buffer_full = 0;  // frames where MuJoCo's contact list (nconmax) was full
  double contact_rows_mean = 0;
  // Wall time in the model's steps and in sensing (probes / collision detection + rows).
  double model_seconds = 0, sensing_seconds = 0;
};

struct RolloutOptions {
  int horizon = 100;
  int batch = 512;              // environments stepped together
  const sim::Robot* robot = nullptr;  // needed when the model reads probes or contacts
  bool climbing_probes = false;
  // Input noise: > 0 adds Gaussian noise to every component of each predicted state (q, v, a)
  // before it is fed back (sensed, encoded, advanced), with standard deviation input_noise times
  // that component's standard deviation over the valid frames of the evaluated trajectories;
  // quaternions are renormalized. The reported states are the model's predictions from the
  // noisy inputs. Each trajectory draws from its own stream (noise_seed, dataset index), so
  // the bits do not depend on the batch or the thread count. 0: no noise, no draws.
  double input_noise = 0;
  uint64_t noise_seed = 1;
};

// The standard deviation of each state component (nq + nv + na, in that order) over the valid
// frames of the given trajectories: the scale input noise is relative to.
std::vector<double> state_component_std(const Dataset& data, const std::vector<int64_t>& trajectories);

// Trajectories of `data` whose first R + H frames are all valid transitions.
std::vector<int64_t> eligible_trajectories(const Dataset& data, int history, int horizon);

// The rollouts of the given rows of r (e.g. one start kind), contact statistics and timings
// left out.
RolloutResult select_rollouts(const RolloutResult& r, const std::vector<size_t>& rows, int nq, int nv, int na = 0);

RolloutResult run_rollouts(StepModel& model, const Dataset& data,
                           const std::vector<int64_t>& trajectories, const RolloutOptions& options,
                           ThreadPool& pool);

}  // namespace flashnerd::eval
