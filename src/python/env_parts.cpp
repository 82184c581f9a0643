#include "python/env_parts.h"

#include "core/system_memory.h"
#include "engine/engine.h"
#include "env/factory.h"
#include "env/spec_task.h"
#include "python/option_keywords.h"
#include "python/python_terms.h"

namespace flashnerd::python {

namespace {

// A whole task in Python: its spec dict (the spec file's schema) as the task's skeleton, the
// object itself as its Python terms (observations, rewards, termination), then terms=.
std::unique_ptr<env::Task> python_task(const EnvRequest& q, std::shared_ptr<const sim::Robot>* robot) {
  const py::object spec = py::getattr(q.task_object, "spec", py::none());
  FN_CHECK(py::isinstance<py::dict>(spec), q.task, ": spec must be a dict (a task spec, as robots/tasks/*.json), got ",
           std::string(py::str(py::type::of(spec).attr("__name__"))));
  const std::string text = py::module_::import("json").attr("dumps")(spec).cast<std::string>();
  const nlohmann::json j = nlohmann::json::parse(text);
  const std::string file = q.task + ".spec";
  *robot = sim::Robot::load(q.robot.empty() ? env::spec_task_robot(j, file, ".") : q.robot);
  auto task = std::make_unique<env::SpecTask>(j, file, **robot);
  task->set_source(q.task);
  add_python_terms(q.task_object, *task);
  return task;
}

}  // namespace

std::string task_label(const py::object& task, py::object* object) {
  if (py::isinstance<py::str>(task)) return task.cast<std::string>();
  const std::string type = py::str(py::type::of(task).attr("__name__"));
  FN_CHECK(py::hasattr(task, "spec"), "task: expected a task's name, a spec file's path, or an object with a spec "
           "dict (a whole task in Python), got ", type);
  *object = task;
  return "Python: " + type;
}

PythonEnvParts make_env_parts(const EnvRequest& q, ThreadPool& pool) {
  PythonEnvParts p;
  if (q.task_object.is_none()) {
    p.robot = sim::Robot::load(q.robot.empty() ? env::task_robot(q.task) : q.robot);
    p.task = env::make_task(q.task, *p.robot);
  } else {
    p.task = python_task(q, &p.robot);
  }
  add_python_terms(q.terms, *p.task);
  env::BackendRequest r;
  r.kind = q.backend;
  r.model_dir = q.model;
  r.envs = q.num_envs;
  if (q.backend != env::BackendKind::Mujoco) r.model_options = engine::ModelOptions{q.precision};
  MemoryPlan(str_cat(q.caller, ": ", q.num_envs, " environments"))
      .add("simulator state and buffers", env::environment_bytes(r, *p.robot, *p.task))
      .check("use fewer num_envs");
  p.backend = env::make_backend(r, p.robot, pool, &p.warnings);
  return p;
}

env::BackendKind backend_kind(const std::string& name) { return env::parse_backend_kind(name); }

engine::Precision precision_of(const std::string& name) {
  return engine::resolve_precision(engine::parse_precision(name));
}

void translate_errors(const py::object& error_type) {
  static py::object* type = new py::object(error_type);  // lives as long as the module
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const OptionError& e) {  // about one option: named by its keyword (num_envs=)
      PyErr_SetString(type->ptr(), keyword_message(e).c_str());
    } catch (const Error& e) {
      PyErr_SetString(type->ptr(), e.what());
    }
  });
}

}  // namespace flashnerd::python
