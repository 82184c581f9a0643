// Environments by name, for the CLI and the Python module: a backend kind with its model
// artifact, and a task name. Model/robot mismatches (state layout, control step, MJCF hash)
// are refused here with the fix, like eval does for datasets.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/enum_names.h"
#include "engine/engine.h"
#include "env/backend.h"
#include "env/learned_backend.h"
#include "env/task.h"

namespace flashnerd::env {

// What steps the environments: MuJoCo, a learned model of either architecture, or a
// free_velocity model of a hand coupled two-way or one-way with MuJoCo's contact solve.
enum class BackendKind { Mujoco, FlashNeRD, NeRD, TwoWay, OneWay };

// The one name table of the kinds (mujoco, flashnerd, nerd, two-way, one-way): names, parsing
// (the CLI's --backend, the Python module) and the choices an error lists.
extern const EnumName<BackendKind> kBackendKindNames[5];
const char* backend_kind_name(BackendKind kind);
BackendKind parse_backend_kind(const std::string& name);  // throws naming the choices

struct BackendRequest {
  BackendKind kind = BackendKind::Mujoco;
  std::string model_dir;        // the artifact, for learned kinds
  engine::ModelOptions model_options;
  engine::GemmBackend gemm = engine::GemmBackend::Auto;  // fp32 products (RowInvariant: planners)
  bool allow_other_mjcf = false;
  int envs = 1;
  EnsembleUse ensemble;  // learned kinds, when model_dir is an ensemble
};

// warnings: lines to show the user (e.g. another MJCF, allowed).
std::unique_ptr<Backend> make_backend(const BackendRequest& request, std::shared_ptr<const sim::Robot> robot,
                                      ThreadPool& pool, std::vector<std::string>* warnings);

// The memory `r.envs` environments of this request take before any is made: the backend's
// state (and each learned member's history cache) and a VecEnv's buffers for `task`.
double environment_bytes(const BackendRequest& r, const sim::Robot& robot, const Task& task);

// A learned backend made by make_backend steps the artifact request.model_dir from now on (a
// fine-tuned version of its model, checked as make_backend checks it); every environment
// keeps its state and loses its history: reset them before stepping.
void reload_learned_model(Backend& backend, const BackendRequest& request);

// A model config of `preset`'s shape for this robot (its layout, control step, MJCF hash;
// the spec's fixed probes as inputs when `probes`), with identity input normalization and
// small output scales: random weights then move states little, for throughput benchmarks
// and tests of the learned backend (not for predictions).
ModelConfig random_robot_model_config(const sim::Robot& robot, Arch arch, ModelPreset preset, bool probes);

// Built-in tasks: the spec files of robots/tasks/.
std::vector<std::string> task_names();
// The robot a task is made for (a built-in task's name or a spec file's path; a spec names
// its robot); throws for an unknown task, listing the built-in ones.
std::string task_robot(const std::string& task);
// A built-in task by name, or a spec file's task (any path ending in .json).
std::unique_ptr<Task> make_task(const std::string& name, const sim::Robot& robot);

}  // namespace flashnerd::env
