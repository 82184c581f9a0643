#include "env/factory.h"

#include "core/contact_row.h"
#include "core/error.h"
#include "core/state_codec.h"
#include "core/model_dataset_check.h"
#include "env/cartpole_balance_task.h"
#include "env/learned_backend.h"
#include "env/mujoco_backend.h"
#include "env/quadruped_velocity_task.h"

namespace flashnerd::env {

std::unique_ptr<Backend> make_backend(const BackendRequest& r, std::shared_ptr<const sim::Robot> robot,
                                      ThreadPool& pool, std::vector<std::string>* warnings) {
  if (r.kind == "mujoco") return std::make_unique<MujocoBackend>(std::move(robot), r.envs, pool);
  FN_CHECK(r.kind == "flashnerd" || r.kind == "nerd", "unknown backend '", r.kind,
           "'; use mujoco, flashnerd or nerd");
  FN_CHECK(!r.model_dir.empty(), "backend ", r.kind, " needs a trained model: pass --model DIR");
  auto model = engine::Model::load(r.model_dir, r.model_options);
  const ModelConfig& c = model->config();
  const char* arch = c.arch == Arch::FlashNeRD ? "flashnerd" : "nerd";
  FN_CHECK(r.kind == arch, "backend ", r.kind, " was asked for, but model ", r.model_dir, " is a ", arch,
           " model; pass --backend ", arch);
  FN_CHECK(c.robot == robot->name(), "model ", r.model_dir, " is for robot '", c.robot, "', not '", robot->name(), "'");
  ModelSource src;
  src.what = "robot " + robot->name() + " (" + robot->spec().mjcf + ")";
  src.timestep = robot->control_timestep();
  src.timestep_field = "its control_timestep";
  src.timestep_fix = str_cat("run the robot with --control-dt ", c.timestep, ", or train a model at this step");
  src.mjcf_hash = robot->mjcf_hash();
  std::vector<std::string> w = check_model_source(c, r.model_dir, src, r.allow_other_mjcf);
  if (warnings) warnings->insert(warnings->end(), w.begin(), w.end());
  return std::make_unique<LearnedBackend>(std::move(robot), std::move(model), r.envs, pool, r.gemm);
}

ModelConfig random_robot_model_config(const sim::Robot& robot, Arch arch, const std::string& preset, bool probes) {
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

std::vector<std::string> task_names() { return {"quadruped-velocity", "cartpole-balance"}; }

std::unique_ptr<Task> make_task(const std::string& name, const sim::Robot& robot) {
  if (name == "quadruped-velocity") return std::make_unique<QuadrupedVelocityTask>(robot);
  if (name == "cartpole-balance") return std::make_unique<CartpoleBalanceTask>(robot);
  std::string known;
  for (const auto& n : task_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error(str_cat("unknown task '", name, "'; tasks: ", known));
}

}  // namespace flashnerd::env
