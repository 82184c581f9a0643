#include "python/python_terms.h"

#include <cmath>

#include "core/error.h"
#include "python/numpy_arrays.h"

namespace flashnerd::python {

namespace {

// A read-only numpy view of memory the environment owns: no copy (a base object tells numpy
// the memory is someone else's; an empty buffer, e.g. no probes, has no data pointer).
template <class T>
py::array read_only_view(const T* data, std::vector<py::ssize_t> shape, std::vector<py::ssize_t> strides) {
  py::array a(py::dtype::of<T>(), std::move(shape), std::move(strides), data, py::none());
  a.attr("setflags")(py::arg("write") = false);
  return a;
}

// Rows of `width` values in a buffer of `row_stride` values per environment.
template <class T>
py::array rows_view(const T* data, int envs, int width, int row_stride) {
  return read_only_view(data, {envs, width}, {py::ssize_t(sizeof(T)) * row_stride, py::ssize_t(sizeof(T))});
}

std::string type_name(const py::object& o) { return py::str(py::type::of(o).attr("__name__")); }

// A column a term returned: one value per environment.
template <class T>
void check_column(const Array<T>& a, const std::string& what, int envs) {
  FN_CHECK(a.ndim() == 1 && a.shape(0) == envs, what, ": expected shape (", envs, "), got ", a.ndim(), "-d array of ",
           a.size());
}

}  // namespace

PythonTerms::PythonTerms(py::object terms, env::SpecTask& task)
    : object_(std::move(terms)), source_("Python: " + type_name(object_)), task_(&task) {
  const py::object rewards = py::getattr(object_, "rewards", py::dict());
  FN_CHECK(py::isinstance<py::dict>(rewards), source_, ": rewards must be a dict of term name to scale per second, got ",
           type_name(rewards));
  for (const auto& [name, scale] : rewards.cast<py::dict>()) {
    FN_CHECK(py::isinstance<py::str>(name), source_, ": rewards' keys must be term names (str), got ",
             std::string(py::repr(name)));
    FN_CHECK(py::isinstance<py::float_>(scale) || py::isinstance<py::int_>(scale), source_, ": the scale of reward '",
             name.cast<std::string>(), "' must be a number, got ", std::string(py::repr(scale)));
    const double s = scale.cast<double>();
    FN_CHECK(std::isfinite(s), source_, ": the scale of reward '", name.cast<std::string>(), "' must be finite, got ", s);
    terms_.push_back({name.cast<std::string>(), s, false, false});
  }
  for (const py::handle name : py::getattr(object_, "objective", py::list())) {
    bool found = false;
    for (auto& t : terms_) found = found || (t.name == py::str(name).cast<std::string>() && (t.objective = true));
    FN_CHECK(found, source_, ": objective names '", std::string(py::str(name)), "', which rewards does not declare");
  }
  const bool has_reward = py::hasattr(object_, "reward") && PyCallable_Check(object_.attr("reward").ptr());
  FN_CHECK(terms_.empty() || has_reward, source_, " declares rewards but has no reward(state) method");
  terminates_ = py::hasattr(object_, "terminated") && PyCallable_Check(object_.attr("terminated").ptr());
  read_observations();
  FN_CHECK(!terms_.empty() || terminates_ || !observations_.empty(), source_, " declares no rewards, no observations "
           "and no terminated(state) method: it adds nothing");
  for (const py::handle body : py::getattr(object_, "bodies", py::list())) {
    FN_CHECK(py::isinstance<py::str>(body), source_, ": bodies must list body names (str), got ", std::string(py::repr(body)));
    const std::string name = body.cast<std::string>();
    bodies_.emplace_back(name, task.track_body(name));
  }
  for (const auto& t : terms_) labels_.push_back(str_cat(source_, ".reward(state)['", t.name, "']"));
  terminated_label_ = source_ + ".terminated(state)";
}

void PythonTerms::read_observations() {
  const py::object observations = py::getattr(object_, "observations", py::dict());
  FN_CHECK(py::isinstance<py::dict>(observations), source_, ": observations must be a dict of observation name to "
           "width, got ", type_name(observations));
  for (const auto& [name, width] : observations.cast<py::dict>()) {
    FN_CHECK(py::isinstance<py::str>(name), source_, ": observations' keys must be names (str), got ",
             std::string(py::repr(name)));
    const std::string n = name.cast<std::string>();
    FN_CHECK(py::isinstance<py::int_>(width) && width.cast<int64_t>() >= 1 && width.cast<int64_t>() <= 1 << 20, source_,
             ": the width of observation '", n, "' must be a whole number >= 1, got ", std::string(py::repr(width)));
    observations_.emplace_back(n, width.cast<int>());
    observation_width_ += width.cast<int>();
    observation_labels_.push_back(str_cat(source_, ".observe(state)['", n, "']"));
  }
  const bool has_observe = py::hasattr(object_, "observe") && PyCallable_Check(object_.attr("observe").ptr());
  FN_CHECK(observations_.empty() || has_observe, source_, " declares observations but has no observe(state) method");
}

void PythonTerms::bind(const env::Backend& b) {
  const int E = b.envs();
  buffers_.assign({b.q(0), b.v(0), b.probe_clearance(0)});  // the capacity stays: no allocation per step
  const auto& commands = task_->commands();
  for (size_t c = 0; c < commands.size(); ++c) buffers_.push_back(task_->command_values(0, int(c)));
  if (b.tracked_body_count() > 0) buffers_.push_back(b.body_pose(0, 0));
  if (buffers_ == bound_) return;
  bound_ = buffers_;
  py::dict body_pos, body_quat, command_views;
  const int pose_stride = 7 * b.tracked_body_count();
  for (const auto& [name, slot] : bodies_) {
    body_pos[py::str(name)] = rows_view(b.body_pose(0, slot), E, 3, pose_stride);
    body_quat[py::str(name)] = rows_view(b.body_pose(0, slot) + 3, E, 4, pose_stride);
  }
  for (size_t c = 0; c < commands.size(); ++c) {
    const int width = task_->command_width(int(c));
    command_views[py::str(commands[c].name)] = rows_view(task_->command_values(0, int(c)), E, width, width);
  }
  py::dict fields;
  fields["num_envs"] = E;
  fields["dt"] = b.control_timestep() * task_->control_steps();
  fields["q"] = rows_view(b.q(0), E, b.nq(), b.nq());
  fields["v"] = rows_view(b.v(0), E, b.nv(), b.nv());
  fields["probe_clearance"] = rows_view(b.probe_clearance(0), E, b.probe_count(), b.probe_count());
  fields["body_pos"] = body_pos;
  fields["body_quat"] = body_quat;
  fields["commands"] = command_views;
  fields["actions"] = py::none();
  state_ = py::module_::import("types").attr("SimpleNamespace")(**fields);
  actions_ = nullptr;
}

void PythonTerms::evaluate(const env::Backend& b, const float* actions, double* values, uint8_t* terminated) {
  py::gil_scoped_acquire gil;
  bind(b);
  const int E = b.envs(), A = task_->action_dim();
  if (actions != actions_) {
    state_.attr("actions") = rows_view(actions, E, A, A);
    actions_ = actions;
  }
  if (!terms_.empty()) {
    const py::object out = object_.attr("reward")(state_);
    FN_CHECK(py::isinstance<py::dict>(out), source_, ".reward(state) must return a dict of term name to values, got ",
             type_name(out));
    const py::dict columns = out.cast<py::dict>();
    const int count = int(terms_.size());
    for (int k = 0; k < count; ++k) {
      const std::string& name = terms_[size_t(k)].name;
      FN_CHECK(columns.contains(name), source_, ".reward(state) returned no '", name, "'");
      const std::string& what = labels_[size_t(k)];
      const Array<double> column = as_array<double>(columns[py::str(name)], what.c_str());
      check_column(column, what, E);
      const double* x = column.data();
      for (int e = 0; e < E; ++e) {
        FN_CHECK(std::isfinite(x[e]), what, " is ", x[e], " in environment ", e, "; a reward must be finite");
        values[size_t(e) * size_t(count) + size_t(k)] = x[e];
      }
    }
  }
  if (terminates_) {
    const Array<bool> ended = as_array<bool>(object_.attr("terminated")(state_), terminated_label_.c_str());
    check_column(ended, terminated_label_, E);
    for (int e = 0; e < E; ++e) terminated[e] = ended.data()[e] ? 1 : 0;
  }
}

void PythonTerms::observe(const env::Backend& b, float* columns) {
  py::gil_scoped_acquire gil;
  bind(b);
  const py::object out = object_.attr("observe")(state_);
  FN_CHECK(py::isinstance<py::dict>(out), source_, ".observe(state) must return a dict of observation name to values, "
           "got ", type_name(out));
  const py::dict given = out.cast<py::dict>();
  const int E = b.envs();
  int first = 0;
  for (size_t k = 0; k < observations_.size(); ++k) {
    const auto& [name, width] = observations_[k];
    const std::string& what = observation_labels_[k];
    FN_CHECK(given.contains(name), source_, ".observe(state) returned no '", name, "'");
    const Array<float> a = as_array<float>(given[py::str(name)], what.c_str());
    // a column of width 1 may come as (num_envs,)
    const float* x = width == 1 && a.ndim() == 1 ? (check_column(a, what, E), a.data()) : checked(a, what.c_str(), E, width);
    for (int e = 0; e < E; ++e) {
      for (int i = 0; i < width; ++i) {
        const float value = x[size_t(e) * size_t(width) + size_t(i)];
        FN_CHECK(std::isfinite(value), what, " is ", value, " in environment ", e, "; an observation must be finite");
        columns[size_t(e) * size_t(observation_width_) + size_t(first + i)] = value;
      }
    }
    first += width;
  }
}

void add_python_terms(const py::object& terms, env::Task& task) {
  if (terms.is_none()) return;
  auto* spec = dynamic_cast<env::SpecTask*>(&task);
  FN_CHECK(spec, "terms: task ", task.name(), " is not a spec task (robots/tasks/ lists them); Python terms extend "
           "spec tasks");
  const bool many = py::isinstance<py::list>(terms) || py::isinstance<py::tuple>(terms);
  py::list list = many ? py::list(terms) : py::list();
  if (!many) list.append(terms);
  for (const py::handle t : list) spec->add_batch_terms(std::make_shared<PythonTerms>(py::reinterpret_borrow<py::object>(t), *spec));
}

}  // namespace flashnerd::python
