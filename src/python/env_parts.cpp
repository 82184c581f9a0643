#include "python/env_parts.h"

#include "core/system_memory.h"
#include "engine/engine.h"
#include "env/factory.h"
#include "python/option_keywords.h"
#include "python/python_terms.h"

namespace flashnerd::python {

PythonEnvParts make_env_parts(const EnvRequest& q, ThreadPool& pool) {
  PythonEnvParts p;
  p.robot = sim::Robot::load(q.robot.empty() ? env::task_robot(q.task) : q.robot);
  p.task = env::make_task(q.task, *p.robot);
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
