// What a Python vector environment or a PPO run from Python steps: the robot, the task (with
// make_vec's terms= added), the backend, checked against the machine's memory before anything
// is allocated. One recipe for flashnerd.make_vec and flashnerd.ppo.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "engine/engine.h"
#include "env/backend.h"
#include "env/factory.h"
#include "env/task.h"
#include "sim/robot.h"

namespace flashnerd::python {

namespace py = pybind11;

struct EnvRequest {
  std::string task;     // a task's name or spec path; for a task object, its label ("Python: Walk")
  env::BackendKind backend;
  std::string model, robot;
  engine::Precision precision;  // of a learned backend's products
  int num_envs;
  py::object terms;   // None, or make_vec's terms=
  const char* caller;  // names the call in the memory refusal ("make_vec")
  py::object task_object = py::none();  // a whole task in Python: an object with a spec dict (task_label)
};

struct PythonEnvParts {
  std::shared_ptr<const sim::Robot> robot;
  std::unique_ptr<env::Task> task;
  std::unique_ptr<env::Backend> backend;
  std::vector<std::string> warnings;
};

PythonEnvParts make_env_parts(const EnvRequest& request, ThreadPool& pool);

// make_vec's and ppo's task=: a name or spec path as it is; an object with a `spec` dict (a whole
// task in Python) as its label, "Python: CLASS", with the object kept in *object.
std::string task_label(const py::object& task, py::object* object);

// make_vec's and ppo's backend= and precision= keywords by name (errors list the choices).
env::BackendKind backend_kind(const std::string& name);
engine::Precision precision_of(const std::string& name);

// flashnerd.Error for the library's errors, an option's named by its keyword (num_envs=): every
// module of the package raises the one type, `error_type`.
void translate_errors(const py::object& error_type);

}  // namespace flashnerd::python
