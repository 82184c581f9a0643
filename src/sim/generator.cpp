#include "sim/generator.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>

#include "core/error.h"
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

struct Worker {
  mjModel* model = nullptr;  // own copy when the scene is randomized, else shared
  bool owns_model = false;
  mjData* data = nullptr;
  // rows from a detection-only copy with the spec's contact margin (when it is > 0)
  std::unique_ptr<ContactSensor> margin_sensor;
  ContactScratch scratch;
  std::unique_ptr<CommandSampler> commands;
  ~Worker() {
    if (data) mj_deleteData(data);
    if (owns_model) mj_deleteModel(model);
  }
};

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
                 {"steps", steps},
                 {"trajectories", o.trajectories},
                 {"contacts", o.contacts},
                 {"probes", d.probe_count > 0},
                 {"climbing_probes", o.climbing_probes},
                 {"free_dynamics", o.free_dynamics},
                 {"max_velocity", o.max_velocity},
                 {"substeps", robot.substeps()},
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
                    str_cat("--trajectories ", trajectories, " of ", steps, " steps of robot '", robot.name(), "'"),
                    "lower --trajectories or --steps, or generate several files with different --seed");
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
  const RobotSpec& spec = robot.spec();
  const int steps = o.plan ? o.plan->steps : o.steps > 0 ? o.steps : spec.trajectory_steps;
  FN_CHECK(o.trajectories > 0, "--trajectories must be positive, got ", o.trajectories);
  FN_CHECK(steps > 0, "--steps must be positive, got ", steps);
  FN_CHECK(o.actuator_delay >= 0 && o.actuator_delay <= 100, "--actuator-delay must be in [0, 100] control steps, got ", o.actuator_delay);
  FN_CHECK(!o.free_dynamics || robot.substeps() == 1,
           "free-dynamics targets need one physics step per control step; robot '", robot.name(),
           "' has ", robot.substeps());
  const auto& probe_set = robot.probes(o.climbing_probes);
  if (o.plan) check_plan(robot, o);

  Dataset d = dataset_header(robot, o, steps);
  check_fits(d, robot, o.trajectories, steps, o.free_dynamics);
  d.allocate(o.trajectories, steps, o.free_dynamics);

  const int nq = d.layout.nq, nv = d.layout.nv, na = d.layout.na, nu = d.layout.nu;
  const int K = d.contact_capacity, P = d.probe_count;
  const int qp = robot.qpos_offset(), qv = robot.qvel_offset();  // the robot's block of qpos / qvel
  const bool randomized = randomizes_scene(robot);
  std::vector<Worker> workers(size_t(pool.size()));
  for (auto& w : workers) {
    w.owns_model = randomized;
    w.model = randomized ? robot.copy_model() : const_cast<mjModel*>(robot.model());
    w.data = mj_makeData(w.model);
    w.commands = std::make_unique<CommandSampler>(robot);
    if (K > 0 && spec.contact_margin > 0) {
      w.margin_sensor = std::make_unique<ContactSensor>(robot);
    }
  }
  StateSampler states(robot);
  std::atomic<int64_t> done{0};
  ProgressLine progress("gen " + robot.name(), o.trajectories, "traj", o.progress);
  auto start = std::chrono::steady_clock::now();

  pool.parallel_for(o.trajectories, [&](int64_t begin, int64_t end, int wi) {
    Worker& w = workers[size_t(wi)];
    mjModel* m = w.model;
    mjData* md = w.data;
    std::vector<double> q0(static_cast<size_t>(nq)), v0(static_cast<size_t>(nv)), a0(static_cast<size_t>(na));
    // commands in flight under an actuator delay: a ring of the last `actuator_delay` sent
    std::vector<double> in_flight(size_t(std::max(1, o.actuator_delay)) * size_t(nu));
    int ring = 0;
    for (int64_t n = begin; n < end; ++n) {
      Rng rng = Rng::stream(o.seed, uint64_t(o.first_trajectory + n));
      // first draws of the stream: see sim/scene.h
      const Platform platform = randomized ? apply_scene(robot, m, rng) : Platform{};
      const int64_t planned = o.first_trajectory + n;  // this trajectory's row of the plan
      auto restart = [&] {
        mj_resetData(m, md);
        if (o.plan) {  // the plan's start state, as recorded (no penetration fix-up)
          robot.set_state(md, o.plan->qpos.data() + planned * nq, o.plan->qvel.data() + planned * nv);
        } else {
          states.sample(rng, q0.data(), v0.data());
          if (na > 0) states.sample_act(rng, a0.data());
          if (randomized && robot.layout().floating_base)  // ground / edge / top, equally often
            place_start(platform, StartKind(rng.below(kStartKinds)), rng, q0.data());
          robot.set_state(md, q0.data(), v0.data(), a0.data());
          resolve_initial_penetration(robot, m, md, states, rng);
          w.commands->reset(rng);
        }
        for (int k = 0; k < o.actuator_delay; ++k)
          std::copy(robot.nominal_ctrl().begin(), robot.nominal_ctrl().end(), in_flight.begin() + long(k) * nu);
        ring = 0;
      };
      restart();
      for (int t = 0; t <= steps; ++t) {
        const int64_t f = n * (steps + 1) + t;  // frame index
        robot.get_state(md, d.qpos.data() + f * nq, d.qvel.data() + f * nv, d.act.data() + f * na);
        mj_step1(m, md);  // positions, collisions and velocities of this exact state
        if (K > 0) {
          ContactRowsOut out{d.contact_rows.data() + f * K * kContactRowDim,
                             d.contact_link.data() + f * K, 0, 0};
          if (w.margin_sensor) {  // the recorded state, detected with the contact margin
            w.margin_sensor->place(o.seed, n, d.qpos.data() + f * nq, d.qvel.data() + f * nv);
            w.margin_sensor->detect(K, out);
          } else {
            build_contact_rows(robot, m, md, K, w.scratch, out);
          }
          d.contact_count[size_t(f)] = out.count;
          d.contact_overflow[size_t(f)] = out.overflow;
        }
        if (P > 0) {
          build_probe_features(robot, m, md, probe_set, spec.probe_threshold,
                               d.probes.data() + f * P * kProbeFeatureDim);
        }
        if (t == steps) break;
        const int64_t tr = n * steps + t;  // transition index
        double* u = d.ctrl.data() + tr * nu;
        if (o.plan) {
          std::copy_n(o.plan->ctrl.data() + (planned * steps + t) * nu, nu, u);
        } else {
          w.commands->next(rng, u);
        }
        if (o.actuator_delay > 0) {  // apply the oldest command in flight, queue this one
          double* oldest = in_flight.data() + size_t(ring) * size_t(nu);
          robot.set_ctrl(md, oldest);
          std::copy(u, u + nu, oldest);
          ring = (ring + 1) % o.actuator_delay;
        } else {
          robot.set_ctrl(md, u);
        }
        if (o.free_dynamics) {
          mj_fwdActuation(m, md);
          mj_fwdAcceleration(m, md);
          for (int i = 0; i < nv; ++i) d.free_dv[size_t(tr * nv + i)] = md->qacc_smooth[qv + i] * d.timestep;
        }
        const int warnings = warning_total(md);
        mj_step2(m, md);
        for (int s = 1; s < robot.substeps(); ++s) mj_step(m, md);
        bool ok = warning_total(md) == warnings;
        for (int i = 0; i < nq && ok; ++i) ok = std::isfinite(md->qpos[qp + i]);
        for (int i = 0; i < nv && ok; ++i) ok = std::isfinite(md->qvel[qv + i]) && std::fabs(md->qvel[qv + i]) < o.max_velocity;
        for (int i : robot.act_indices()) ok = ok && std::isfinite(md->act[i]);
        d.valid[size_t(tr)] = ok ? 1 : 0;
        if (!ok) restart();  // a reset: the next frame starts a new stretch
      }
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
