// The Python module `flashnerd` (pybind11 + numpy): models stepped in state terms or raw
// features, and vector environments with Gymnasium's conventions over every backend of the
// environment layer. Arrays are float64 / float32 numpy; shapes and dtypes are checked with
// errors naming the argument; the GIL is released while stepping; flashnerd::Error becomes
// RuntimeError with the C++ message.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "core/error.h"
#include "core/frame_features.h"
#include "core/model_artifact.h"
#include "core/state_codec.h"
#include "engine/engine.h"
#include "env/factory.h"
#include "env/vec_env.h"
#include "rl/policy.h"

namespace py = pybind11;
using namespace flashnerd;

namespace {

template <class T>
using Array = py::array_t<T, py::array::c_style | py::array::forcecast>;

// Checks a 2-D array's shape, naming the argument.
template <class T>
const T* checked(const Array<T>& a, const char* name, int64_t rows, int64_t cols) {
  FN_CHECK(a.ndim() == 2 && a.shape(0) == rows && a.shape(1) == cols, name, ": expected shape (", rows, ", ", cols,
           "), got ", a.ndim() == 2 ? str_cat("(", a.shape(0), ", ", a.shape(1), ")") : str_cat(a.ndim(), "-d array"));
  return a.data();
}

engine::Precision precision_of(const std::string& p) {
  return engine::resolve_precision(engine::parse_precision(p));
}

// A model with its own context: steps `batch` environments in state terms or raw features.
class Stepper {
 public:
  Stepper(const std::string& dir, int batch, const std::string& precision, int threads)
      : pool_(threads),
        model_(engine::Model::load(dir, engine::ModelOptions{precision_of(precision)})),
        codec_(model_->config().layout),
        features_(codec_, model_->config().probe_dim / kProbeFeatureDim),
        batch_(batch) {
    FN_CHECK(batch >= 1, "batch must be >= 1, got ", batch);
    FN_CHECK(!model_->config().contact.enabled(), "models with variable contacts are stepped through make_vec "
             "(their contact rows come from MuJoCo at every state)");
    FN_CHECK(model_->config().target == "increment", "this model predicts ", model_->config().target,
             "; state stepping needs an increment model");
    engine::ContextOptions o;
    o.max_batch = batch;
    o.pool = &pool_;
    ctx_ = std::make_unique<engine::Context>(*model_, o);
    inputs_.assign(size_t(batch) * size_t(model_->input_dim()), 0.0f);
    outputs_.assign(size_t(batch) * size_t(model_->output_dim()), 0.0f);
  }
  const ModelConfig& config() const { return model_->config(); }
  int batch() const { return batch_; }

  py::array_t<float> step_features(const Array<float>& inputs) {
    const float* in = checked(inputs, "inputs", batch_, model_->input_dim());
    py::array_t<float> out({batch_, model_->output_dim()});
    float* o = out.mutable_data();
    {
      py::gil_scoped_release release;
      engine::step(*model_, *ctx_, batch_, in, o);
    }
    return out;
  }

  py::tuple step(const Array<double>& q, const Array<double>& v, const Array<double>& u, py::object probes) {
    const StateLayout& s = model_->config().layout;
    const double* qp = checked(q, "q", batch_, s.nq);
    const double* vp = checked(v, "v", batch_, s.nv);
    const double* up = checked(u, "command", batch_, s.nu);
    const int P = features_.probe_dim();
    Array<float> pr;
    if (P > 0) {
      FN_CHECK(!probes.is_none(), "this model reads fixed probes: pass probes of shape (", batch_, ", ", P, ")");
      pr = probes.cast<Array<float>>();
      checked(pr, "probes", batch_, P);
    }
    py::array_t<double> qn({batch_, s.nq}), vn({batch_, s.nv});
    double* qo = qn.mutable_data();
    double* vo = vn.mutable_data();
    const float* pp = P > 0 ? pr.data() : nullptr;
    {
      py::gil_scoped_release release;
      const int din = model_->input_dim(), dout = model_->output_dim();
      for (int e = 0; e < batch_; ++e)
        features_.input(qp + size_t(e) * size_t(s.nq), vp + size_t(e) * size_t(s.nv), up + size_t(e) * size_t(s.nu),
                        pp ? pp + size_t(e) * size_t(P) : nullptr, inputs_.data() + size_t(e) * size_t(din));
      engine::step(*model_, *ctx_, batch_, inputs_.data(), outputs_.data());
      std::vector<double> inc(static_cast<size_t>(dout));
      for (int e = 0; e < batch_; ++e) {
        for (int i = 0; i < dout; ++i) inc[size_t(i)] = outputs_[size_t(e) * size_t(dout) + size_t(i)];
        codec_.apply(qp + size_t(e) * size_t(s.nq), vp + size_t(e) * size_t(s.nv), inc.data(),
                     qo + size_t(e) * size_t(s.nq), vo + size_t(e) * size_t(s.nv));
      }
    }
    return py::make_tuple(qn, vn);
  }

  void reset(int env) {
    FN_CHECK(env >= 0 && env < batch_, "env ", env, " out of range [0, ", batch_, ")");
    engine::reset_env(*ctx_, env);
  }
  void reset_all() { engine::reset_all(*ctx_); }
  py::array_t<bool> diverged() const {
    py::array_t<bool> d(batch_);
    for (int e = 0; e < batch_; ++e) d.mutable_data()[e] = ctx_->diverged(e);
    return d;
  }

 private:
  ThreadPool pool_;
  std::shared_ptr<const engine::Model> model_;
  StateCodec codec_;
  FrameFeatures features_;
  int batch_;
  std::unique_ptr<engine::Context> ctx_;
  std::vector<float> inputs_, outputs_;
};

// Gymnasium-style vector environment (next-step autoreset is done inside VecEnv: the
// returned observation of a finished env is its new episode's first; the final observation
// of a time-out is in info["final_observation"]).
class PyVecEnv {
 public:
  PyVecEnv(const std::string& task, const std::string& backend, const std::string& model, int num_envs, int seed,
           int threads, const std::string& robot, const std::string& precision)
      : pool_(threads), seed_(uint64_t(seed)) {
    std::string robot_name = robot;
    if (robot_name.empty()) robot_name = task == "cartpole-balance" ? "cartpole" : "quadruped";
    robot_ = sim::Robot::load(robot_name);
    task_ = env::make_task(task, *robot_);
    env::BackendRequest r;
    r.kind = backend;
    r.model_dir = model;
    r.envs = num_envs;
    if (backend != "mujoco") r.model_options = engine::ModelOptions{precision_of(precision)};
    backend_ = env::make_backend(r, robot_, pool_, &warnings_);
    env_ = std::make_unique<env::VecEnv>(*task_, *backend_, pool_, seed_);
  }
  int num_envs() const { return env_->envs(); }
  int observation_dim() const { return env_->observation_dim(); }
  int action_dim() const { return env_->action_dim(); }
  const std::vector<std::string>& warnings() const { return warnings_; }

  py::tuple reset(py::object seed) {
    if (!seed.is_none()) {
      seed_ = seed.cast<uint64_t>();
      env_ = std::make_unique<env::VecEnv>(*task_, *backend_, pool_, seed_);
    }
    {
      py::gil_scoped_release release;
      env_->reset_all();
    }
    return py::make_tuple(copy_rows(env_->observations()), py::dict());
  }

  py::tuple step(const Array<float>& actions) {
    const float* a = checked(actions, "actions", env_->envs(), env_->action_dim());
    {
      py::gil_scoped_release release;
      env_->step(a);
    }
    const int E = env_->envs();
    py::array_t<float> reward(E);
    py::array_t<bool> terminated(E), truncated(E);
    for (int e = 0; e < E; ++e) {
      reward.mutable_data()[e] = env_->rewards()[e];
      terminated.mutable_data()[e] = env_->terminated()[e] != 0;
      truncated.mutable_data()[e] = env_->timed_out()[e] != 0;
    }
    py::dict info;
    info["final_observation"] = copy_rows(env_->final_observations());
    info["time_outs"] = truncated;
    return py::make_tuple(copy_rows(env_->observations()), reward, terminated, truncated, info);
  }

  py::dict timings() const {
    py::dict d;
    d["dynamics_seconds"] = backend_->timings().dynamics_seconds;
    d["sensing_seconds"] = backend_->timings().sensing_seconds;
    d["task_seconds"] = env_->task_seconds();
    return d;
  }

 private:
  py::array_t<float> copy_rows(const float* rows) const {
    py::array_t<float> out({env_->envs(), env_->observation_dim()});
    std::memcpy(out.mutable_data(), rows, sizeof(float) * size_t(out.size()));
    return out;
  }

  ThreadPool pool_;
  uint64_t seed_;
  std::shared_ptr<const sim::Robot> robot_;
  std::unique_ptr<env::Task> task_;
  std::unique_ptr<env::Backend> backend_;
  std::unique_ptr<env::VecEnv> env_;
  std::vector<std::string> warnings_;
};

}  // namespace

PYBIND11_MODULE(flashnerd, m) {
  m.doc() = "FlashNeRD: streaming-transformer neural robot dynamics (models and vector environments)";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });

  py::class_<Stepper>(m, "Model", "A trained model with its own streaming context for `batch` environments")
      .def(py::init<const std::string&, int, const std::string&, int>(), py::arg("dir"), py::arg("batch") = 1,
           py::arg("precision") = "fp32", py::arg("threads") = 1)
      .def_property_readonly("batch", &Stepper::batch)
      .def_property_readonly("config", [](const Stepper& s) { return nlohmann::json(s.config()).dump(); },
                             "config.json as a string")
      .def_property_readonly("robot", [](const Stepper& s) { return s.config().robot; })
      .def_property_readonly("nq", [](const Stepper& s) { return s.config().layout.nq; })
      .def_property_readonly("nv", [](const Stepper& s) { return s.config().layout.nv; })
      .def_property_readonly("nu", [](const Stepper& s) { return s.config().layout.nu; })
      .def_property_readonly("input_dim", [](const Stepper& s) { return s.config().input_dim; })
      .def_property_readonly("output_dim", [](const Stepper& s) { return s.config().output_dim; })
      .def_property_readonly("probe_dim", [](const Stepper& s) { return s.config().probe_dim; })
      .def_property_readonly("history", [](const Stepper& s) { return s.config().history(); })
      .def("step", &Stepper::step, py::arg("q"), py::arg("v"), py::arg("command"), py::arg("probes") = py::none(),
           "One step in state terms: (q, v) of every environment -> next (q, v)")
      .def("step_features", &Stepper::step_features, py::arg("inputs"), "One step on raw frame features")
      .def("reset", &Stepper::reset, py::arg("env"), "Environment env starts an empty history")
      .def("reset_all", &Stepper::reset_all)
      .def("diverged", &Stepper::diverged);

  py::class_<PyVecEnv>(m, "VecEnv", "Vector environment (Gymnasium conventions, autoreset)")
      .def_property_readonly("num_envs", &PyVecEnv::num_envs)
      .def_property_readonly("observation_dim", &PyVecEnv::observation_dim)
      .def_property_readonly("action_dim", &PyVecEnv::action_dim)
      .def_property_readonly("warnings", &PyVecEnv::warnings)
      .def("reset", &PyVecEnv::reset, py::arg("seed") = py::none(), "-> (obs, info)")
      .def("step", &PyVecEnv::step, py::arg("actions"), "-> (obs, reward, terminated, truncated, info)")
      .def("timings", &PyVecEnv::timings);

  m.def(
      "make_vec",
      [](const std::string& task, const std::string& backend, const std::string& model, int num_envs, int seed,
         int threads, const std::string& robot, const std::string& precision) {
        return std::make_unique<PyVecEnv>(task, backend, model, num_envs, seed, threads, robot, precision);
      },
      py::arg("task"), py::arg("backend") = "mujoco", py::arg("model") = "", py::arg("num_envs") = 16,
      py::arg("seed") = 0, py::arg("threads") = 1, py::arg("robot") = "", py::arg("precision") = "fp32",
      "Vector environment of a task over a backend: mujoco, flashnerd or nerd (model=DIR)");

  py::class_<rl::Policy>(m, "Policy", "A trained policy (flashnerd ppo), libtorch-free")
      .def_static("load", &rl::Policy::load, py::arg("dir"))
      .def_property_readonly("task", [](const rl::Policy& p) { return p.info().task; })
      .def("act",
           [](const rl::Policy& p, const Array<float>& obs) {
             FN_CHECK(obs.ndim() == 2, "obs: expected shape (rows, ", p.info().observation_dim, ")");
             const int rows = int(obs.shape(0));
             checked(obs, "obs", rows, p.info().observation_dim);
             py::array_t<float> out({rows, p.info().action_dim});
             rl::PolicyScratch s = p.make_scratch();
             p.act(obs.data(), rows, out.mutable_data(), s);
             return out;
           },
           py::arg("obs"), "Mean actions of raw observations");
}
