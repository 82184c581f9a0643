#include "sim/generator.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>

#include "core/error.h"
#include "core/option_error.h"
#include "core/progress.h"
#include "core/rng.h"
#include "core/system_memory.h"
#include "sim/contact_rows.h"
#include "sim/contact_sensor.h"
#include "sim/probe_features.h"
#include "sim/samplers.h"
#include "sim/scene.h"

namespace flashnerd::sim {

namespace {


// Deepest penetration (>= 0) of a robot geom into anything that is not the robot, at md's
// positions. Self-contacts are left out: lifting the base cannot separate them.
double robot_penetration(const Robot& robot, const mjModel* m, mjData* md) {
  mj_fwdPosition(m, md);
  double depth = 0;
  for (int i = 0; i < md->ncon; ++i) {
    const mjContact& c = md->contact[i];
    const bool robot1 = robot.is_robot_body(m->geom_bodyid[c.geom1]);
    const bool robot2 = robot.is_robot_body(m->geom_bodyid[c.geom2]);
    if (robot1 != robot2) depth = std::max(depth, -c.dist);
  }
  return depth;
}

// Random states may start a link inside the floor or an object; the spec's tolerance says
// how much is acceptable. A floating base is lifted out (so the robot's lowest geometry ends
// up on or above the floor); a fixed base is resampled.
void resolve_initial_penetration(const Robot& robot, const mjModel* m, mjData* md,
                                 const StateSampler& states, Rng& rng) {
  const double tolerance = robot.spec().state.max_initial_penetration;
  if (tolerance < 0) return;
  for (int attempt = 0; attempt < 50; ++attempt) {
    double depth = robot_penetration(robot, m, md);
    if (depth <= tolerance) return;
    if (robot.floating_base()) {
      md->qpos[robot.qpos_offset() + 2] += depth + 0.005;
    } else {
      states.sample(rng, md->qpos + robot.qpos_offset(), md->qvel + robot.qvel_offset());
    }
  }
}

void check_plan(const Robot& robot, const GenerateOptions& o) {
  const CommandPlan& p = *o.plan;
  const StateLayout& s = robot.layout();
  FN_CHECK(!randomizes_scene(robot), "replaying commands needs a fixed scene; robot '", robot.name(),
           "' randomizes its scene per trajectory");
  FN_CHECK(s.na == 0, "replaying commands: robot '", robot.name(), "' has actuator activations, which a plan "
           "does not record");
  FN_CHECK(p.steps > 0 && (o.steps == 0 || o.steps == p.steps), "replaying commands: the plan has ", p.steps,
           " steps per trajectory, ", o.steps, " asked");
  const int64_t total = o.total_trajectories > 0 ? o.total_trajectories : o.trajectories;
  FN_CHECK(p.trajectories == total, "replaying commands: the plan has ", p.trajectories, " trajectories, the run ",
           total);
  FN_CHECK(p.qpos.size() == size_t(p.trajectories) * size_t(s.nq) &&
               p.qvel.size() == size_t(p.trajectories) * size_t(s.nv) &&
               p.ctrl.size() == size_t(p.trajectories) * size_t(p.steps) * size_t(s.nu),
           "replaying commands: the plan's arrays do not fit robot '", robot.name(), "' (nq ", s.nq, ", nv ", s.nv,
           ", nu ", s.nu, ")");
}

// What every trajectory of one run reads, and the dataset they fill (disjoint rows).
struct GenerationRun {
  const Robot& robot;
  const GenerateOptions& o;
  const StateSampler& states;
  Dataset& d;
  int steps;
  bool randomized;  // the scene is drawn per trajectory (each worker owns a model copy)
  const std::vector<ResolvedProbe>& probe_set;
};

struct Worker {
  mjModel* model = nullptr;  // own copy when the scene is randomized, else shared
  bool owns_model = false;
  mjData* data = nullptr;
  // rows from a detection-only copy with the spec's contact margin (when it is > 0)
  std::unique_ptr<ContactSensor> margin_sensor;
  ContactScratch scratch;
  std::unique_ptr<CommandSampler> commands;
  void open(const GenerationRun& run) {
    owns_model = run.randomized;
    model = run.randomized ? run.robot.copy_model() : const_cast<mjModel*>(run.robot.model());
    data = mj_makeData(model);
    commands = std::make_unique<CommandSampler>(run.robot);
    if (run.d.contact_capacity > 0 && run.robot.spec().contact_margin > 0)
      margin_sensor = std::make_unique<ContactSensor>(run.robot);
  }
  ~Worker() {
    if (data) mj_deleteData(data);
    if (owns_model) mj_deleteModel(model);
  }
};

// Writes whole trajectories with one worker: per frame the state and what is sensed there,
// then the command and the physics step; an invalid step restarts the trajectory.
class TrajectoryWriter {
 public:
  TrajectoryWriter(const GenerationRun& run, Worker& w)
      : r_(run), o_(run.o), d_(run.d), robot_(run.robot), w_(w), m_(w.model), md_(w.data),
        nq_(d_.layout.nq), nv_(d_.layout.nv), na_(d_.layout.na), nu_(d_.layout.nu),
        q0_(size_t(nq_)), v0_(size_t(nv_)), a0_(size_t(na_)),
        in_flight_(size_t(std::max(1, o_.actuator_delay)) * size_t(nu_)) {}

  // Trajectory n of this file, from the stream of its index in the run.
  void write(int64_t n) {
    const int64_t run_index = o_.first_trajectory + n;  // its index in the run: a shard's n counts from its first
    Rng rng = Rng::stream(o_.seed, uint64_t(run_index));
    // first draws of the stream: see sim/scene.h
    const Platform platform = r_.randomized ? apply_scene(robot_, m_, rng) : Platform{};
    restart(rng, platform, run_index);
    for (int t = 0; t <= r_.steps; ++t) {
      record_frame(run_index, n * (r_.steps + 1) + t);
      if (t == r_.steps) break;
      const int64_t tr = n * r_.steps + t;  // transition index
      send_command(rng, run_index, t, d_.ctrl.data() + tr * nu_);
      const bool ok = advance(tr);
      d_.valid[size_t(tr)] = ok ? 1 : 0;
      if (!ok) restart(rng, platform, run_index);  // a reset: the next frame starts a new stretch
    }
  }

 private:
  // A start state: the plan's as recorded (no penetration fix-up), or a sampled one.
  void restart(Rng& rng, const Platform& platform, int64_t planned) {
    mj_resetData(m_, md_);
    if (o_.plan) {
      robot_.set_state(md_, o_.plan->qpos.data() + planned * nq_, o_.plan->qvel.data() + planned * nv_);
    } else {
      r_.states.sample(rng, q0_.data(), v0_.data());
      if (na_ > 0) r_.states.sample_act(rng, a0_.data());
      if (r_.randomized && robot_.layout().floating_base)  // ground / edge / top, equally often
        place_start(platform, StartKind(rng.below(kStartKinds)), rng, q0_.data());
      robot_.set_state(md_, q0_.data(), v0_.data(), a0_.data());
      resolve_initial_penetration(robot_, m_, md_, r_.states, rng);
      w_.commands->reset(rng);
    }
    for (int k = 0; k < o_.actuator_delay; ++k)
      std::copy(robot_.nominal_ctrl().begin(), robot_.nominal_ctrl().end(), in_flight_.begin() + long(k) * nu_);
    ring_ = 0;
  }

  // Frame f of this file, of the run's trajectory run_index: the state, then contact rows and
  // probe features at exactly it.
  void record_frame(int64_t run_index, int64_t f) {
    const int K = d_.contact_capacity, P = d_.probe_count;
    robot_.get_state(md_, d_.qpos.data() + f * nq_, d_.qvel.data() + f * nv_, d_.act.data() + f * na_);
    mj_step1(m_, md_);  // positions, collisions and velocities of this exact state
    if (K > 0) {
      ContactRowsOut out{d_.contact_rows.data() + f * K * kContactRowDim, d_.contact_link.data() + f * K, 0, 0};
      if (w_.margin_sensor) {  // the recorded state, detected with the contact margin in its trajectory's scene
        w_.margin_sensor->place(o_.seed, run_index, d_.qpos.data() + f * nq_, d_.qvel.data() + f * nv_);
        w_.margin_sensor->detect(K, out);
      } else {
        build_contact_rows(robot_, m_, md_, K, w_.scratch, out);
      }
      d_.contact_count[size_t(f)] = out.count;
      d_.contact_overflow[size_t(f)] = out.overflow;
    }
    if (P > 0)
      build_probe_features(robot_, m_, md_, r_.probe_set, robot_.spec().probe_threshold,
                           d_.probes.data() + f * P * kProbeFeatureDim);
  }

  // Step t's command into u (recorded), applied now or, under a delay, queued behind the
  // oldest one in flight, which is applied instead.
  void send_command(Rng& rng, int64_t planned, int t, double* u) {
    if (o_.plan) {
      std::copy_n(o_.plan->ctrl.data() + (planned * r_.steps + t) * nu_, nu_, u);
    } else {
      w_.commands->next(rng, u);
    }
    if (o_.actuator_delay > 0) {
      double* oldest = in_flight_.data() + size_t(ring_) * size_t(nu_);
      robot_.set_ctrl(md_, oldest);
      std::copy(u, u + nu_, oldest);
      ring_ = (ring_ + 1) % o_.actuator_delay;
    } else {
      robot_.set_ctrl(md_, u);
    }
  }

  // Transition tr's physics (its free dynamics first, when recorded); false when MuJoCo
  // warned or the state came out non-finite or faster than max_velocity.
  bool advance(int64_t tr) {
    const int qp = robot_.qpos_offset(), qv = robot_.qvel_offset();  // the robot's block of qpos / qvel
    if (o_.free_dynamics) {
      mj_fwdActuation(m_, md_);
      mj_fwdAcceleration(m_, md_);
      for (int i = 0; i < nv_; ++i) d_.free_dv[size_t(tr * nv_ + i)] = md_->qacc_smooth[qv + i] * d_.timestep;
    }
    const int warnings = warning_total(md_);
    mj_step2(m_, md_);
    for (int s = 1; s < robot_.substeps(); ++s) mj_step(m_, md_);
    bool ok = warning_total(md_) == warnings;
    for (int i = 0; i < nq_ && ok; ++i) ok = std::isfinite(md_->qpos[qp + i]);
    for (int i = 0; i < nv_ && ok; ++i)
      ok = std::isfinite(md_->qvel[qv + i]) && std::fabs(md_->qvel[qv + i]) < o_.max_velocity;
    for (int i : robot_.act_indices()) ok = ok && std::isfinite(md_->act[i]);
    return ok;
  }

  const GenerationRun& r_;
  const GenerateOptions& o_;
  Dataset& d_;
  const Robot& robot_;
  Worker& w_;
  mjModel* m_;
  mjData* md_;
  const int nq_, nv_, na_, nu_;
  std::vector<double> q0_, v0_, a0_;  // a sampled start state
  // commands in flight under an actuator delay: a ring of the last `actuator_delay` sent
  std::vector<double> in_flight_;
  int ring_ = 0;
};

// The run's steps per trajectory, after checking the options against the robot.
int checked_steps(const Robot& robot, const GenerateOptions& o) {
  const int steps = o.plan ? o.plan->steps : o.steps > 0 ? o.steps : robot.spec().trajectory_steps;
  FN_CHECK_OPTION(o.trajectories > 0, "trajectories", "must be positive, got ", o.trajectories);
  FN_CHECK_OPTION(steps > 0, "steps", "must be positive, got ", steps);
  FN_CHECK_OPTION(o.actuator_delay >= 0 && o.actuator_delay <= 100, "actuator_delay",
                  "must be in [0, 100] control steps, got ", o.actuator_delay);
  FN_CHECK(!o.free_dynamics || robot.substeps() == 1,
           "free-dynamics targets need one physics step per control step; robot '", robot.name(),
           "' has ", robot.substeps());
  if (o.plan) check_plan(robot, o);
  return steps;
}

// The dataset's attributes and provenance, before any array is allocated.
Dataset dataset_header(const Robot& robot, const GenerateOptions& o, int steps) {
  const RobotSpec& spec = robot.spec();
  const auto& probe_set = robot.probes(o.climbing_probes);
  Dataset d;
  d.robot = robot.name();
  d.mjcf_hash = robot.mjcf_hash();
  d.actuator_model = spec.actuator_model;
  d.timestep = robot.control_timestep();
  d.seed = o.seed;
  d.layout = robot.layout();
  d.probe_count = o.probes ? int(probe_set.size()) : 0;
  d.contact_capacity = o.contacts ? spec.contact_capacity : 0;
  d.link_count = robot.link_count();
  d.generator = {{"spec", spec.to_json()},
                 {"steps", steps}, {"trajectories", o.trajectories}, {"contacts", o.contacts},
                 {"probes", d.probe_count > 0}, {"climbing_probes", o.climbing_probes},
                 {"free_dynamics", o.free_dynamics}, {"max_velocity", o.max_velocity}, {"substeps", robot.substeps()},
                 {"mujoco_version", mj_versionString()}};
  if (o.plan) d.generator["plan"] = o.plan->source;
  if (o.total_trajectories > 0) {
    FN_CHECK(o.first_trajectory >= 0 && o.first_trajectory + o.trajectories <= o.total_trajectories &&
                 o.shard_index >= 0 && o.shard_index < o.shard_count,
             "shard ", o.shard_index, "/", o.shard_count, ": trajectories ", o.first_trajectory, "..",
             o.first_trajectory + o.trajectories, " outside the run's ", o.total_trajectories);
    d.generator["shard"] = {{"index", o.shard_index},
                            {"count", o.shard_count},
                            {"first_trajectory", o.first_trajectory},
                            {"total_trajectories", o.total_trajectories}};
  }
  return d;
}

void check_fits(const Dataset& d, const Robot& robot, int64_t trajectories, int steps, bool free_dynamics,
                int copies = 1) {
  check_memory_fits(copies * d.allocation_bytes(trajectories, steps, free_dynamics),
                    str_cat(trajectories, " trajectories of ", steps, " steps of robot '", robot.name(), "'"),
                    str_cat("lower ", option_ref("trajectories"), " or ", option_ref("steps"),
                            ", or generate several files with different ", option_ref("seed"), "s"));
}

}  // namespace

void check_generation_fits(const Robot& robot, const GenerateOptions& o, int copies) {
  const int steps = o.plan ? o.plan->steps : o.steps > 0 ? o.steps : robot.spec().trajectory_steps;
  check_fits(dataset_header(robot, o, steps), robot, o.trajectories, steps, o.free_dynamics, copies);
}

GenerateSummary summarize_dataset(const Dataset& d, double seconds) {
  GenerateSummary s;
  s.transitions = d.trajectories * d.steps;
  int64_t valid = 0;
  for (uint8_t v : d.valid) valid += v;
  s.valid_fraction = double(valid) / double(s.transitions);
  if (d.contact_capacity > 0 && !d.contact_count.empty()) {
    s.contacts_min = *std::min_element(d.contact_count.begin(), d.contact_count.end());
    s.contacts_max = *std::max_element(d.contact_count.begin(), d.contact_count.end());
    double sum = 0;
    for (int32_t c : d.contact_count) sum += c;
    s.contacts_mean = sum / double(d.contact_count.size());
    for (int32_t c : d.contact_overflow) s.overflow_total += c;
  }
  s.seconds = seconds;
  s.transitions_per_second = double(s.transitions) / seconds;
  return s;
}

Dataset generate_dataset(const Robot& robot, const GenerateOptions& o, ThreadPool& pool,
                         GenerateSummary* summary) {
  const int steps = checked_steps(robot, o);
  Dataset d = dataset_header(robot, o, steps);
  check_fits(d, robot, o.trajectories, steps, o.free_dynamics);
  d.allocate(o.trajectories, steps, o.free_dynamics);

  const StateSampler states(robot);
  const GenerationRun run{robot, o, states, d, steps, randomizes_scene(robot), robot.probes(o.climbing_probes)};
  std::vector<Worker> workers(size_t(pool.size()));
  for (auto& w : workers) w.open(run);
  std::atomic<int64_t> done{0};
  ProgressLine progress("gen " + robot.name(), o.trajectories, "traj", o.progress);
  auto start = std::chrono::steady_clock::now();

  pool.parallel_for(o.trajectories, [&](int64_t begin, int64_t end, int wi) {
    TrajectoryWriter writer(run, workers[size_t(wi)]);
    for (int64_t n = begin; n < end; ++n) {
      writer.write(n);
      int64_t finished = ++done;
      if (wi == 0) progress.update(finished);
    }
  });
  progress.finish();

  if (summary)
    *summary = summarize_dataset(d, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return d;
}

}  // namespace flashnerd::sim
