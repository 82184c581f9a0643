#include "env/factory.h"

#include <string_view>

#include "core/contact_row.h"
#include "core/ensemble_manifest.h"
#include "core/error.h"
#include "core/model_artifact.h"
#include "core/model_dataset_check.h"
#include "core/option_error.h"
#include "core/state_codec.h"
#include "core/system_memory.h"
#include "env/coupled_backend.h"
#include "env/learned_backend.h"
#include "env/mujoco_backend.h"
#include "env/spec_task.h"
#include "env/vec_env.h"
#include "sim/robot_spec.h"

namespace flashnerd::env {

const EnumName<BackendKind> kBackendKindNames[5] = {{BackendKind::Mujoco, "mujoco"},
                                                    {BackendKind::FlashNeRD, "flashnerd"},
                                                    {BackendKind::NeRD, "nerd"},
                                                    {BackendKind::TwoWay, "two-way"},
                                                    {BackendKind::OneWay, "one-way"}};

const char* backend_kind_name(BackendKind kind) { return enum_name(kBackendKindNames, kind); }

BackendKind parse_backend_kind(const std::string& name) { return parse_enum(kBackendKindNames, name, "backend"); }

namespace {

// The artifact of r.model_dir (every member of an ensemble), checked against `robot` (name,
// control step, MJCF).
std::vector<std::shared_ptr<const engine::Model>> load_checked_members(const BackendRequest& r, const sim::Robot& robot,
                                                                       std::vector<std::string>* warnings) {
  FN_CHECK_OPTION(!r.model_dir.empty(), "model", "backend ", backend_kind_name(r.kind),
                  " needs a trained model: give the directory of one");
  auto members = engine::Model::load_members(r.model_dir, r.model_options);
  const ModelConfig& c = members[0]->config();
  FN_CHECK(c.robot == robot.name(), "model ", r.model_dir, " is for robot '", c.robot, "', not '", robot.name(), "'");
  ModelSource src;
  src.what = "robot " + robot.name() + " (" + robot.spec().mjcf + ")";
  src.timestep = robot.control_timestep();
  src.timestep_field = "its control_timestep";
  src.timestep_fix = str_cat("run the robot with a control step of ", c.timestep, " s, or train a model at this step");
  src.mjcf_hash = robot.mjcf_hash();
  std::vector<std::string> w = check_model_source(c, r.model_dir, src, r.allow_other_mjcf);
  if (warnings) warnings->insert(warnings->end(), w.begin(), w.end());
  return members;
}

std::shared_ptr<const engine::Model> load_checked_model(const BackendRequest& r, const sim::Robot& robot,
                                                        std::vector<std::string>* warnings) {
  auto members = load_checked_members(r, robot, warnings);
  FN_CHECK(members.size() == 1, "backend ", backend_kind_name(r.kind), ": ", r.model_dir, " is an ensemble of ", members.size(),
           " models; this backend steps one model (pass one member's directory)");
  return members[0];
}

// Per environment, the simulator state a backend keeps (positions, velocities, commands, warm
// starts) and, for learned kinds, each member's history cache and one frame's rows.
double backend_bytes_per_env(const sim::Robot& robot, const std::vector<ModelConfig>& members) {
  const StateLayout& l = robot.layout();
  double per_env = sizeof(double) * (4.0 * (l.nq + l.nv) + 2.0 * l.nu + 64.0);
  for (const ModelConfig& c : members)
    per_env += double(engine::Context::history_bytes_per_env(c)) + 4.0 * sizeof(float) * double(c.input_dim + c.output_dim);
  return per_env;
}

// Refuses a batch of environments that could not fit before anything is allocated.
void check_backend_memory(const BackendRequest& r, const sim::Robot& robot,
                          const std::vector<std::shared_ptr<const engine::Model>>& members) {
  std::vector<ModelConfig> configs;
  for (const auto& m : members) configs.push_back(m->config());
  check_memory_fits(backend_bytes_per_env(robot, configs) * double(r.envs),
                    str_cat(r.envs, " environments of the ", backend_kind_name(r.kind), " backend"),
                    "use fewer environments");
}

}  // namespace

std::unique_ptr<Backend> make_backend(const BackendRequest& r, std::shared_ptr<const sim::Robot> robot,
                                      ThreadPool& pool, std::vector<std::string>* warnings) {
  FN_CHECK(r.envs >= 1, "a backend needs at least one environment, got ", r.envs);
  const char* kind = backend_kind_name(r.kind);
  if (r.kind == BackendKind::Mujoco) {
    check_backend_memory(r, *robot, {});
    return std::make_unique<MujocoBackend>(std::move(robot), r.envs, pool);
  }
  if (r.kind == BackendKind::TwoWay || r.kind == BackendKind::OneWay) {  // the robot's free dynamics, learned alone
    FN_CHECK(!robot->spec().free_dynamics_mjcf.empty(), "backend ", kind, ": robot '", robot->name(),
             "' names no robot-alone model (\"free_dynamics_mjcf\" in its spec); coupling needs one, e.g. hand16");
    auto alone = sim::Robot::load(robot->spec().free_dynamics_mjcf);
    auto model = load_checked_model(r, *alone, warnings);
    check_backend_memory(r, *robot, {model});
    return std::make_unique<CoupledBackend>(std::move(robot), std::move(alone), std::move(model),
                                            r.kind == BackendKind::TwoWay ? sim::Coupling::TwoWay : sim::Coupling::OneWay,
                                            r.envs, pool);
  }
  auto members = load_checked_members(r, *robot, warnings);
  check_backend_memory(r, *robot, members);
  const char* arch = members[0]->config().arch == Arch::FlashNeRD ? "flashnerd" : "nerd";
  FN_CHECK_OPTION(std::string(kind) == arch, "backend", kind, " was asked for, but model ", r.model_dir, " is a ",
                  arch, " model; pass ", arch, " as ", option_ref("backend"));
  return std::make_unique<LearnedBackend>(std::move(robot), std::move(members), r.envs, pool, r.ensemble, r.gemm);
}

double environment_bytes(const BackendRequest& r, const sim::Robot& robot, const Task& task) {
  std::vector<ModelConfig> configs;
  if (r.kind != BackendKind::Mujoco && !r.model_dir.empty())
    for (const std::string& dir : model_member_dirs(r.model_dir)) configs.push_back(load_model_config(dir));
  return double(r.envs) * (backend_bytes_per_env(robot, configs) +
                           VecEnv::bytes_per_env(task.observation_dim(), int(task.reward_terms().size()), robot.layout().nu));
}

void reload_learned_model(Backend& backend, const BackendRequest& r) {
  auto* learned = dynamic_cast<LearnedBackend*>(&backend);
  FN_CHECK(learned != nullptr, "the ", backend.kind(), " backend steps no learned model to reload");
  learned->replace_members(load_checked_members(r, backend.robot(), nullptr));
}

ModelConfig random_robot_model_config(const sim::Robot& robot, Arch arch, ModelPreset preset, bool probes) {
  ModelConfig c;
  c.arch = arch;
  c.robot = robot.name();
  c.mjcf_hash = robot.mjcf_hash();
  c.timestep = robot.control_timestep();
  c.layout = robot.layout();
  StateCodec codec(c.layout);
  c.state_dim = codec.feature_dim();
  c.probe_dim = probes ? int(robot.probes().size()) * kProbeFeatureDim : 0;
  c.input_dim = c.state_dim + c.layout.nu + c.probe_dim;
  c.output_dim = codec.increment_dim();
  apply_preset(preset, c);
  c.norm.input_mean.assign(size_t(c.input_dim), 0.0f);
  c.norm.input_std.assign(size_t(c.input_dim), 1.0f);
  c.norm.target_mean.assign(size_t(c.output_dim), 0.0f);
  c.norm.target_std.assign(size_t(c.output_dim), 1e-3f);
  c.validate();
  return c;
}

std::vector<std::string> task_names() { return builtin_spec_task_names(); }

std::string task_robot(const std::string& task) { return spec_task_robot(task_spec_path(task)); }

std::unique_ptr<Task> make_task(const std::string& name, const sim::Robot& robot) {
  auto task = SpecTask::load(task_spec_path(name), robot);
  if (!is_task_spec_path(name)) task->set_source(name);
  return task;
}

}  // namespace flashnerd::env
