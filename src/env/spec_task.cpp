#include "env/spec_task.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/error.h"
#include "core/json_file.h"
#include "sim/robot_spec.h"

namespace flashnerd::env {

namespace fs = std::filesystem;

namespace {
constexpr int kSpecVersion = 1;

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string joined(const std::vector<std::string>& parts, const char* sep) {
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : sep) + p;
  return s;
}
}  // namespace

bool is_task_spec(const nlohmann::json& j) {
  return j.is_object() && j.contains("format") && j["format"] == "flashnerd-task";
}

std::unique_ptr<SpecTask> SpecTask::load(const std::string& path, const sim::Robot& robot) {
  return std::make_unique<SpecTask>(read_json_file(path, "task spec"), path, robot);
}

SpecTask::SpecTask(const nlohmann::json& spec, const std::string& file, const sim::Robot& robot)
    : source_(fs::absolute(file).lexically_normal().string()), signals_(robot) {
  SpecReader r(spec, file, "");
  if (!is_task_spec(spec)) r.fail("format", "must be \"flashnerd-task\" (a task spec; docs/TASKS.md has the schema)");
  r.string("format");
  const int version = r.integer_or("version", kSpecVersion);
  if (version != kSpecVersion) r.fail("version", str_cat("is ", version, "; this FlashNeRD reads version ", kSpecVersion));
  name_ = r.string("name");
  if (name_.empty() || name_.find_first_of(" /\\") != std::string::npos)
    r.fail("name", str_cat("must be a non-empty name without spaces or slashes, got '", name_, "'"));
  r.string("robot");  // resolved by spec_task_robot; the robot given must be the one it names
  summary_ = r.string_or("summary", "");
  const double dt = robot.control_timestep();
  control_steps_ = r.integer_or("control_steps", 1);
  if (control_steps_ < 1) r.fail("control_steps", str_cat("must be >= 1, got ", control_steps_));
  signals_.set_control_steps(control_steps_);
  if (r.has("episode_steps") == r.has("episode_seconds"))
    r.fail("episode_steps", "or \"episode_seconds\" is needed (one of the two)");
  if (r.has("episode_steps")) {
    episode_steps_ = r.integer_or("episode_steps", 0);
  } else {
    const double seconds = r.number("episode_seconds");
    episode_steps_ = int(std::lround(seconds / (dt * control_steps_)));
  }
  if (episode_steps_ < 1) r.fail("episode_steps", str_cat("gives ", episode_steps_, " steps per episode; it must be >= 1"));
  set_clip_negative_reward(r.boolean_or("only_positive_rewards", false));

  SpecReader action = r.object("action");
  const std::string map = action.string("map");
  const auto* kind = find_enum(kActionKindNames, map);
  if (!kind) action.fail("map", str_cat("names '", map, "'; action maps: ", enum_choices(kActionKindNames)));
  const double bound = action.number_or("bound", 1.0);
  if (bound <= 0) action.fail("bound", str_cat("must be > 0, got ", bound));
  if (signals_.action_dim() > kMaxSignalWidth)
    action.fail("map", str_cat("robot '", robot.name(), "' has ", signals_.action_dim(), " actuators; tasks take at most ",
                               kMaxSignalWidth));
  const double smoothing = action.number_or("smoothing", 1.0);
  if (!(smoothing > 0 && smoothing <= 1))
    action.fail("smoothing", str_cat("must be in (0, 1] (1: none; a: a · new + (1 − a) · previous), got ", smoothing));
  signals_.set_action_map(kind->value, action.number_or("scale", 1.0), bound, smoothing);
  action_about_ = action.string_or("about", "");
  action.finish();

  if (r.has("gait")) {  // before the terms that read its clock
    SpecReader gait = r.object("gait");
    const double period = gait.number("period_seconds");
    if (!(period > 0)) gait.fail("period_seconds", str_cat("must be > 0, got ", period));
    gait.string_or("about", "");
    gait.finish();
    signals_.set_gait_period(period);
  }
  parse_commands(r);
  parse_observations(r);
  parse_rewards(r);
  for (SpecReader& t : r.objects_or_empty("terminations")) {
    t.string_or("about", "");
    terminations_.push_back(parse_termination(t, signals_));
  }
  SpecReader reset = r.object("reset");
  const std::string pose = reset.string_or("pose", "nominal");
  if (pose != "nominal" && pose != "zero") reset.fail("pose", str_cat("must be nominal or zero, got '", pose, "'"));
  zero_pose_ = pose == "zero";
  reset_about_ = reset.string_or("about", "");
  for (SpecReader& e : reset.objects_or_empty("events")) {
    e.string_or("about", "");
    resets_.push_back(parse_reset_event(e, signals_));
    if (resets_.back()->places_objects()) e.fail("term", "places objects; list it under \"object_events\"");
  }
  for (SpecReader& e : reset.objects_or_empty("object_events")) {
    e.string_or("about", "");
    object_resets_.push_back(parse_reset_event(e, signals_));
    if (!object_resets_.back()->places_objects())
      e.fail("term", "sets the robot's start; list it under \"events\"");
  }
  for (const auto& c : signals_.commands())
    if (c.draw == CommandDraw::YawSteps && object_resets_.empty())
      reset.fail("object_events", str_cat("must place the object: command '", c.name, "' steps from its start"));
  reset.finish();
  termination_about_ = r.string_or("termination_about", "");
  r.finish();
}

void SpecTask::parse_commands(SpecReader& r) {
  for (SpecReader& c : r.objects_or_empty("commands")) {
    CommandSpec spec;
    spec.name = c.string("name");
    if (signals_.command_index(spec.name) >= 0) c.fail("name", str_cat("repeats command '", spec.name, "'"));
    const std::string draw = c.string_or("draw", "uniform");
    const auto* kind = find_enum(kCommandDrawNames, draw);
    if (!kind) c.fail("draw", str_cat("names '", draw, "'; draws: ", enum_choices(kCommandDrawNames)));
    spec.draw = kind->value;
    if (spec.orientation())
      parse_orientation(c, spec);
    else
      parse_uniform_ranges(c, spec);
    const double every = c.number_or("resample_seconds", 0);
    if (every < 0) c.fail("resample_seconds", str_cat("must be >= 0 (0: once per episode), got ", every));
    spec.resample_steps = every > 0 ? std::max(1, int(std::lround(every / signals_.dt()))) : 0;
    c.string_or("about", "");
    c.finish();
    signals_.add_command(std::move(spec));
  }
}

void SpecTask::parse_uniform_ranges(SpecReader& c, CommandSpec& spec) {
  const auto& ranges = c.raw("ranges");
  if (!ranges.is_array() || ranges.empty() || int(ranges.size()) > kMaxSignalWidth)
    c.fail("ranges", str_cat("must be a list of 1 to ", kMaxSignalWidth, " ranges [low, high], one per component"));
  for (size_t i = 0; i < ranges.size(); ++i) {
    const nlohmann::json holder = {{"range", ranges[i]}};
    SpecReader one(holder, c.file(), c.field(str_cat("ranges[", i, "]")));
    spec.ranges.push_back(one.range("range"));
  }
  spec.components = c.strings_or("components", {});
  if (!spec.components.empty() && spec.components.size() != spec.ranges.size())
    c.fail("components", str_cat("names ", spec.components.size(), " components for ", spec.ranges.size(), " ranges"));
  spec.stand_below = c.number_or("stand_below", 0);
  if (spec.stand_below > 0 && spec.ranges.size() < 2)
    c.fail("stand_below", "needs a planar command (at least two components)");
}

void SpecTask::parse_orientation(SpecReader& c, CommandSpec& spec) {
  if (c.has("ranges")) c.fail("ranges", "is for uniform draws; an orientation is drawn whole");
  spec.ranges.assign(4, {-1.0, 1.0});  // (w, x, y, z) of a unit quaternion
  spec.components = {"w", "x", "y", "z"};
  if (spec.draw == CommandDraw::YawSteps) {
    spec.yaw_step = c.number("yaw_step");
    if (!(spec.yaw_step > 0 && spec.yaw_step < M_PI)) c.fail("yaw_step", str_cat("must be in (0, π), got ", spec.yaw_step));
  }
  spec.redraw_within = c.number_or("redraw_within", 0);
  if (spec.redraw_within < 0) c.fail("redraw_within", str_cat("must be >= 0 (0: never), got ", spec.redraw_within));
  if (spec.draw == CommandDraw::YawSteps && !(spec.redraw_within > 0 && spec.yaw_step > spec.redraw_within))
    c.fail("redraw_within", str_cat("must be > 0 and below yaw_step (", spec.yaw_step, "), or each step is reached at once"));
}

void SpecTask::parse_observations(SpecReader& r) {
  for (SpecReader& o : r.objects_or_empty("observations")) {
    ObservationTerm t;
    t.signal = signals_.parse(o);
    if (t.signal.kind == SignalKind::Action || t.signal.kind == SignalKind::JointTorque || t.signal.kind == SignalKind::JointAcc)
      o.fail("signal", str_cat("'", enum_name(kSignalNames, t.signal.kind), "' is known only after a step; observe "
                               "last_action, joint_pos or joint_vel instead"));
    t.name = o.string_or("name", enum_name(kSignalNames, t.signal.kind));
    for (const auto& other : observations_)
      if (other.name == t.name) o.fail("name", str_cat("repeats observation '", t.name, "'; give each a \"name\""));
    t.scale = o.numbers_or("scale", t.signal.width(), 1.0);
    t.clip = o.number_or("clip", 0);
    if (t.clip < 0) o.fail("clip", str_cat("must be > 0 (or absent: no clip), got ", t.clip));
    t.about = o.string_or("about", "");
    o.finish();
    obs_dim_ += t.signal.width();
    observations_.push_back(std::move(t));
  }
}

void SpecTask::parse_rewards(SpecReader& r) {
  const double dt = signals_.dt();
  for (SpecReader& t : r.objects_or_empty("rewards")) {
    RewardTerm term;
    term.name = t.string("name");
    for (const auto& other : terms_)
      if (other.name == term.name) t.fail("name", str_cat("repeats reward term '", term.name, "'"));
    if (t.has("scale") == t.has("scale_per_step"))
      t.fail("scale", "or \"scale_per_step\" is needed (one of the two): the weight per second or per step");
    // per second, as every task's: a weight per step w is w / dt per second
    term.scale = t.has("scale") ? t.number("scale") : t.number("scale_per_step") * (1.0 / dt);
    term.after_clip = t.boolean_or("after_clip", false);
    term.objective = t.boolean_or("objective", false);
    reward_about_.push_back(t.string_or("about", ""));
    rewards_.push_back(parse_reward_function(t, signals_));
    terms_.push_back(term);
  }
}

std::vector<std::pair<std::string, int>> SpecTask::observation_terms() const {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& o : observations_) out.emplace_back(o.name, o.signal.width());
  for (const auto& set : batch_)
    for (const auto& column : set.terms->observation_terms()) out.push_back(column);
  return out;
}

void SpecTask::allocate(int envs) {
  FN_CHECK(obs_dim_ > 0, "task ", name_, " (", source_, ") observes nothing: list observation terms under "
           "\"observations\" in its spec, or add Python terms that declare observations");
  FN_CHECK(!terms_.empty(), "task ", name_, " (", source_, ") has no reward terms: list them under \"rewards\" "
           "in its spec, or add Python terms that declare rewards");
  envs_ = envs;
  signals_.allocate(envs);
  for (auto& r : rewards_) r->allocate(envs);
  for (auto& b : batch_) {
    b.values.assign(size_t(envs) * size_t(b.count), 0.0);
    b.terminated.assign(size_t(envs), 0);
    b.columns.assign(size_t(envs) * size_t(b.obs_width), 0.0f);
  }
}

void SpecTask::add_batch_terms(std::shared_ptr<BatchTerms> terms) {
  FN_CHECK(envs_ == 0, "task ", name_, ": batch terms are added before its environments are allocated");
  BatchSet b{terms, int(terms_.size()), 0, {}, {}, 0, 0, {}};
  for (const RewardTerm& t : terms->reward_terms()) {
    for (const auto& other : terms_)
      FN_CHECK(other.name != t.name, terms->source(), ": reward term '", t.name, "' is already a term of task ", name_,
               "; name it differently");
    terms_.push_back(t);
    reward_about_.push_back(terms->source());
    ++b.count;
  }
  b.obs_first = obs_dim_;
  for (const auto& [column, width] : terms->observation_terms()) {
    for (const auto& [other, w] : observation_terms())
      FN_CHECK(other != column, terms->source(), ": observation '", column, "' is already an observation of task ",
               name_, "; name it differently");
    FN_CHECK(width > 0, terms->source(), ": observation '", column, "' must be at least 1 wide, got ", width);
    b.obs_width += width;
  }
  obs_dim_ += b.obs_width;
  batch_obs_dim_ += b.obs_width;
  batch_.push_back(std::move(b));
}

int SpecTask::track_body(const std::string& body) {
  FN_CHECK(envs_ == 0, "task ", name_, ": bodies are tracked before its environments are allocated");
  nlohmann::json j = {{"signal", "body_pos"}, {"body", body}};
  SpecReader r(j, "batch terms of " + name_, "");
  return signals_.parse(r).slot;
}

void SpecTask::evaluate_batch(const Backend& b, const float* actions) {
  for (auto& set : batch_) {
    std::fill(set.terminated.begin(), set.terminated.end(), uint8_t(0));
    set.terms->evaluate(b, actions, set.values.data(), set.terminated.data());
  }
}

void SpecTask::reset(int env, Rng& rng, double* q, double* v) {
  FN_ASSERT(env >= 0 && env < envs_);  // allocate(envs) comes first
  const StateLayout& l = signals_.robot().layout();
  const auto& nominal = signals_.robot().nominal_qpos();
  if (zero_pose_) std::fill(q, q + l.nq, 0.0);
  else std::copy(nominal.begin(), nominal.end(), q);
  std::fill(v, v + l.nv, 0.0);
  for (const auto& e : resets_) e->apply(rng, q, v);
  signals_.start_episode(env, q);
  if (!hold_commands_) signals_.draw_commands(env, rng);
  for (int c = 0; c < int(signals_.commands().size()); ++c) signals_.restart_command(env, c);
  signals_.reset_env(env);
  for (auto& r : rewards_) r->reset_env(env);
}

bool SpecTask::reset_objects(int env, Rng& rng, double* q, double* v) {
  if (object_resets_.empty()) return false;
  for (const auto& e : object_resets_) e->apply(rng, q, v);
  if (!hold_commands_) signals_.place_objects(env, q);
  return true;
}

void SpecTask::command(int env, const float* action, double* u) const { signals_.command_of(env, action, u); }

bool SpecTask::evaluate(int env, const Backend& b, const float* action, Rng& rng, double* terms) {
  FN_ASSERT(env >= 0 && env < envs_);  // allocate(envs) comes first
  signals_.advance_gait_clock(env);  // the rewards judge the state this step reached
  TermInput in{signals_, b, env, action, false};
  for (const auto& set : batch_) in.terminated = in.terminated || set.terminated[size_t(env)];
  for (const auto& t : terminations_) in.terminated = in.terminated || t->ended(in);
  for (size_t k = 0; k < rewards_.size(); ++k) terms[k] = rewards_[k]->value(in);
  for (const auto& set : batch_)
    std::copy_n(set.values.data() + size_t(env) * size_t(set.count), set.count, terms + set.first_term);
  signals_.finish_step(b, env, action, rng, hold_commands_);
  return in.terminated;
}

void SpecTask::observe(int env, const Backend& b, float* obs) const {
  double x[kMaxSignalWidth];
  int k = 0;
  for (const auto& o : observations_) {
    signals_.read(o.signal, b, env, nullptr, x);
    for (int i = 0; i < o.signal.width(); ++i) {
      const double y = x[i] * o.scale[size_t(i)];
      obs[k++] = float(o.clip > 0 ? std::clamp(y, -o.clip, o.clip) : y);
    }
  }
}

void SpecTask::observe_batch(const Backend& b, float* const* rows) {
  for (auto& set : batch_) {
    if (set.obs_width == 0) continue;
    set.terms->observe(b, set.columns.data());
    for (int e = 0; e < envs_; ++e)
      if (rows[e] != nullptr)
        std::copy_n(set.columns.data() + size_t(e) * size_t(set.obs_width), set.obs_width, rows[e] + set.obs_first);
  }
}

void SpecTask::io_state(StateIo& io) {
  signals_.io_state(io);
  for (auto& r : rewards_) r->io_state(io);
  signals_.io_command_steps(io);
}

int SpecTask::judged_periods(size_t k) const {
  FN_CHECK(k < terms_.size(), "task ", name_, ": no reward term ", k);
  if (k >= rewards_.size()) return 0;  // a batch term
  const int c = rewards_[k]->judged_command();
  return c < 0 ? 0 : episode_steps_ / signals_.commands()[size_t(c)].resample_steps;
}

void SpecTask::set_command(int env, int c, const double* values) {
  FN_CHECK(c >= 0 && c < int(signals_.commands().size()), "task ", name_, ": no command ", c);
  std::copy_n(values, command_width(c), signals_.command(env, c));
  signals_.restart_command(env, c);
}

namespace {
std::string orientation_draw(const CommandSpec& c) {
  switch (c.draw) {
    case CommandDraw::Rotation: return "a uniformly random rotation";
    case CommandDraw::YawRotation: return "a random rotation about the vertical";
    default: return str_cat("each ", c.yaw_step, " rad further counter-clockwise about the vertical than the last (the "
                            "first from the object's start)");
  }
}
}  // namespace

TaskDescription SpecTask::describe() const {
  TaskDescription d;
  d.summary = summary_;
  for (const auto& c : signals_.commands()) {
    if (c.orientation()) {
      d.summary += str_cat(d.summary.empty() ? "" : " ", "Command '", c.name, "': an orientation (w, x, y, z), ",
                           orientation_draw(c), c.redraw_within > 0
                               ? str_cat("; the next at once when the object comes within ", c.redraw_within, " rad of it")
                               : "", ".");
      continue;
    }
    std::vector<std::string> parts;
    for (size_t i = 0; i < c.ranges.size(); ++i)
      parts.push_back(str_cat(c.components.empty() ? str_cat("c", i) : c.components[i], " ~ U(", c.ranges[i][0], ", ",
                              c.ranges[i][1], ")"));
    d.summary += str_cat(d.summary.empty() ? "" : " ", "Command '", c.name, "': ", joined(parts, ", "),
                         c.resample_steps ? str_cat(", redrawn every ", c.resample_steps, " steps") : ", once per episode",
                         c.stand_below > 0 ? str_cat("; planar commands under ", c.stand_below, " set to stand") : "", ".");
  }
  for (const auto& o : observations_) {
    std::string scale;
    bool unit = true;
    for (double s : o.scale) unit = unit && s == 1.0;
    if (!unit) {
      std::vector<std::string> s;
      for (double x : o.scale) s.push_back(str_cat(x));
      bool same = std::all_of(o.scale.begin(), o.scale.end(), [&](double x) { return x == o.scale[0]; });
      scale = " × " + (same ? s[0] : "(" + joined(s, ", ") + ")");
    }
    const std::string generated = o.signal.label + scale + (o.clip > 0 ? str_cat(", clipped to ±", o.clip) : "");
    d.observation.push_back({o.name, o.about.empty() ? generated : o.about + " (" + generated + ")"});
  }
  for (const auto& set : batch_)
    for (const auto& column : set.terms->observation_terms()) d.observation.push_back({column.first, set.terms->source()});
  d.action = action_about_.empty()
                 ? str_cat(enum_name(kActionKindNames, signals_.action_kind()), " × ", signals_.action_scale(),
                           ", actions clamped to ±", signals_.action_bound())
                 : action_about_;
  for (size_t k = 0; k < rewards_.size(); ++k) {
    const std::string f = rewards_[k]->formula();
    d.reward.push_back({terms_[k].name, reward_about_[k].empty() ? f : reward_about_[k] + ": " + f});
  }
  for (size_t k = rewards_.size(); k < terms_.size(); ++k) d.reward.push_back({terms_[k].name, reward_about_[k]});
  std::vector<std::string> ends;
  for (const auto& set : batch_)
    if (set.terms->terminates()) ends.push_back(set.terms->source() + "'s termination");
  for (const auto& t : terminations_) ends.push_back(t->formula());
  d.termination = termination_about_.empty() ? (ends.empty() ? "none (time-outs only)" : joined(ends, ", or "))
                                             : termination_about_;
  std::vector<std::string> starts = {zero_pose_ ? "all coordinates zero" : "the nominal pose", "at rest"};
  for (const auto& e : resets_) starts.push_back(e->formula());
  for (const auto& e : object_resets_) starts.push_back(e->formula());
  d.reset = reset_about_.empty() ? joined(starts, "; ") : reset_about_;
  return d;
}

int velocity_command_index(const SpecTask& task) {
  const int c = task.command_index("velocity");
  return c >= 0 && task.command_width(c) == 3 ? c : -1;
}

std::vector<std::string> builtin_spec_task_names() {
  std::vector<std::string> names;
  const fs::path dir = fs::path(sim::robots_directory()) / "tasks";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".json") continue;
    try {
      if (is_task_spec(read_json_file(entry.path().string(), "task spec"))) names.push_back(entry.path().stem().string());
    } catch (const Error&) {
      // a damaged built-in spec is reported when it is asked for, not when tasks are listed
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool is_task_spec_path(const std::string& name_or_path) { return ends_with(name_or_path, ".json"); }

std::string task_spec_path(const std::string& name_or_path) {
  if (is_task_spec_path(name_or_path)) {
    FN_CHECK(fs::is_regular_file(name_or_path), "task spec '", name_or_path,
             "' is not a readable file; give a spec file's path or a built-in task's name");
    return name_or_path;
  }
  const std::string path = sim::robots_directory() + "/tasks/" + name_or_path + ".json";
  // the folder is listed (every spec read) only to name the choices in the error
  FN_CHECK(name_or_path.find('/') == std::string::npos && fs::is_regular_file(path), "unknown task '", name_or_path,
           "'; built-in spec tasks: ", joined(builtin_spec_task_names(), ", "), " (or give a task spec file, NAME.json)");
  return path;
}

std::string spec_task_robot(const std::string& path) {
  return spec_task_robot(read_json_file(path, "task spec"), path, fs::path(path).parent_path().string());
}

std::string spec_task_robot(const nlohmann::json& j, const std::string& file, const std::string& folder) {
  SpecReader r(j, file, "");
  if (!is_task_spec(j)) r.fail("format", "must be \"flashnerd-task\" (a task spec; docs/TASKS.md has the schema)");
  const std::string robot = r.string("robot");
  const bool is_file = robot.find('/') != std::string::npos || ends_with(robot, ".json") || ends_with(robot, ".xml");
  if (!is_file) return robot;
  const fs::path p = fs::path(robot).is_absolute() ? fs::path(robot) : fs::path(folder) / robot;
  if (!fs::is_regular_file(p)) r.fail("robot", str_cat("names robot file ", p.string(), ", which does not exist"));
  return p.string();
}

}  // namespace flashnerd::env
