// The compiled half of the Python package `flashnerd` (python/flashnerd/ wraps it): models
// stepped in state terms or raw features, vector environments over every backend of the
// environment layer, datasets as numpy arrays. Arrays are float64 / float32 numpy; contiguous
// inputs of the right dtype are read in place (no copy), others converted; shapes are checked
// with errors naming the argument; the GIL is released while stepping; flashnerd::Error
// becomes RuntimeError with the C++ message.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <type_traits>

#include "core/dataset.h"
#include "core/error.h"
#include "core/frame_features.h"
#include "core/model_artifact.h"
#include "core/output_policy.h"
#include "core/state_codec.h"
#include "core/system_memory.h"
#include "engine/engine.h"
#include "env/factory.h"
#include "env/vec_env.h"
#include "python/numpy_arrays.h"
#include "python/env_parts.h"
#include "rl/policy.h"
#include "rl/policy_onnx.h"
#include "env/task_page.h"
#include "sim/recorded_import.h"
#include "sim/renderer.h"

namespace py = pybind11;
using namespace flashnerd;
using python::Array;
using python::as_array;
using python::checked;
using python::precision_of;

namespace {

// Checks a 3-D array's shape, naming the argument.
template <class T>
const T* checked3(const Array<T>& a, const char* name, int64_t n, int64_t t, int64_t k) {
  FN_CHECK(a.ndim() == 3 && a.shape(0) == n && a.shape(1) == t && a.shape(2) == k, name, ": expected shape (", n, ", ",
           t, ", ", k, "), got ", a.ndim() == 3 ? str_cat("(", a.shape(0), ", ", a.shape(1), ", ", a.shape(2), ")")
                                                : str_cat(a.ndim(), "-d array"));
  return a.data();
}

// The largest magnitude set_state and write_dataset take for a position, velocity, activation
// or control (rad, m, rad/s, m/s, actuator units): far beyond any robot's range, so a larger
// value is a unit or indexing mistake (or garbage), which float32 observations would turn to inf.
constexpr double kPlausibleMagnitude = 1e6;
constexpr const char* kPlausibleRange = "values must be finite, of magnitude at most 1e6";

// The first of x[0..n) that is NaN, infinite or beyond kPlausibleMagnitude; -1 when none is.
int first_implausible(const double* x, int n) {
  for (int i = 0; i < n; ++i)
    if (!(std::abs(x[i]) <= kPlausibleMagnitude)) return i;
  return -1;
}

// A model with its own context: steps `batch` environments in state terms or raw features.
class Stepper {
 public:
  Stepper(const std::string& dir, int batch, const std::string& precision, int threads)
      : pool_(checked_thread_count(threads, false, "threads")),
        model_(engine::Model::load(dir, engine::ModelOptions{precision_of(precision)})),
        codec_(model_->config().layout),
        features_(codec_, model_->config().probe_dim / kProbeFeatureDim),
        batch_(batch) {
    FN_CHECK(batch >= 1, "batch must be >= 1, got ", batch);
    FN_CHECK(!model_->config().contact.enabled(), "models with variable contacts are stepped through make_vec "
             "(their contact rows come from MuJoCo at every state)");
    FN_CHECK(model_->config().target == PredictionTarget::Increment, "this model predicts ",
             target_name(model_->config().target),
             "; state stepping needs an increment model");
    engine::ContextOptions o;
    o.max_batch = batch;
    o.pool = &pool_;
    ctx_ = std::make_unique<engine::Context>(*model_, o);
    inputs_.assign(size_t(batch) * size_t(model_->input_dim()), 0.0f);
    outputs_.assign(size_t(batch) * size_t(model_->output_dim()), 0.0f);
    increment_.assign(size_t(model_->output_dim()), 0.0);
    failed_.assign(size_t(batch_), 0);
  }
  const ModelConfig& config() const { return model_->config(); }
  int batch() const { return batch_; }

  // out: an optional (batch, output_dim) float32 C-contiguous array written in place.
  py::array_t<float> step_features(const py::object& inputs_arg, py::object out_arg) {
    const Array<float> inputs = as_array<float>(inputs_arg, "inputs");
    const float* in = checked(inputs, "inputs", batch_, model_->input_dim());
    py::array_t<float> out;
    if (out_arg.is_none()) {
      out = py::array_t<float>({batch_, model_->output_dim()});
    } else {
      using CFloats = py::array_t<float, py::array::c_style>;
      const bool writable_in_place = py::isinstance<CFloats>(out_arg);
      FN_CHECK(writable_in_place, "out: expected a C-contiguous float32 array");
      out = out_arg.cast<py::array_t<float>>();
      checked(Array<float>(out), "out", batch_, model_->output_dim());
    }
    float* o = out.mutable_data();
    {
      py::gil_scoped_release release;
      engine::step(*model_, *ctx_, batch_, in, o);
    }
    return out;
  }

  py::tuple step(const py::object& q_arg, const py::object& v_arg, const py::object& u_arg, py::object probes) {
    const Array<double> q = as_array<double>(q_arg, "q"), v = as_array<double>(v_arg, "v"),
                        u = as_array<double>(u_arg, "command");
    const StateLayout& s = model_->config().layout;
    const double* qp = checked(q, "q", batch_, s.nq);
    const double* vp = checked(v, "v", batch_, s.nv);
    const double* up = checked(u, "command", batch_, s.nu);
    const int P = features_.probe_dim();
    Array<float> pr;
    if (P > 0) {
      FN_CHECK(!probes.is_none(), "this model reads fixed probes: pass probes of shape (", batch_, ", ", P, ")");
      pr = as_array<float>(probes, "probes");
      checked(pr, "probes", batch_, P);
    }
    py::array_t<double> qn({batch_, s.nq}), vn({batch_, s.nv});
    double* qo = qn.mutable_data();
    double* vo = vn.mutable_data();
    const float* pp = P > 0 ? pr.data() : nullptr;
    {
      py::gil_scoped_release release;
      step_states(qp, vp, up, pp, qo, vo);
    }
    return py::make_tuple(qn, vn);
  }

  // Feeds T recorded frames (T, batch, ...) into every environment's history and returns the
  // state predicted after the last one: a rollout continues from there with a full history.
  py::tuple prime(const py::object& q_arg, const py::object& v_arg, const py::object& u_arg, py::object probes) {
    const Array<double> q = as_array<double>(q_arg, "q"), v = as_array<double>(v_arg, "v"),
                        u = as_array<double>(u_arg, "command");
    const StateLayout& s = model_->config().layout;
    FN_CHECK(q.ndim() == 3 && q.shape(0) >= 1, "q: expected shape (frames, ", batch_, ", ", s.nq, ")");
    const int64_t T = q.shape(0);
    const double* qp = checked3(q, "q", T, batch_, s.nq);
    const double* vp = checked3(v, "v", T, batch_, s.nv);
    const double* up = checked3(u, "command", T, batch_, s.nu);
    const int P = features_.probe_dim();
    Array<float> pr;
    if (P > 0) {
      FN_CHECK(!probes.is_none(), "this model reads fixed probes: pass probes of shape (", T, ", ", batch_, ", ", P, ")");
      pr = as_array<float>(probes, "probes");
      checked3(pr, "probes", T, batch_, P);
    }
    py::array_t<double> qn({batch_, s.nq}), vn({batch_, s.nv});
    {
      py::gil_scoped_release release;
      for (int64_t t = 0; t < T; ++t)
        step_states(qp + size_t(t * batch_) * size_t(s.nq), vp + size_t(t * batch_) * size_t(s.nv),
                    up + size_t(t * batch_) * size_t(s.nu), P > 0 ? pr.data() + size_t(t * batch_) * size_t(P) : nullptr,
                    qn.mutable_data(), vn.mutable_data());
    }
    return py::make_tuple(qn, vn);
  }

  // (q, v, u[, probes]) of every env -> next (q, v): features, one engine step, the codec.
  void step_states(const double* qp, const double* vp, const double* up, const float* pp, double* qo, double* vo) {
    const StateLayout& s = model_->config().layout;
    const int din = model_->input_dim(), dout = model_->output_dim(), P = features_.probe_dim();
    for (int e = 0; e < batch_; ++e)
      features_.input(qp + size_t(e) * size_t(s.nq), vp + size_t(e) * size_t(s.nv), up + size_t(e) * size_t(s.nu),
                      pp ? pp + size_t(e) * size_t(P) : nullptr, inputs_.data() + size_t(e) * size_t(din));
    engine::step(*model_, *ctx_, batch_, inputs_.data(), outputs_.data());
    for (int e = 0; e < batch_; ++e) {
      for (int i = 0; i < dout; ++i) increment_[size_t(i)] = outputs_[size_t(e) * size_t(dout) + size_t(i)];
      // as every rollout: a non-finite step keeps the last finite state and flags the env
      failed_[size_t(e)] = !codec_.advance_finite(qp + size_t(e) * size_t(s.nq), vp + size_t(e) * size_t(s.nv), nullptr,
                                                  increment_.data(), qo + size_t(e) * size_t(s.nq),
                                                  vo + size_t(e) * size_t(s.nv), nullptr, ctx_->diverged(e));
    }
  }

  void reset(int env) {
    FN_CHECK(env >= 0 && env < batch_, "env ", env, " out of range [0, ", batch_, ")");
    engine::reset_env(*ctx_, env);
    failed_[size_t(env)] = 0;
  }
  void reset_all() {
    engine::reset_all(*ctx_);
    std::fill(failed_.begin(), failed_.end(), uint8_t(0));
  }
  py::array_t<bool> diverged() const {
    py::array_t<bool> d(batch_);
    for (int e = 0; e < batch_; ++e) d.mutable_data()[e] = ctx_->diverged(e) || failed_[size_t(e)];
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
  std::vector<double> increment_;
  std::vector<uint8_t> failed_;  // (batch) the last step kept the last finite state
};

// Gymnasium-style vector environment (next-step autoreset is done inside VecEnv: the
// returned observation of a finished env is its new episode's first; the final observation
// of a time-out is in info["final_observation"]).
class PyVecEnv {
 public:
  PyVecEnv(const py::object& task, const std::string& backend, const std::string& model, int num_envs, int seed,
           int threads, const std::string& robot, const std::string& precision, const std::string& autoreset,
           const py::object& terms)
      : pool_(checked_thread_count(threads, false, "threads")), seed_(uint64_t(seed)) {
    const auto* mode = find_enum(env::kAutoresetNames, autoreset);
    FN_CHECK(mode, "autoreset: expected ", enum_choices(env::kAutoresetNames), ", got '", autoreset, "'");
    autoreset_ = mode->value;
    python::EnvRequest request{"",       python::backend_kind(backend), model, robot, precision_of(precision),
                               num_envs, terms, "make_vec"};
    request.task = python::task_label(task, &request.task_object);
    python::PythonEnvParts parts = python::make_env_parts(request, pool_);
    robot_ = parts.robot;
    task_ = std::move(parts.task);
    backend_ = std::move(parts.backend);
    warnings_ = parts.warnings;
    env_ = std::make_unique<env::VecEnv>(*task_, *backend_, pool_, seed_, autoreset_);
  }
  int num_envs() const { return env_->envs(); }
  int observation_dim() const { return env_->observation_dim(); }
  int action_dim() const { return env_->action_dim(); }
  double action_bound() const { return task_->action_bound(); }
  int episode_steps() const { return task_->episode_steps(); }
  double dt() const { return env_->step_seconds(); }
  std::string autoreset() const { return enum_name(env::kAutoresetNames, autoreset_); }
  const std::vector<std::string>& warnings() const { return warnings_; }
  // The task as stepped, Python terms included (task_info's fields), as JSON.
  std::string task_info_json() const { return env::task_summary(*task_, *robot_).dump(); }

  // seed: None, an int (environment e draws from the stream (seed, e)) or one int per
  // environment; mask: None (every environment) or a bool array of the ones to reset.
  py::tuple reset(py::object seed, py::object mask) {
    const int E = env_->envs();
    if (py::isinstance<py::int_>(seed)) {
      seed_ = seed.cast<uint64_t>();
      env_ = std::make_unique<env::VecEnv>(*task_, *backend_, pool_, seed_, autoreset_);
    } else if (!seed.is_none()) {
      FN_CHECK(py::isinstance<py::sequence>(seed) && !py::isinstance<py::str>(seed),
               "reset: seed must be None, an int or a list of ", E, " ints, got ", std::string(py::str(seed.get_type())));
      const auto seeds = seed.cast<py::sequence>();
      FN_CHECK(py::len(seeds) == size_t(E), "reset: seed lists ", py::len(seeds), " seeds for ", E, " environments");
      env_ = std::make_unique<env::VecEnv>(*task_, *backend_, pool_, seed_, autoreset_);
      for (int e = 0; e < E; ++e) {
        const py::object s = seeds[size_t(e)];
        FN_CHECK(py::isinstance<py::int_>(s) && s.cast<py::int_>() >= py::int_(0), "reset: seed[", e,
                 "] must be a non-negative int, got ", std::string(py::repr(s)));
        env_->seed_env(e, s.cast<uint64_t>());
      }
    }
    if (mask.is_none()) {
      py::gil_scoped_release release;
      env_->reset_all();
    } else {
      const Array<bool> m = as_array<bool>(mask, "reset_mask");
      FN_CHECK(m.ndim() == 1 && m.shape(0) == E, "reset_mask: expected shape (", E, "), got ", m.ndim(), "-d array");
      std::vector<uint8_t> flags(m.data(), m.data() + E);
      py::gil_scoped_release release;
      env_->reset_envs(flags.data());
    }
    return py::make_tuple(copy_rows(env_->observations()), py::dict());
  }

  py::tuple step(const py::object& actions_arg) {
    const Array<float> actions = as_array<float>(actions_arg, "actions");
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
    py::array_t<bool> ended(E);  // the episodes that ended at this step (not a held env's)
    for (int e = 0; e < E; ++e) ended.mutable_data()[e] = env_->episode_ended()[e] != 0;
    py::array_t<float> final_obs = copy_rows(env_->final_observations());  // rows of ended envs
    info["final_obs"] = final_obs;  // Gymnasium 1.x
    info["_final_obs"] = ended;
    info["final_observation"] = final_obs;  // Gymnasium 0.29's names, kept as aliases
    info["_final_observation"] = ended;
    info["time_outs"] = truncated;
    info["reward_terms"] = reward_terms();
    info["episode"] = episode_statistics();
    info["_episode"] = ended;
    return py::make_tuple(copy_rows(env_->observations()), reward, terminated, truncated, info);
  }

  // The episodes that ended at the last step, as Gymnasium's RecordEpisodeStatistics reports
  // them: return "r", length "l" (steps) and wall seconds since the reset "t"; 0 elsewhere.
  py::dict episode_statistics() const {
    const int E = env_->envs();
    py::array_t<float> r(E), t(E);
    py::array_t<int32_t> l(E);
    for (int e = 0; e < E; ++e) {
      const bool ended = env_->episode_ended()[e] != 0;
      r.mutable_data()[e] = ended ? float(env_->ended_returns()[e]) : 0.0f;
      l.mutable_data()[e] = ended ? env_->ended_lengths()[e] : 0;
      t.mutable_data()[e] = ended ? float(env_->ended_seconds()[e]) : 0.0f;
    }
    py::dict out;
    out["r"] = r;
    out["l"] = l;
    out["t"] = t;
    return out;
  }

  // Each named reward term's share of the last step's reward (scale · value · dt, before any
  // clip), per environment: legged_gym's per-term logging, step by step.
  py::dict reward_terms() const {
    const auto& terms = task_->reward_terms();
    const double step_seconds = dt();
    const int E = env_->envs();
    py::dict out;
    for (size_t k = 0; k < terms.size(); ++k) {
      py::array_t<float> column(E);
      for (int e = 0; e < E; ++e) column.mutable_data()[e] = float(terms[k].scale * env_->term_values(e)[k] * step_seconds);
      out[py::str(terms[k].name)] = column;
    }
    return out;
  }

  // env's robot state, and its objects' where the backend has some.
  py::dict get_state(int env) const {
    check_env(env);
    py::dict d;
    d["qpos"] = py::array_t<double>(backend_->nq(), backend_->q(env));
    d["qvel"] = py::array_t<double>(backend_->nv(), backend_->v(env));
    if (backend_->object_nq() > 0) {
      d["object_qpos"] = py::array_t<double>(backend_->object_nq(), backend_->object_q(env));
      d["object_qvel"] = py::array_t<double>(backend_->object_nv(), backend_->object_v(env));
    }
    return d;
  }

  // Puts env at (qpos, qvel) (and its objects): a fresh history, as a reset starts one; the
  // task's state (command, target, episode step) stays. Returns env's new observation.
  py::array_t<float> set_state(int env, const py::object& qpos, const py::object& qvel, const py::object& object_qpos,
                               const py::object& object_qvel) {
    check_env(env);
    FN_CHECK(object_qpos.is_none() == object_qvel.is_none(), "set_state: give object_qpos and object_qvel together");
    FN_CHECK(object_qpos.is_none() || backend_->object_nq() > 0, "set_state: this backend has no objects");
    const Array<double> q = vector_arg(qpos, "qpos", backend_->nq()), v = vector_arg(qvel, "qvel", backend_->nv());
    backend_->reset(env, q.data(), v.data());
    if (!object_qpos.is_none()) {
      const Array<double> oq = vector_arg(object_qpos, "object_qpos", backend_->object_nq());
      const Array<double> ov = vector_arg(object_qvel, "object_qvel", backend_->object_nv());
      backend_->set_objects(env, oq.data(), ov.data());
    }
    env_->refresh_observations();
    return py::array_t<float>(env_->observation_dim(), env_->observations() + size_t(env) * size_t(env_->observation_dim()));
  }

  // env's scene (robot and objects) drawn by MuJoCo's renderer through EGL: (height, width, 3) uint8.
  py::array_t<uint8_t> render(int env, int width, int height) {
    check_env(env);
    FN_CHECK(width >= 16 && height >= 16 && width <= 4096 && height <= 4096, "render: width and height must lie in "
             "16..4096, got ", width, "x", height);
    if (!renderer_ || render_size_ != std::make_pair(width, height)) {
      renderer_ = std::make_unique<sim::Renderer>(*robot_, width, height);
      render_size_ = {width, height};
    }
    const mjModel* m = robot_->model();
    std::vector<double> qpos(size_t(m->nq)), qvel(size_t(m->nv));
    backend_->write_scene_state(env, qpos.data(), qvel.data());
    const sim::Image img = renderer_->render(qpos.data(), true);
    py::array_t<uint8_t> out({img.height, img.width, 3});
    std::copy(img.rgb.begin(), img.rgb.end(), out.mutable_data());
    return out;
  }

  py::dict timings() const {
    py::dict d;
    d["dynamics_seconds"] = backend_->timings().dynamics_seconds;
    d["sensing_seconds"] = backend_->timings().sensing_seconds;
    d["task_seconds"] = env_->task_seconds();
    return d;
  }

 private:
  // A 1-D float array of n finite values of plausible magnitude, named in errors.
  static Array<double> vector_arg(const py::object& obj, const char* name, int n) {
    Array<double> a = as_array<double>(obj, name);
    FN_CHECK(a.ndim() == 1 && a.shape(0) == n, name, ": expected shape (", n, "), got ",
             a.ndim() == 1 ? str_cat("(", a.shape(0), ")") : str_cat(a.ndim(), "-d array"));
    const int i = first_implausible(a.data(), n);
    FN_CHECK(i < 0, "set_state: ", name, "[", i, "] is ", i < 0 ? 0.0 : a.data()[i], "; ", kPlausibleRange,
             " (rad, m, rad/s, m/s): pass a state as get_state returns it");
    return a;
  }

  void check_env(int env) const {
    FN_CHECK(env >= 0 && env < env_->envs(), "env must lie in 0..", env_->envs() - 1, ", got ", env);
  }

  py::array_t<float> copy_rows(const float* rows) const {
    py::array_t<float> out({env_->envs(), env_->observation_dim()});
    std::memcpy(out.mutable_data(), rows, sizeof(float) * size_t(out.size()));
    return out;
  }

  ThreadPool pool_;
  uint64_t seed_;
  env::Autoreset autoreset_;
  std::shared_ptr<const sim::Robot> robot_;
  std::unique_ptr<env::Task> task_;
  std::unique_ptr<env::Backend> backend_;
  std::unique_ptr<env::VecEnv> env_;
  std::vector<std::string> warnings_;
  std::unique_ptr<sim::Renderer> renderer_;  // made by the first render()
  std::pair<int, int> render_size_;
};

// numpy copy of a dataset array with its (N, frames, ...) shape.
template <class T>
py::array_t<T> array_of(const std::vector<T>& v, std::vector<py::ssize_t> shape) {
  py::array_t<T> a(shape);
  FN_ASSERT(size_t(a.size()) == v.size());
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

// A `flashnerd gen` file as named numpy arrays (docs/DATASET.md has the schema).
py::dict load_dataset_arrays(const std::string& path) {
  const Dataset d = load_dataset(path);
  const py::ssize_t N = d.trajectories, T = d.steps, F = d.frames();
  const StateLayout& s = d.layout;
  py::dict out;
  out["robot"] = d.robot;
  out["timestep"] = d.timestep;
  out["seed"] = d.seed;
  out["mjcf_hash"] = d.mjcf_hash;
  out["actuator_model"] = d.actuator_model;
  out["joint_names"] = s.joint_names;
  out["generator"] = d.generator.dump();
  out["qpos"] = array_of(d.qpos, {N, F, s.nq});
  out["qvel"] = array_of(d.qvel, {N, F, s.nv});
  out["ctrl"] = array_of(d.ctrl, {N, T, s.nu});
  std::vector<bool> valid(d.valid.begin(), d.valid.end());
  py::array_t<bool> va({N, T});
  for (size_t i = 0; i < valid.size(); ++i) va.mutable_data()[i] = valid[i];
  out["valid"] = va;
  if (s.na > 0) out["act"] = array_of(d.act, {N, F, s.na});
  if (d.probe_count > 0) out["probes"] = array_of(d.probes, {N, F, d.probe_count, kProbeFeatureDim});
  if (d.contact_capacity > 0) {
    out["contact_rows"] = array_of(d.contact_rows, {N, F, d.contact_capacity, kContactRowDim});
    out["contact_link"] = array_of(d.contact_link, {N, F, d.contact_capacity});
    out["contact_count"] = array_of(d.contact_count, {N, F});
  }
  if (!d.free_dv.empty()) out["free_dv"] = array_of(d.free_dv, {N, T, s.nv});
  return out;
}

// Refuses writing `n` trajectories of `steps` transitions when the dataset (and the copies of
// inputs that are not C-contiguous float64, such as broadcast views) would not fit in memory.
void check_recorded_dataset_fits(const sim::Robot& robot, int64_t n, int64_t steps, bool probes, bool contacts,
                                 const std::vector<py::object>& inputs) {
  Dataset shape;  // sizes only: recorded_dataset allocates
  shape.layout = robot.layout();
  shape.probe_count = probes ? int(robot.probes().size()) : 0;
  shape.contact_capacity = contacts ? robot.spec().contact_capacity : 0;
  double bytes = shape.allocation_bytes(n, steps, false);
  for (const py::object& input : inputs) {
    if (input.is_none()) continue;
    const py::array a = py::array::ensure(input);
    const bool in_place = a && a.dtype().is(py::dtype::of<double>()) && (a.flags() & py::array::c_style);
    if (a && !in_place) bytes += 8.0 * double(a.size());
  }
  check_memory_fits(bytes, str_cat("write_dataset: ", n, " trajectories of ", steps, " steps"),
                    "write them in parts (one file per part), or on a machine with more memory");
}

// Refuses a transition marked valid whose states, activations or control hold a value
// first_implausible finds, naming the array and its index.
void check_plausible_transitions(const Dataset& d) {
  const StateLayout& l = d.layout;
  for (int64_t n = 0; n < d.trajectories; ++n)
    for (int64_t t = 0; t < d.steps; ++t) {
      if (!d.is_valid(n, t)) continue;
      struct Row {
        const char* name;
        int64_t index;  // frame or step
        const double* x;
        int width;
      };
      std::vector<Row> rows = {{"qpos", t, d.q(n, t), l.nq}, {"qpos", t + 1, d.q(n, t + 1), l.nq},
                               {"qvel", t, d.v(n, t), l.nv}, {"qvel", t + 1, d.v(n, t + 1), l.nv},
                               {"ctrl", t, d.u(n, t), l.nu}};
      if (l.na > 0) rows.insert(rows.end(), {{"act", t, d.a(n, t), l.na}, {"act", t + 1, d.a(n, t + 1), l.na}});
      for (const Row& r : rows) {
        const int i = first_implausible(r.x, r.width);
        FN_CHECK(i < 0, "write_dataset: ", r.name, "[", n, ", ", r.index, ", ", i, "] is ", i < 0 ? 0.0 : r.x[i],
                 " in transition ", t, " of trajectory ", n, ", marked valid; ", kPlausibleRange,
                 " (rad, m, rad/s, m/s, actuator units): fix the recording or set valid[", n, ", ", t, "] = False");
      }
    }
}

// Recorded trajectories (numpy) -> a dataset file `train` and `finetune` read: the robot's
// layout and provenance, probe features and contact rows computed by MuJoCo's detector at
// the recorded states (as eval does); sizes beyond memory refused before allocation, and
// non-finite or implausible values refused where marked valid.
void write_dataset_arrays(const std::string& path, const std::string& robot_name, const py::object& qpos_arg,
                          const py::object& qvel_arg, const py::object& ctrl_arg, py::object valid_arg, py::object act_arg,
                          bool probes, bool contacts, bool overwrite) {
  FN_CHECK(overwrite || !std::filesystem::exists(path), path, " exists; pass overwrite=True to replace it");
  auto robot = sim::Robot::load(robot_name);
  const StateLayout& s = robot->layout();
  const py::array qpos_shape = py::array::ensure(qpos_arg);  // its shape, before any copy
  FN_CHECK(qpos_shape && qpos_shape.ndim() == 3 && qpos_shape.shape(1) >= 2,
           "qpos: expected shape (trajectories, steps + 1, ", s.nq, ")");
  const int64_t N = qpos_shape.shape(0), T = qpos_shape.shape(1) - 1;
  check_recorded_dataset_fits(*robot, N, T, probes, contacts, {qpos_arg, qvel_arg, ctrl_arg, act_arg});
  const Array<double> qpos = as_array<double>(qpos_arg, "qpos"), qvel = as_array<double>(qvel_arg, "qvel"),
                      ctrl = as_array<double>(ctrl_arg, "ctrl");
  Dataset d = sim::recorded_dataset(*robot, N, T, probes, contacts, "flashnerd.write_dataset (recorded trajectories)");
  std::copy_n(checked3(qpos, "qpos", N, T + 1, s.nq), d.qpos.size(), d.qpos.data());
  std::copy_n(checked3(qvel, "qvel", N, T + 1, s.nv), d.qvel.size(), d.qvel.data());
  std::copy_n(checked3(ctrl, "ctrl", N, T, s.nu), d.ctrl.size(), d.ctrl.data());
  if (s.na > 0) {
    FN_CHECK(!act_arg.is_none(), "robot ", d.robot, " has ", s.na, " actuator activations: pass act of shape (", N,
             ", ", T + 1, ", ", s.na, ")");
    const auto act = as_array<double>(act_arg, "act");
    std::copy_n(checked3(act, "act", N, T + 1, s.na), d.act.size(), d.act.data());
  }
  if (valid_arg.is_none()) {
    std::fill(d.valid.begin(), d.valid.end(), 1);
  } else {
    const auto valid = as_array<bool>(valid_arg, "valid");
    const bool* v = checked(valid, "valid", N, T);
    for (size_t i = 0; i < d.valid.size(); ++i) d.valid[i] = v[i] ? 1 : 0;
  }
  check_plausible_transitions(d);
  check_valid_transitions_finite(d, "write_dataset");
  {
    py::gil_scoped_release release;
    sim::sense_recorded_states(*robot, d);
    d.validate();
    save_dataset(path, d);
  }
}

// The policy artifact from arrays (flashnerd.export_policy gathers them from a PyTorch actor):
// the task's robot, control step and observation terms filled in, every width checked.
void save_policy_arrays(const std::string& dir, const std::string& task, const std::vector<py::object>& weights,
                        const std::vector<py::object>& biases, const py::object& obs_mean,
                        const py::object& obs_denominator, const py::object& action_std, const std::string& activation,
                        const std::string& training_json) {
  auto robot = sim::Robot::load(env::task_robot(task));
  auto t = env::make_task(task, *robot);
  rl::PolicyInfo info;
  info.task = task;
  info.robot = robot->name();
  info.mjcf_hash = robot->mjcf_hash();
  info.control_timestep = robot->control_timestep() * t->control_steps();
  info.observation_dim = t->observation_dim();
  info.action_dim = t->action_dim();
  info.observation_terms = t->observation_terms();
  info.activation = parse_enum(rl::kPolicyActivationNames, activation, "policy activation");
  info.training = nlohmann::json::parse(training_json);
  FN_CHECK(!weights.empty() && weights.size() == biases.size(), "export_policy: ", weights.size(), " weights and ",
           biases.size(), " biases");
  std::vector<rl::PolicyLayer> layers;
  for (size_t l = 0; l < weights.size(); ++l) {
    const Array<float> w = as_array<float>(weights[l], "weight"), b = as_array<float>(biases[l], "bias");
    FN_CHECK(w.ndim() == 2 && b.ndim() == 1 && b.shape(0) == w.shape(0), "export_policy: layer ", l,
             " has weight ", w.ndim(), "-d and bias ", b.ndim(), "-d of other widths");
    layers.push_back({int(w.shape(1)), int(w.shape(0)), std::vector<float>(w.data(), w.data() + w.size()),
                      std::vector<float>(b.data(), b.data() + b.size())});
    if (l + 1 < weights.size()) info.hidden.push_back(int(w.shape(0)));
  }
  auto vec = [](const py::object& o, const char* name) {
    const Array<float> a = as_array<float>(o, name);
    return std::vector<float>(a.data(), a.data() + a.size());
  };
  rl::Policy(info, vec(obs_mean, "obs_mean"), vec(obs_denominator, "obs_std"), std::move(layers),
             vec(action_std, "action_std"))
      .save(dir);
}

// flashnerd.Error, and flashnerd::Error translated to it.
void bind_errors(py::module_& m) {
  // flashnerd.Error: bad input (arguments, files) is a ValueError; it stays a RuntimeError too,
  // which C++ errors were before.
  const py::object error_type = py::module_::import("builtins").attr("type")(
      "Error", py::make_tuple(py::handle(PyExc_ValueError), py::handle(PyExc_RuntimeError)),
      py::dict(py::arg("__module__") = "flashnerd", py::arg("__doc__") = "An error of flashnerd's C++ core"));
  m.attr("Error") = error_type;
  python::translate_errors(error_type);
}

// flashnerd.Model: a model stepped in state terms or raw features.
void bind_model(py::module_& m) {
  py::class_<Stepper>(m, "Model", "A trained model with its own streaming context for `batch` environments")
      .def(py::init<const std::string&, int, const std::string&, int>(), py::arg("dir"), py::arg("batch") = 1,
           py::arg("precision") = "fp32", py::arg("threads") = 1)
      .def_static("load",
                  [](const std::string& dir, int batch, const std::string& precision, int threads) {
                    return std::make_unique<Stepper>(dir, batch, precision, threads);
                  },
                  py::arg("dir"), py::arg("batch") = 1, py::arg("precision") = "fp32", py::arg("threads") = 1,
                  "The artifact in dir (config.json + weights.safetensors) with a context for `batch` environments")
      .def_property_readonly("batch", &Stepper::batch)
      .def_property_readonly("config",
                             [](const Stepper& s) {
                               return py::module_::import("json").attr("loads")(nlohmann::json(s.config()).dump());
                             },
                             "config.json as a dict (architecture, robot, normalization, training provenance)")
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
      .def("prime", &Stepper::prime, py::arg("q"), py::arg("v"), py::arg("command"), py::arg("probes") = py::none(),
           "Feed recorded frames (frames, batch, ...) into the histories; returns the state after the last")
      .def("step_features", &Stepper::step_features, py::arg("inputs"), py::arg("out") = py::none(),
           "One step on raw frame features (batch, input_dim) -> increments (batch, output_dim), into out if given")
      .def("reset", &Stepper::reset, py::arg("env"), "Environment env starts an empty history")
      .def("reset_all", &Stepper::reset_all)
      .def("diverged", &Stepper::diverged);
}

// flashnerd.VecEnv and make_vec.
void bind_vec_env(py::module_& m) {
  py::class_<PyVecEnv>(m, "VecEnv", "Vector environment (Gymnasium conventions, autoreset)")
      .def_property_readonly("num_envs", &PyVecEnv::num_envs)
      .def_property_readonly("observation_dim", &PyVecEnv::observation_dim)
      .def_property_readonly("action_dim", &PyVecEnv::action_dim)
      .def_property_readonly("action_bound", &PyVecEnv::action_bound)
      .def_property_readonly("episode_steps", &PyVecEnv::episode_steps)
      .def_property_readonly("dt", &PyVecEnv::dt, "Seconds of simulated time per step")
      .def_property_readonly("autoreset", &PyVecEnv::autoreset)
      .def_property_readonly("warnings", &PyVecEnv::warnings)
      .def("reset", &PyVecEnv::reset, py::arg("seed") = py::none(), py::arg("reset_mask") = py::none(),
           "-> (obs, info)")
      .def("step", &PyVecEnv::step, py::arg("actions"), "-> (obs, reward, terminated, truncated, info)")
      .def("get_state", &PyVecEnv::get_state, py::arg("env"))
      .def("set_state", &PyVecEnv::set_state, py::arg("env"), py::arg("qpos"), py::arg("qvel"),
           py::arg("object_qpos") = py::none(), py::arg("object_qvel") = py::none())
      .def("render", &PyVecEnv::render, py::arg("env"), py::arg("width"), py::arg("height"))
      .def("timings", &PyVecEnv::timings)
      .def("task_info_json", &PyVecEnv::task_info_json);

  m.def(
      "make_vec",
      [](const py::object& task, const std::string& backend, const std::string& model, int num_envs, int seed,
         int threads, const std::string& robot, const std::string& precision, const std::string& autoreset,
         const py::object& terms) {
        return std::make_unique<PyVecEnv>(task, backend, model, num_envs, seed, threads, robot, precision, autoreset,
                                          terms);
      },
      py::arg("task"), py::arg("backend") = "mujoco", py::arg("model") = "", py::arg("num_envs") = 16,
      py::arg("seed") = 0, py::arg("threads") = 1, py::arg("robot") = "", py::arg("precision") = "auto",
      py::arg("autoreset") = "next_step", py::arg("terms") = py::none(),
      "Vector environment of a task over a backend: mujoco, flashnerd or nerd (model=DIR), or for cube-reorient two-way / one-way coupling (model=the hand's free-velocity DIR)");
}

// Robots and tasks: layouts, log columns, descriptions.
void bind_robots_and_tasks(py::module_& m) {
  m.def(
      "robot_info",
      [](const std::string& name) {
        auto robot = sim::Robot::load(name);
        const StateLayout& s = robot->layout();
        const sim::LogColumns c = sim::log_columns(*robot);
        py::dict d;
        d["name"] = robot->name();
        d["nq"] = s.nq;
        d["nv"] = s.nv;
        d["nu"] = s.nu;
        d["na"] = s.na;
        d["floating_base"] = s.floating_base;
        d["control_timestep"] = robot->control_timestep();
        d["joint_names"] = s.joint_names;
        py::list actuators;
        for (const auto& a : robot->actuators()) actuators.append(a.name);
        d["actuator_names"] = actuators;
        d["log_columns"] = py::dict(py::arg("q") = c.q, py::arg("v") = c.v, py::arg("u") = c.u, py::arg("a") = c.a);
        return d;
      },
      py::arg("name"), "A robot's layout, names and the log columns flashnerd import expects");
  m.def("_task_info", [](const std::string& name) { return env::task_summary(name).dump(); }, py::arg("name"),
        "A task's description as JSON (python/flashnerd/tasks.py decodes it)");
  m.def("task_names", &env::task_names, "The tasks make_vec runs");
  m.def(
      "autoreset_names",
      [] {
        std::vector<std::string> names;
        for (const auto& n : env::kAutoresetNames) names.push_back(n.name);
        return names;
      },
      "The autoreset modes' names (Gymnasium 1.x's modes)");
}

// Datasets as numpy arrays, both ways.
void bind_datasets(py::module_& m) {
  m.def("load_dataset", &load_dataset_arrays, py::arg("path"),
        "A dataset from 'flashnerd gen' as a dict of named numpy arrays (qpos, qvel, ctrl, valid, ...)");
  m.def("write_dataset", &write_dataset_arrays, py::arg("path"), py::arg("robot"), py::arg("qpos"), py::arg("qvel"),
        py::arg("ctrl"), py::arg("valid") = py::none(), py::arg("act") = py::none(), py::arg("probes") = true,
        py::arg("contacts") = false, py::arg("overwrite") = false,
        "Recorded trajectories -> a dataset file: qpos (N, T+1, nq), qvel (N, T+1, nv), ctrl (N, T, nu), valid (N, T); "
        "probes and contact rows computed by MuJoCo at the recorded states");
  // Test hook: the address the module reads a float32 argument from (zero-copy check).
  m.def("_input_address", [](const py::object& a) { return reinterpret_cast<uintptr_t>(as_array<float>(a, "a").data()); });
}

// Policy artifacts: written from arrays, loaded and evaluated.
void bind_policy(py::module_& m) {
  m.def("_save_policy", &save_policy_arrays, py::arg("dir"), py::arg("task"), py::arg("weights"), py::arg("biases"),
        py::arg("obs_mean"), py::arg("obs_denominator"), py::arg("action_std"), py::arg("activation"),
        py::arg("training_json"));

  py::class_<rl::Policy>(m, "Policy", "A trained policy (flashnerd ppo), libtorch-free")
      .def_static("load", &rl::Policy::load, py::arg("dir"))
      .def_property_readonly("task", [](const rl::Policy& p) { return p.info().task; })
      .def("act",
           [](const rl::Policy& p, const py::object& obs_arg) {
             const Array<float> obs = as_array<float>(obs_arg, "obs");
             FN_CHECK(obs.ndim() == 2, "obs: expected shape (rows, ", p.info().observation_dim, ")");
             const int rows = int(obs.shape(0));
             checked(obs, "obs", rows, p.info().observation_dim);
             py::array_t<float> out({rows, p.info().action_dim});
             rl::PolicyScratch s = p.make_scratch();
             p.act(obs.data(), rows, out.mutable_data(), s);
             return out;
           },
           py::arg("obs"), "Mean actions of raw observations");
  m.def(
      "export_onnx",
      [](const std::string& policy, const std::string& path, bool overwrite) {
        rl::export_policy_onnx(policy, path, overwrite);
      },
      py::arg("policy"), py::arg("path"), py::arg("overwrite") = false,
      "Writes the policy in directory `policy` as an ONNX graph at `path`: input 'observation' (batch, obs), "
      "output 'action' (batch, act), the mean action with the observation normalization inside. An existing "
      "file is replaced only with overwrite=True.");
}

}  // namespace

PYBIND11_MODULE(_flashnerd, m) {
  m.doc() = "FlashNeRD: streaming-transformer neural robot dynamics (models and vector environments)";
  bind_errors(m);
  bind_model(m);
  bind_vec_env(m);
  bind_robots_and_tasks(m);
  bind_datasets(m);
  bind_policy(m);
}
