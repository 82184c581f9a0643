// flashnerd._ppo: the project's PPO (rl/ppo_runner.h, the C++ runner `flashnerd ppo` runs) driven
// from Python, on any task, backend and model make_vec takes, with reward terms and a
// termination written in Python (terms=). A module of its own because it links libtorch, which
// the environment module does not need.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>

#include "core/error.h"
#include "core/ensemble_manifest.h"
#include "core/model_artifact.h"
#include "env/vec_env.h"
#include "python/env_parts.h"
#include "rl/ppo_memory.h"
#include "rl/ppo_runner.h"

namespace py = pybind11;
using namespace flashnerd;

namespace {

struct PpoCall {
  python::EnvRequest env;
  std::string out;
  int iterations = 300, steps_per_env = 24, threads = 1;
  uint64_t seed = 1;
  double lr = 1e-3, entropy = 0.005;
  std::vector<int> hidden{128, 64, 32};
  bool overwrite = false, resume = false, progress = true;
};

py::object finite_or_none(double x) { return std::isfinite(x) ? py::object(py::float_(x)) : py::object(py::none()); }

py::dict run(const PpoCall& c) {
  FN_CHECK(!c.out.empty(), "out: a run directory is needed (checkpoint, log, policy/)");
  for (int h : c.hidden) FN_CHECK(h >= 1 && h <= 4096, "hidden: widths must be in [1, 4096], got ", h);
  ThreadPool pool(checked_thread_count(c.threads, false, "threads"));
  python::PythonEnvParts parts = python::make_env_parts(c.env, pool);
  rl::PpoRunOptions o;
  o.ppo.actor_hidden = o.ppo.critic_hidden = c.hidden;
  o.ppo.steps_per_env = c.steps_per_env;
  o.ppo.learning_rate = c.lr;
  o.ppo.entropy_coef = c.entropy;
  o.iterations = c.iterations;
  o.seed = c.seed;
  o.out_dir = c.out;
  o.overwrite = c.overwrite;
  o.resume = c.resume;
  o.progress = c.progress;
  const StateLayout& l = parts.robot->layout();
  rl::PpoMemoryShape shape{c.env.num_envs, 0, parts.task->observation_dim(), parts.task->action_dim(), 0, l.nq, l.nv, l.nu};
  if (!c.env.model.empty()) shape.history_frames = load_model_config(model_member_dirs(c.env.model).front()).history();
  rl::ppo_memory_plan(o, shape).check("use fewer num_envs or steps_per_env");
  if (!c.env.model.empty()) o.model_fingerprint = model_fingerprint(c.env.model);
  nlohmann::json terms = nlohmann::json::array();
  const auto& task_terms = parts.task->reward_terms();
  for (const auto& t : task_terms) terms.push_back({{"name", t.name}, {"scale", t.scale}});
  o.run_info = {{"model", c.env.model}, {"envs", c.env.num_envs}, {"steps_per_env", c.steps_per_env}, {"seed", c.seed},
                {"driven_from", "python"}, {"reward_terms", terms}};
  env::VecEnv env(*parts.task, *parts.backend, pool, c.seed);
  rl::PpoRunResult result;
  {
    py::gil_scoped_release release;  // Python terms take it back for their one call per step
    result = rl::run_ppo(env, o);
  }
  py::list returns, term_rows;
  for (const auto& row : result.rows) {
    returns.append(finite_or_none(row.finished_return));
    py::dict per_term;
    for (size_t k = 0; k < row.terms.size() && k < result.term_names.size(); ++k)
      per_term[py::str(result.term_names[k])] = row.terms[k];
    term_rows.append(per_term);
  }
  const rl::IterationRow& last = result.rows.back();
  py::dict summary;
  summary["task"] = c.env.task;
  summary["backend"] = parts.backend->kind();
  summary["iterations"] = last.iteration;
  summary["transitions"] = last.transitions;
  summary["seconds"] = last.seconds;
  summary["return_finished_episodes"] = finite_or_none(last.finished_return);
  summary["returns"] = returns;  // per iteration: the mean return of the episodes that ended
  summary["reward_terms"] = term_rows;  // per iteration: each term's share of an episode's return
  summary["policy"] = c.out + "/policy";
  summary["warnings"] = parts.warnings;
  return summary;
}

}  // namespace

PYBIND11_MODULE(_ppo, m) {
  m.doc() = "FlashNeRD's PPO runner (libtorch), driven from Python";
  python::translate_errors(py::module_::import("flashnerd._flashnerd").attr("Error"));  // one flashnerd.Error
  m.def(
      "ppo",
      [](const py::object& task, const std::string& out, const std::string& backend, const std::string& model,
         py::object terms, int num_envs, int iterations, int steps_per_env, uint64_t seed, double lr, double entropy,
         std::vector<int> hidden, int threads, const std::string& robot, const std::string& precision, bool overwrite,
         bool resume, bool progress) {
        PpoCall c;
        c.env = {"",       python::backend_kind(backend), model, robot, python::precision_of(precision),
                 num_envs, std::move(terms), "ppo"};
        c.env.task = python::task_label(task, &c.env.task_object);
        c.out = out;
        c.iterations = iterations;
        c.steps_per_env = steps_per_env;
        c.seed = seed;
        c.lr = lr;
        c.entropy = entropy;
        c.hidden = std::move(hidden);
        c.threads = threads;
        c.overwrite = overwrite;
        c.resume = resume;
        c.progress = progress;
        return run(c);
      },
      py::arg("task"), py::arg("out"), py::arg("backend") = "mujoco", py::arg("model") = "", py::arg("terms") = py::none(),
      py::arg("num_envs") = 4096, py::arg("iterations") = 300, py::arg("steps_per_env") = 24, py::arg("seed") = 1,
      py::arg("lr") = 1e-3, py::arg("entropy") = 0.005, py::arg("hidden") = std::vector<int>{128, 64, 32},
      py::arg("threads") = 1, py::arg("robot") = "", py::arg("precision") = "auto", py::arg("overwrite") = false,
      py::arg("resume") = false, py::arg("progress") = true);
}
