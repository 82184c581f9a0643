#include "env/task_terms.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <utility>

#include "core/error.h"
#include "core/rotation.h"

namespace flashnerd::env {

namespace {

std::string num(double x) { return str_cat(x); }

// ---- rewards -------------------------------------------------------------------------------

// Σ f(x − target) over a signal's components: l2 (squares), l1 (magnitudes), linear (values).
class SignalSum : public RewardFunction {
 public:
  enum class Form { L2, L1, Linear, Negated };
  SignalSum(Form form, Signal s, double target) : form_(form), s_(std::move(s)), target_(target) {}
  double value(const TermInput& in) override {
    double x[kMaxSignalWidth];
    in.signals.read(s_, in.backend, in.env, in.action, x);
    double sum = 0;
    for (int i = 0; i < s_.width(); ++i) {
      const double d = target_ == 0 ? x[i] : x[i] - target_;
      sum += form_ == Form::L2 ? d * d : form_ == Form::L1 ? std::fabs(d) : form_ == Form::Linear ? d : -d;
    }
    return sum;
  }
  std::string formula() const override {
    const std::string x = target_ == 0 ? s_.label : str_cat("(", s_.label, " − ", target_, ")");
    if (form_ == Form::Negated) return "−" + x;
    return form_ == Form::L2 ? "Σ " + x + "²" : form_ == Form::L1 ? "Σ |" + x + "|" : "Σ " + x;
  }

 private:
  Form form_;
  Signal s_;
  double target_;
};

// Σ (target − x)² of a signal and its target signal.
double squared_distance(const TermInput& in, const Signal& signal, const Signal& target) {
  double x[kMaxSignalWidth], t[kMaxSignalWidth];
  in.signals.read(signal, in.backend, in.env, in.action, x);
  in.signals.read(target, in.backend, in.env, in.action, t);
  double err = 0;
  for (int i = 0; i < signal.width(); ++i) err += (t[i] - x[i]) * (t[i] - x[i]);
  return err;
}

// exp(−Σ (target − x)² / σ) (track_exp) or |target − x| (track_distance): a signal against a
// commanded one of the same width.
class Tracking : public RewardFunction {
 public:
  Tracking(Signal s, Signal target, double sigma) : s_(std::move(s)), t_(std::move(target)), sigma_(sigma) {}
  double value(const TermInput& in) override {
    const double err = squared_distance(in, s_, t_);
    return sigma_ > 0 ? std::exp(-err / sigma_) : std::sqrt(err);
  }
  std::string formula() const override {
    const std::string e = str_cat("|", t_.label, " − ", s_.label, "|");
    return sigma_ > 0 ? str_cat("exp(−", e, "² / ", sigma_, ")") : e;
  }

 private:
  Signal s_, t_;
  double sigma_;
};

// 1 when a signal is within a distance of a target signal, else 0; gated on a command's
// redraw, it judges once per command period, on the period's last step (a reach task's success).
class Within : public RewardFunction {
 public:
  Within(Signal s, Signal target, double distance, int command)
      : s_(std::move(s)), t_(std::move(target)), distance_(distance), command_(command) {}
  double value(const TermInput& in) override {
    if (command_ >= 0 && !in.signals.command_period_ends(in.env, command_)) return 0;
    return squared_distance(in, s_, t_) <= distance_ * distance_ ? 1.0 : 0.0;
  }
  std::string formula() const override {
    return str_cat("1 if |", t_.label, " − ", s_.label, "| ≤ ", distance_,
                   command_ >= 0 ? " on the last step of each command period" : "", ", else 0");
  }
  int judged_command() const override { return command_; }

 private:
  Signal s_, t_;
  double distance_;
  int command_;
};

// sqrt(Σ x²) of n values, summed in order.
double length(const double* x, int n) {
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += x[i] * x[i];
  return std::sqrt(sum);
}

// One function of a signal: sqrt(Σ x²) (norm), 1 / (x + epsilon) of a single value (inverse,
// IsaacGymEnvs' rotation reward), or 1 when every component is below a bound, else 0 (below).
class SignalFunction : public RewardFunction {
 public:
  enum class Form { Norm, Inverse, Below };
  SignalFunction(Form form, Signal s, double parameter) : form_(form), s_(std::move(s)), p_(parameter) {}
  double value(const TermInput& in) override {
    double x[kMaxSignalWidth];
    in.signals.read(s_, in.backend, in.env, in.action, x);
    switch (form_) {
      case Form::Norm: return length(x, s_.width());
      case Form::Inverse: return 1.0 / (x[0] + p_);
      default: return std::all_of(x, x + s_.width(), [&](double y) { return y < p_; }) ? 1.0 : 0.0;
    }
  }
  std::string formula() const override {
    if (form_ == Form::Norm) return "|" + s_.label + "|";
    if (form_ == Form::Inverse) return str_cat("1 / (", s_.label, " + ", p_, ")");
    return str_cat("1 if ", s_.label, " < ", p_, ", else 0");
  }

 private:
  Form form_;
  Signal s_;
  double p_;
};

class ActionRate : public RewardFunction {
 public:
  double value(const TermInput& in) override {
    const TaskSignals& sg = in.signals;
    const double* last = sg.last_action(in.env);
    double sum = 0;
    for (int i = 0; i < sg.action_dim(); ++i) {
      const double a = sg.clamped_action(in.action, i);
      sum += (a - last[i]) * (a - last[i]);
    }
    return sum;
  }
  std::string formula() const override { return "Σ (a − a_previous)², a clamped to the action bound"; }
};

// A probe group's lowest clearance (m): a foot's height above the ground, or how near a body is
// to touching something.
double lowest_clearance(const double* clearance, const std::vector<int>& probes) {
  double lowest = 1e300;
  for (int p : probes) lowest = std::min(lowest, clearance[p]);
  return lowest;
}

// legged_gym's feet_air_time: at each touchdown (contact now or at the last step), the swing's
// air time minus target_seconds; 0 while the commanded planar speed is below moving_above.
class FeetAirTime : public RewardFunction {
 public:
  FeetAirTime(std::vector<std::vector<int>> feet, double clearance, double target, Signal command, double moving_above)
      : feet_(std::move(feet)), clearance_(clearance), target_(target), command_(std::move(command)),
        moving_above_(moving_above) {}
  void allocate(int envs) override {
    air_.assign(size_t(envs) * feet_.size(), 0.0);
    last_contact_.assign(size_t(envs) * feet_.size(), 0);
  }
  void reset_env(int env) override {
    std::fill_n(air_.data() + size_t(env) * feet_.size(), feet_.size(), 0.0);
    std::fill_n(last_contact_.data() + size_t(env) * feet_.size(), feet_.size(), 0);
  }
  void io_state(StateIo& io) override {
    io.io(air_);
    io.io(last_contact_);
  }
  double value(const TermInput& in) override {
    const double dt = in.signals.dt();
    const double* clearance = in.backend.probe_clearance(in.env);
    double air = 0;
    for (size_t f = 0; f < feet_.size(); ++f) {
      const size_t i = size_t(in.env) * feet_.size() + f;
      const bool contact = lowest_clearance(clearance, feet_[f]) < clearance_;
      const bool filtered = contact || last_contact_[i];
      last_contact_[i] = contact;
      air_[i] += dt;
      if (filtered && air_[i] > dt) air += air_[i] - target_;  // first contact
      if (filtered) air_[i] = 0;
    }
    if (command_.width() == 0) return air;
    double c[kMaxSignalWidth];
    in.signals.read(command_, in.backend, in.env, in.action, c);
    return std::hypot(c[0], c[1]) > moving_above_ ? air : 0.0;
  }
  std::string formula() const override {
    return str_cat("at each touchdown of ", feet_.size(), " feet (probe clearance below ", clearance_,
                   " m), the swing's air time minus ", target_, " s",
                   command_.width() ? str_cat("; 0 while |", command_.label, "| ≤ ", moving_above_) : "");
  }

 private:
  std::vector<std::vector<int>> feet_;
  double clearance_, target_;
  Signal command_;
  double moving_above_;
  std::vector<double> air_;
  std::vector<uint8_t> last_contact_;
};

// unitree_rl_gym's contact reward: per foot, 1 when its contact agrees with the gait clock, a
// foot being in stance while its phase ((t / period + offset) mod 1) is below stance_fraction.
class GaitContact : public RewardFunction {
 public:
  GaitContact(std::vector<std::vector<int>> feet, std::vector<double> offsets, double stance, double clearance)
      : feet_(std::move(feet)), offsets_(std::move(offsets)), stance_(stance), clearance_(clearance) {}
  double value(const TermInput& in) override {
    const double* clearance = in.backend.probe_clearance(in.env);
    double agree = 0;
    for (size_t f = 0; f < feet_.size(); ++f) {
      const bool contact = lowest_clearance(clearance, feet_[f]) < clearance_;
      const bool stance = in.signals.gait_phase(in.env, offsets_[f]) < stance_;
      agree += contact == stance ? 1.0 : 0.0;
    }
    return agree;
  }
  std::string formula() const override {
    std::string offsets;
    for (double o : offsets_) offsets += (offsets.empty() ? "" : ", ") + str_cat(o);
    return str_cat("Σ over ", feet_.size(), " feet of 1 where contact (probe clearance below ", clearance_,
                   " m) agrees with the gait clock: stance while (phase + offset) mod 1 < ", stance_, ", offsets ",
                   offsets);
  }

 private:
  std::vector<std::vector<int>> feet_;
  std::vector<double> offsets_;
  double stance_, clearance_;
};

// unitree_rl_gym's feet_swing_height: Σ over the feet off the ground of (height − target)², a
// foot's height being its lowest probe's clearance.
class FeetSwingHeight : public RewardFunction {
 public:
  FeetSwingHeight(std::vector<std::vector<int>> feet, double target, double clearance)
      : feet_(std::move(feet)), target_(target), clearance_(clearance) {}
  double value(const TermInput& in) override {
    const double* clearance = in.backend.probe_clearance(in.env);
    double sum = 0;
    for (const auto& foot : feet_) {
      const double height = lowest_clearance(clearance, foot);
      if (height >= clearance_) sum += (height - target_) * (height - target_);
    }
    return sum;
  }
  std::string formula() const override {
    return str_cat("Σ over ", feet_.size(), " feet off the ground (probe clearance ≥ ", clearance_,
                   " m) of (clearance − ", target_, " m)²");
  }

 private:
  std::vector<std::vector<int>> feet_;
  double target_, clearance_;
};

// legged_gym's dof_pos_limits: how far joints are beyond soft limits (a fraction of each range).
class JointLimits : public RewardFunction {
 public:
  JointLimits(Signal joints, std::vector<double> lo, std::vector<double> hi)
      : s_(std::move(joints)), lo_(std::move(lo)), hi_(std::move(hi)) {}
  double value(const TermInput& in) override {
    double q[kMaxSignalWidth];
    in.signals.read(s_, in.backend, in.env, in.action, q);
    double sum = 0;
    for (int i = 0; i < s_.width(); ++i) sum += std::max(0.0, lo_[size_t(i)] - q[i]) + std::max(0.0, q[i] - hi_[size_t(i)]);
    return sum;
  }
  std::string formula() const override { return "Σ distance of " + s_.label + " beyond its soft limits (rad)"; }

 private:
  Signal s_;
  std::vector<double> lo_, hi_;
};

class Constant : public RewardFunction {
 public:
  explicit Constant(bool on_termination) : on_termination_(on_termination) {}
  double value(const TermInput& in) override { return on_termination_ ? (in.terminated ? 1.0 : 0.0) : 1.0; }
  std::string formula() const override { return on_termination_ ? "1 at a termination" : "1 while the episode runs"; }

 private:
  bool on_termination_;
};

// Named bodies in contact (a probe of theirs closer than clearance): their count.
class BodyContact : public RewardFunction, public TerminationCondition {
 public:
  BodyContact(std::vector<std::vector<int>> bodies, double clearance) : bodies_(std::move(bodies)), clearance_(clearance) {}
  double value(const TermInput& in) override { return double(count(in)); }
  bool ended(const TermInput& in) const override { return count(in) > 0; }
  std::string formula() const override {
    return str_cat("bodies in contact among ", bodies_.size(), " (a probe closer than ", clearance_, " m)");
  }

 private:
  int count(const TermInput& in) const {
    const double* c = in.backend.probe_clearance(in.env);
    int n = 0;
    for (const auto& body : bodies_) n += lowest_clearance(c, body) < clearance_;
    return n;
  }
  std::vector<std::vector<int>> bodies_;
  double clearance_;
};

// The DeepMind Control Suite's tolerance: 1 while x is within bounds, falling off with the
// distance outside them over margin along a sigmoid that equals value_at_margin one margin away;
// the mean over the signal's components.
class Tolerance : public RewardFunction {
 public:
  enum class Sigmoid { Gaussian, Linear, Quadratic };
  Tolerance(Signal s, std::array<double, 2> bounds, double margin, Sigmoid sigmoid, double value_at_margin)
      : s_(std::move(s)), bounds_(bounds), margin_(margin), sigmoid_(sigmoid), value_at_margin_(value_at_margin),
        scale_(sigmoid == Sigmoid::Gaussian    ? std::sqrt(-2 * std::log(value_at_margin))
               : sigmoid == Sigmoid::Quadratic ? std::sqrt(1 - value_at_margin)
                                               : 1 - value_at_margin) {}
  double value(const TermInput& in) override {
    double x[kMaxSignalWidth];
    in.signals.read(s_, in.backend, in.env, in.action, x);
    double sum = 0;
    for (int i = 0; i < s_.width(); ++i) sum += tolerance(x[i]);
    return sum / s_.width();
  }
  std::string formula() const override {
    const char* names[] = {"gaussian", "linear", "quadratic"};
    return str_cat("tolerance(", s_.label, ": 1 within [", bounds_[0], ", ", bounds_[1], "], ",
                   names[int(sigmoid_)], " fall-off to ", value_at_margin_, " at ", margin_, " beyond)");
  }

 private:
  double tolerance(double x) const {
    if (x >= bounds_[0] && x <= bounds_[1]) return 1.0;
    if (margin_ == 0) return 0.0;
    const double d = (x < bounds_[0] ? bounds_[0] - x : x - bounds_[1]) / margin_;
    const double scaled = d * scale_;
    switch (sigmoid_) {
      case Sigmoid::Gaussian: return std::exp(-0.5 * scaled * scaled);
      case Sigmoid::Linear: return scaled < 1 ? 1 - scaled : 0.0;
      case Sigmoid::Quadratic: return scaled < 1 ? 1 - scaled * scaled : 0.0;
    }
    return 0.0;
  }
  Signal s_;
  std::array<double, 2> bounds_;
  double margin_;
  Sigmoid sigmoid_;
  double value_at_margin_;
  double scale_;  // of the distance, so that the sigmoid equals value_at_margin one margin away
};

// Π (floor + (1 − floor)·factor): the Control Suite's way of combining terms, each a reward
// function that stays in [0, 1], so that the product does too.
class Product : public RewardFunction {
 public:
  struct Factor {
    std::unique_ptr<RewardFunction> f;
    double floor;
  };
  explicit Product(std::vector<Factor> factors) : factors_(std::move(factors)) {}
  double value(const TermInput& in) override {
    double p = 1.0;
    for (auto& [f, floor] : factors_) p *= floor + (1 - floor) * f->value(in);
    return p;
  }
  std::string formula() const override {
    std::string s;
    for (const auto& [f, floor] : factors_) {
      s += s.empty() ? "" : " · ";
      s += floor == 0 ? "(" + f->formula() + ")" : str_cat("(", floor, " + ", 1 - floor, "·", f->formula(), ")");
    }
    return s;
  }
  void allocate(int envs) override {
    for (auto& factor : factors_) factor.f->allocate(envs);
  }
  void reset_env(int env) override {
    for (auto& factor : factors_) factor.f->reset_env(env);
  }
  void io_state(StateIo& io) override {
    for (auto& factor : factors_) factor.f->io_state(io);
  }

 private:
  std::vector<Factor> factors_;
};

// ---- terminations --------------------------------------------------------------------------

// A signal's component outside [min, max] (optionally its magnitude, angles wrapped to (−π, π]),
// or with norm the signal's length sqrt(Σ x²).
class Bounds : public TerminationCondition {
 public:
  Bounds(Signal s, double lo, double hi, bool magnitude, bool wrap, bool norm = false)
      : s_(std::move(s)), lo_(lo), hi_(hi), magnitude_(magnitude), wrap_(wrap), norm_(norm) {}
  bool ended(const TermInput& in) const override {
    double x[kMaxSignalWidth];
    in.signals.read(s_, in.backend, in.env, in.action, x);
    if (norm_) {
      const double y = length(x, s_.width());
      return y < lo_ || y > hi_;
    }
    bool out = false;
    for (int i = 0; i < s_.width(); ++i) {
      double y = wrap_ ? std::remainder(x[i], 2 * M_PI) : x[i];
      if (magnitude_) y = std::fabs(y);
      out = out || y < lo_ || y > hi_;
    }
    return out;
  }
  std::string formula() const override {
    std::string x = wrap_ ? "wrap(" + s_.label + ")" : s_.label;
    if (magnitude_ || norm_) x = "|" + x + "|";
    std::string s;
    if (lo_ > -1e300) s = str_cat(x, " < ", lo_);
    if (hi_ < 1e300) s += str_cat(s.empty() ? "" : " or ", x, " > ", hi_);
    return s;
  }

 private:
  Signal s_;
  double lo_, hi_;
  bool magnitude_, wrap_, norm_;
};

// ---- reset events --------------------------------------------------------------------------

// Joint positions or velocities: each joint in order + U(range) (add) or × U(range) (scale),
// then optionally clamped to each joint's [lo, hi] (its actuator's control range).
class JointUniform : public ResetEvent {
 public:
  JointUniform(bool velocity, std::vector<int> adr, std::string label, std::array<double, 2> range, bool scale,
               std::vector<std::array<double, 2>> clamp)
      : velocity_(velocity), adr_(std::move(adr)), label_(std::move(label)), range_(range), scale_(scale),
        clamp_(std::move(clamp)) {}
  void apply(Rng& rng, double* q, double* v) const override {
    double* x = velocity_ ? v : q;
    for (size_t i = 0; i < adr_.size(); ++i) {
      const int a = adr_[i];
      x[a] = scale_ ? x[a] * rng.uniform(range_[0], range_[1]) : x[a] + rng.uniform(range_[0], range_[1]);
      if (!clamp_.empty()) x[a] = std::clamp(x[a], clamp_[i][0], clamp_[i][1]);
    }
  }
  std::string formula() const override {
    return str_cat(label_, scale_ ? " × U(" : " + U(", range_[0], ", ", range_[1], ")",
                   clamp_.empty() ? "" : ", within each actuator's control range");
  }

 private:
  bool velocity_;
  std::vector<int> adr_;
  std::string label_;
  std::array<double, 2> range_;
  bool scale_;
  std::vector<std::array<double, 2>> clamp_;
};

// The scene's first object (a free body) at its home position ± position_noise in x and y, at a
// random yaw about the vertical, at rest (a cube placed on the palm).
class ObjectOnHome : public ResetEvent {
 public:
  ObjectOnHome(std::vector<double> home, double noise) : home_(std::move(home)), noise_(noise) {}
  void apply(Rng& rng, double* q, double* v) const override {
    q[0] = home_[0] + rng.uniform(-noise_, noise_);
    q[1] = home_[1] + rng.uniform(-noise_, noise_);
    q[2] = home_[2];
    rot::yaw_quat(rng.uniform(-M_PI, M_PI), q + 3);
    std::fill_n(v, 6, 0.0);
  }
  std::string formula() const override {
    return str_cat("the object at its home position ± ", noise_, " m in x and y, at a random yaw, at rest");
  }
  bool places_objects() const override { return true; }

 private:
  std::vector<double> home_;
  double noise_;
};

class SetJoints : public ResetEvent {
 public:
  SetJoints(std::vector<int> adr, std::vector<double> values, std::string label)
      : adr_(std::move(adr)), values_(std::move(values)), label_(std::move(label)) {}
  void apply(Rng&, double* q, double*) const override {
    for (size_t i = 0; i < adr_.size(); ++i) q[adr_[i]] = values_[i];
  }
  std::string formula() const override {
    std::string s = label_ + " = (";
    for (size_t i = 0; i < values_.size(); ++i) s += (i ? ", " : "") + num(values_[i]);
    return s + ")";
  }

 private:
  std::vector<int> adr_;
  std::vector<double> values_;
  std::string label_;
};

class BaseVelocityUniform : public ResetEvent {
 public:
  explicit BaseVelocityUniform(std::array<double, 2> range) : range_(range) {}
  void apply(Rng& rng, double*, double* v) const override {
    for (int i = 0; i < 6; ++i) v[i] = v[i] + rng.uniform(range_[0], range_[1]);
  }
  std::string formula() const override {
    return str_cat("base linear and angular velocities + U(", range_[0], ", ", range_[1], ")");
  }

 private:
  std::array<double, 2> range_;
};

class BaseHeightAtLeast : public ResetEvent {
 public:
  explicit BaseHeightAtLeast(double h) : h_(h) {}
  void apply(Rng&, double* q, double*) const override { q[2] = std::max(q[2], h_); }
  std::string formula() const override { return str_cat("base height raised to at least ", h_, " m"); }

 private:
  double h_;
};

// ---- parsing -------------------------------------------------------------------------------

template <class F>
using Parsers = std::vector<std::pair<const char*, std::function<F>>>;

template <class T, class F>
std::unique_ptr<T> dispatch(SpecReader& r, const Parsers<F>& table, const char* what, TaskSignals& signals) {
  const std::string term = r.string("term");
  for (const auto& [name, parse] : table)
    if (term == name) {
      auto out = parse(r, signals);
      r.finish();
      return out;
    }
  std::string known;
  for (const auto& [name, parse] : table) known += (known.empty() ? "" : ", ") + std::string(name);
  r.fail("term", str_cat("names ", what, " '", term, "'; the library has ", known));
}

Signal floating_signal(TaskSignals& s, SpecReader& r, const char* name, const std::vector<int>& index) {
  nlohmann::json j = {{"signal", name}, {"index", index}};
  SpecReader sub(j, r.file(), r.field(""));
  return s.parse(sub);
}

// An optional command signal ("command": NAME, components 0 and 1) gating a term.
Signal gate_command(SpecReader& r, TaskSignals& s) {
  if (!r.has("command")) return Signal{};  // no gate (width 0)
  nlohmann::json j = {{"signal", "command"}, {"command", r.string("command")}, {"index", {0, 1}}};
  SpecReader sub(j, r.file(), r.field(""));
  return s.parse(sub);
}

// A term's signal and its "target" signal of the same width.
std::pair<Signal, Signal> signal_and_target(SpecReader& r, TaskSignals& s) {
  Signal x = s.parse(r);
  SpecReader t = r.object("target");
  Signal target = s.parse(t);
  t.finish();
  if (target.width() != x.width())
    r.fail("target", str_cat("has ", target.width(), " components; the signal has ", x.width()));
  return {std::move(x), std::move(target)};
}

// A signal against its target; exp tracking reads "sigma" too.
std::unique_ptr<RewardFunction> tracking(SpecReader& r, TaskSignals& s, bool exp) {
  auto [x, target] = signal_and_target(r, s);
  const double sigma = exp ? r.number("sigma") : 0.0;
  if (exp && sigma <= 0) r.fail("sigma", str_cat("must be > 0, got ", sigma));
  return std::make_unique<Tracking>(x, target, sigma);
}

std::unique_ptr<RewardFunction> within(SpecReader& r, TaskSignals& s) {
  auto [x, target] = signal_and_target(r, s);
  const double distance = r.number("distance");
  if (!(distance > 0)) r.fail("distance", str_cat("must be > 0, got ", distance));
  int command = -1;
  if (r.has("when_redrawn")) {
    const std::string name = r.string("when_redrawn");
    command = s.command_index(name);
    if (command < 0) r.fail("when_redrawn", str_cat("names command '", name, "', which the task does not declare"));
    if (s.commands()[size_t(command)].resample_steps <= 0)
      r.fail("when_redrawn", str_cat("names command '", name, "', which is drawn once per episode; give it a "
                                     "\"resample_seconds\""));
  }
  return std::make_unique<Within>(x, target, distance, command);
}

std::unique_ptr<RewardFunction> tolerance(SpecReader& r, TaskSignals& s) {
  Signal x = s.parse(r);
  const std::array<double, 2> bounds = r.range_or("bounds", {0.0, 0.0});
  const double margin = r.number_or("margin", 0.0);
  if (margin < 0) r.fail("margin", str_cat("must be >= 0, got ", margin));
  const std::string sigmoid = r.string_or("sigmoid", "gaussian");
  Tolerance::Sigmoid kind = Tolerance::Sigmoid::Gaussian;
  if (sigmoid == "linear") kind = Tolerance::Sigmoid::Linear;
  else if (sigmoid == "quadratic") kind = Tolerance::Sigmoid::Quadratic;
  else if (sigmoid != "gaussian") r.fail("sigmoid", str_cat("must be gaussian, linear or quadratic, got '", sigmoid, "'"));
  const double at_margin = r.number_or("value_at_margin", 0.1);
  const bool gaussian = kind == Tolerance::Sigmoid::Gaussian;
  if (at_margin >= 1 || at_margin < 0 || (gaussian && at_margin == 0))
    r.fail("value_at_margin", str_cat("must be in ", gaussian ? "(0, 1)" : "[0, 1)", " for the ", sigmoid,
                                      " sigmoid, got ", at_margin));
  return std::make_unique<Tolerance>(x, bounds, margin, kind, at_margin);
}

std::unique_ptr<RewardFunction> product(SpecReader& r, TaskSignals& s) {
  std::vector<Product::Factor> factors;
  for (SpecReader& f : r.objects_or_empty("factors")) {
    const double floor = f.number_or("floor", 0.0);
    if (floor < 0 || floor >= 1) f.fail("floor", str_cat("must be in [0, 1), got ", floor));
    f.string_or("about", "");
    const std::string term = f.string("term");
    if (term != "tolerance" && term != "linear")
      f.fail("term", str_cat("is '", term, "'; a factor is a tolerance or a linear term"));
    factors.push_back({parse_reward_function(f, s), floor});
  }
  if (factors.empty()) r.fail("factors", "must list at least one factor");
  return std::make_unique<Product>(std::move(factors));
}

using RewardParser = std::unique_ptr<RewardFunction>(SpecReader&, TaskSignals&);
const Parsers<RewardParser>& reward_parsers() {
  static const Parsers<RewardParser> table = {
      {"l2", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<RewardFunction> {
         auto sig = s.parse(r);
         return std::make_unique<SignalSum>(SignalSum::Form::L2, sig, r.number_or("target", 0));
       }},
      {"l1", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<RewardFunction> {
         auto sig = s.parse(r);
         return std::make_unique<SignalSum>(SignalSum::Form::L1, sig, r.number_or("target", 0));
       }},
      {"linear", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<RewardFunction> {
         return std::make_unique<SignalSum>(SignalSum::Form::Linear, s.parse(r), 0.0);
       }},
      {"track_exp", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<RewardFunction> {
         return tracking(r, s, true);
       }},
      {"track_distance", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<RewardFunction> {
         return tracking(r, s, false);
       }},
      {"action_rate", [](SpecReader&, TaskSignals&) -> std::unique_ptr<RewardFunction> {
         return std::make_unique<ActionRate>();
       }},
      {"feet_air_time", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<RewardFunction> {
         auto feet = s.probe_groups(r, "feet");
         const double clearance = r.number_or("contact_clearance", 0.01);
         const double target = r.number_or("target_seconds", 0.5);
         Signal gate = gate_command(r, s);
         return std::make_unique<FeetAirTime>(feet, clearance, target, gate, r.number_or("moving_above", 0.1));
       }},
      {"gait_contact", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<RewardFunction> {
         if (!s.has_gait()) r.fail("term", "'gait_contact' needs the spec's \"gait\" (its period_seconds)");
         auto feet = s.probe_groups(r, "feet");
         std::vector<double> offsets(feet.size());  // default: evenly spaced (two feet alternate)
         for (size_t f = 0; f < feet.size(); ++f) offsets[f] = double(f) / double(feet.size());
         if (r.has("offsets")) offsets = r.numbers_or("offsets", int(feet.size()), 0.0);
         const double stance = r.number_or("stance_fraction", 0.55);
         if (!(stance > 0 && stance < 1)) r.fail("stance_fraction", str_cat("must be in (0, 1), got ", stance));
         return std::make_unique<GaitContact>(feet, offsets, stance, r.number_or("contact_clearance", 0.01));
       }},
      {"feet_swing_height", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<RewardFunction> {
         auto feet = s.probe_groups(r, "feet");
         return std::make_unique<FeetSwingHeight>(feet, r.number("target"), r.number_or("contact_clearance", 0.01));
       }},
      {"joint_limits", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<RewardFunction> {
         nlohmann::json j = {{"signal", "joint_pos"}};
         if (r.has("joints")) j["joints"] = r.raw("joints");
         SpecReader sub(j, r.file(), r.field(""));
         Signal q = s.parse(sub);
         const double soft = r.number_or("soft_fraction", 0.9);
         if (soft <= 0 || soft > 1) r.fail("soft_fraction", str_cat("must be in (0, 1], got ", soft));
         const mjModel* m = s.robot().model();
         std::vector<double> lo, hi;
         for (int j : q.components) {
           const int id = [&] {
             const std::string& n = s.robot().layout().joint_names[size_t(j)];
             return mj_name2id(m, mjOBJ_JOINT, n.c_str());
           }();
           if (id < 0 || !m->jnt_limited[id])
             r.fail("joints", str_cat("includes joint '", s.robot().layout().joint_names[size_t(j)],
                                      "', which has no range; name limited joints"));
           const double mid = 0.5 * (m->jnt_range[2 * id] + m->jnt_range[2 * id + 1]);
           const double half = 0.5 * (m->jnt_range[2 * id + 1] - m->jnt_range[2 * id]) * soft;
           lo.push_back(mid - half);
           hi.push_back(mid + half);
         }
         return std::make_unique<JointLimits>(q, lo, hi);
       }},
      {"within", within},
      {"norm", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<RewardFunction> {
         return std::make_unique<SignalFunction>(SignalFunction::Form::Norm, s.parse(r), 0.0);
       }},
      {"inverse", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<RewardFunction> {
         Signal x = s.parse(r);
         if (x.width() != 1) r.fail("signal", str_cat("selects ", x.width(), " components; inverse takes one"));
         const double epsilon = r.number("epsilon");
         if (!(epsilon > 0)) r.fail("epsilon", str_cat("must be > 0, got ", epsilon));
         return std::make_unique<SignalFunction>(SignalFunction::Form::Inverse, x, epsilon);
       }},
      {"below", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<RewardFunction> {
         Signal x = s.parse(r);
         return std::make_unique<SignalFunction>(SignalFunction::Form::Below, x, r.number("max"));
       }},
      {"tolerance", tolerance},
      {"product", product},
      {"alive", [](SpecReader&, TaskSignals&) -> std::unique_ptr<RewardFunction> { return std::make_unique<Constant>(false); }},
      {"termination", [](SpecReader&, TaskSignals&) -> std::unique_ptr<RewardFunction> {
         return std::make_unique<Constant>(true);
       }},
      {"upright", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<RewardFunction> {
         // −g_z of the projected gravity: 1 upright, 0 on its side
         return std::make_unique<SignalSum>(SignalSum::Form::Negated, floating_signal(s, r, "projected_gravity", {2}), 0.0);
       }},
      {"body_contact", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<RewardFunction> {
         return std::make_unique<BodyContact>(s.probe_groups(r, "bodies"), r.number_or("contact_clearance", 0.01));
       }},
  };
  return table;
}

using TerminationParser = std::unique_ptr<TerminationCondition>(SpecReader&, TaskSignals&);
const Parsers<TerminationParser>& termination_parsers() {
  static const Parsers<TerminationParser> table = {
      {"bounds", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<TerminationCondition> {
         Signal x = s.parse(r);
         if (!r.has("min") && !r.has("max")) r.fail("", "needs \"min\", \"max\" or both");
         const double lo = r.number_or("min", -1e308), hi = r.number_or("max", 1e308);
         const bool magnitude = r.boolean_or("magnitude", false), norm = r.boolean_or("norm", false);
         if (magnitude && norm) r.fail("norm", "and \"magnitude\" exclude each other");
         return std::make_unique<Bounds>(x, lo, hi, magnitude, r.boolean_or("wrap_angle", false), norm);
       }},
      {"tilt", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<TerminationCondition> {
         const double deg = r.number("max_degrees");
         if (deg <= 0 || deg >= 180) r.fail("max_degrees", str_cat("must be in (0, 180), got ", deg));
         return std::make_unique<Bounds>(floating_signal(s, r, "projected_gravity", {2}), -1e308,
                                         -std::cos(deg * M_PI / 180), false, false);
       }},
      {"body_contact", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<TerminationCondition> {
         return std::make_unique<BodyContact>(s.probe_groups(r, "bodies"), r.number_or("contact_clearance", 0.01));
       }},
  };
  return table;
}

using ResetParser = std::unique_ptr<ResetEvent>(SpecReader&, TaskSignals&);
std::unique_ptr<ResetEvent> joint_uniform(SpecReader& r, TaskSignals& s, bool velocity) {
  const std::vector<int> joints = s.joints(r, "joints");
  std::vector<int> adr;
  std::string label = velocity ? "joint velocities" : "joint positions";
  if (r.has("joints")) {
    label += " of";
    for (int j : joints) label += " " + s.robot().layout().joint_names[size_t(j)];
  }
  for (int j : joints) adr.push_back(velocity ? s.vadr(j) : s.qadr(j));
  const std::string mode = r.string_or("mode", "add");
  if (mode != "add" && mode != "scale") r.fail("mode", str_cat("must be add or scale, got '", mode, "'"));
  std::vector<std::array<double, 2>> clamp;
  const std::string within = r.string_or("clamp", "none");
  if (within != "none" && within != "control_range")
    r.fail("clamp", str_cat("must be none or control_range, got '", within, "'"));
  if (within == "control_range") {
    if (velocity) r.fail("clamp", "clamps joint positions only");
    for (int j : joints) clamp.push_back(s.joint_control_range(r, "joints", j));
  }
  return std::make_unique<JointUniform>(velocity, adr, label, r.range("range"), mode == "scale", clamp);
}

const Parsers<ResetParser>& reset_parsers() {
  static const Parsers<ResetParser> table = {
      {"joint_position_uniform", [](SpecReader& r, TaskSignals& s) { return joint_uniform(r, s, false); }},
      {"joint_velocity_uniform", [](SpecReader& r, TaskSignals& s) { return joint_uniform(r, s, true); }},
      {"set_joint_position", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<ResetEvent> {
         const std::vector<int> joints = s.joints(r, "joints");
         std::vector<int> adr;
         std::string label = "joint positions";
         for (int j : joints) {
           adr.push_back(s.qadr(j));
           label += " " + s.robot().layout().joint_names[size_t(j)];
         }
         return std::make_unique<SetJoints>(adr, r.numbers_or("values", int(joints.size()), 0.0), label);
       }},
      {"base_velocity_uniform", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<ResetEvent> {
         if (!s.robot().floating_base()) r.fail("term", "base_velocity_uniform needs a floating-base robot");
         return std::make_unique<BaseVelocityUniform>(r.range("range"));
       }},
      {"base_height_at_least", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<ResetEvent> {
         if (!s.robot().floating_base()) r.fail("term", "base_height_at_least needs a floating-base robot");
         return std::make_unique<BaseHeightAtLeast>(r.number("height"));
       }},
      {"object_on_home", [](SpecReader& r, TaskSignals& s) -> std::unique_ptr<ResetEvent> {
         if (s.object_home().size() < 7)
           r.fail("term", str_cat("object_on_home needs a free object in the scene; robot '", s.robot().name(),
                                  "' has none"));
         const double noise = r.number_or("position_noise", 0.0);
         if (noise < 0) r.fail("position_noise", str_cat("must be >= 0, got ", noise));
         return std::make_unique<ObjectOnHome>(s.object_home(), noise);
       }},
  };
  return table;
}

template <class Table>
std::string names_of(const Table& table) {
  std::string known;
  for (const auto& [name, parse] : table) known += (known.empty() ? "" : ", ") + std::string(name);
  return known;
}

}  // namespace

std::unique_ptr<RewardFunction> parse_reward_function(SpecReader& r, TaskSignals& signals) {
  return dispatch<RewardFunction>(r, reward_parsers(), "reward term", signals);
}
std::unique_ptr<TerminationCondition> parse_termination(SpecReader& r, TaskSignals& signals) {
  return dispatch<TerminationCondition>(r, termination_parsers(), "termination", signals);
}
std::unique_ptr<ResetEvent> parse_reset_event(SpecReader& r, TaskSignals& signals) {
  return dispatch<ResetEvent>(r, reset_parsers(), "reset event", signals);
}
std::string reward_function_names() { return names_of(reward_parsers()); }
std::string termination_names() { return names_of(termination_parsers()); }
std::string reset_event_names() { return names_of(reset_parsers()); }

}  // namespace flashnerd::env
