#include "eval/coupled_rollout.h"

#include <chrono>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "core/frame_features.h"
#include "core/rng.h"
#include "core/rotation.h"
#include "core/stopwatch.h"
#include "sim/coupled_sim.h"
#include "sim/samplers.h"

namespace flashnerd::eval {

const EnumName<HandMotion> kHandMotionNames[3] = {
    {HandMotion::Grasp, "grasp"}, {HandMotion::Push, "push"}, {HandMotion::Random, "random"}};

HandMotion parse_hand_motion(const std::string& s) { return parse_enum(kHandMotionNames, s, "motion"); }
const char* hand_motion_name(HandMotion m) { return enum_name(kHandMotionNames, m); }

namespace {

// Commands (steps, envs, nu): position targets around the robot's nominal command.
// grasp: every finger joint but the abductions closes by 0.8 rad over 0.25 s, then holds;
// push: only the first two fingers' flexion joints close, sweeping into the object;
// random: the spec's command process, one seeded stream per environment.
std::vector<double> scripted_commands(const sim::Robot& robot, const CoupledOptions& o) {
  const mjModel* m = robot.model();
  const int nu = m->nu, E = o.envs, T = o.steps;
  std::vector<double> u(size_t(T) * E * nu);
  const auto& nominal = robot.nominal_ctrl();
  const int ramp = std::max(1, int(0.25 / robot.control_timestep()));
  for (int e = 0; e < E; ++e) {
    Rng rng = Rng::stream(o.seed, uint64_t(e));
    sim::CommandSampler sampler(robot);
    sampler.reset(rng);
    for (int t = 0; t < T; ++t) {
      double* ut = u.data() + (size_t(t) * E + e) * nu;
      if (o.motion == HandMotion::Random) {
        sampler.next(rng, ut);
        continue;
      }
      const double s = std::min(1.0, double(t) / ramp);
      for (int a = 0; a < nu; ++a) {
        const bool abduction = a % 4 == 0;  // joint 0 of each finger spreads, the rest flex
        const bool moves = !abduction && (o.motion == HandMotion::Grasp || a < 8);
        double v = nominal[size_t(a)] + (moves ? 0.8 * s : 0.0);
        if (m->actuator_ctrllimited[a])
          v = std::clamp(v, m->actuator_ctrlrange[2 * a], m->actuator_ctrlrange[2 * a + 1]);
        ut[a] = v;
      }
    }
  }
  return u;
}

}  // namespace

namespace {

// The model's and the scene's fitness for coupled stepping; returns the object's qpos address.
int check_coupled_inputs(const sim::Robot& scene, const ModelConfig& cfg, const CoupledOptions& o) {
  FN_CHECK(cfg.target == PredictionTarget::FreeVelocity, "coupled stepping needs a model trained to predict "
           "free_velocity (the robot's free motion); this one predicts '", target_name(cfg.target), "'");
  FN_CHECK(cfg.layout == scene.layout(), "the model is for robot '", cfg.robot, "', whose joints differ from scene '",
           scene.name(), "'");
  FN_CHECK(cfg.probe_dim == 0, "a coupled model reads no probes: contact comes from the solver");
  FN_CHECK(cfg.layout.na == 0, "coupled stepping imposes accelerations on robot joints; robot '", cfg.robot, "' has ",
           cfg.layout.na, " actuator activation states, which it does not advance: use actuators without dynamics");
  const mjModel* m = scene.model();
  const int object = mj_name2id(m, mjOBJ_BODY, o.object_body.c_str());
  FN_CHECK(object > 0 && !scene.is_robot_body(object), "scene '", scene.name(), "' has no object body '",
           o.object_body, "'");
  FN_CHECK(m->body_jntnum[object] == 1 && m->jnt_type[m->body_jntadr[object]] == mjJNT_FREE,
           "object '", o.object_body, "' must have one free joint");
  return m->jnt_qposadr[m->body_jntadr[object]];
}

void reset_to_home(const mjModel* m, mjData* d) {
  const int key = mj_name2id(m, mjOBJ_KEY, "home");
  if (key >= 0) mj_resetDataKeyframe(m, d, key);
  else mj_resetData(m, d);
}

// (steps, envs, nq) qpos of MuJoCo stepping the whole scene: the reference.
std::vector<double> analytical_trajectories(const mjModel* m, const std::vector<double>& commands, int E, int T,
                                            ThreadPool& pool) {
  const int nu = m->nu, nq = m->nq;
  std::vector<double> q(size_t(T) * E * nq);
  pool.parallel_for(E, [&](int64_t e0, int64_t e1, int) {
    mjData* d = mj_makeData(m);
    for (int64_t e = e0; e < e1; ++e) {
      reset_to_home(m, d);
      for (int t = 0; t < T; ++t) {
        std::memcpy(d->ctrl, commands.data() + (size_t(t) * E + e) * nu, sizeof(double) * nu);
        mj_step(m, d);
        std::memcpy(q.data() + (size_t(t) * E + e) * nq, d->qpos, sizeof(double) * nq);
      }
    }
    mj_deleteData(d);
  });
  return q;
}

// The same with the robot's free motion from the model (or MuJoCo's own: the oracle) and the
// contact solve coupling it to the object one way or two ways.
std::vector<double> coupled_trajectories(std::shared_ptr<const sim::Robot> scene, std::shared_ptr<const sim::Robot> alone,
                                         const engine::Model& model, const std::vector<double>& commands, int E, int T,
                                         bool one_way, bool oracle, ThreadPool& pool) {
  const mjModel* m = scene->model();
  const ModelConfig& cfg = model.config();
  const int nu = m->nu, nq = m->nq;
  std::vector<double> q(size_t(T) * E * nq);
  sim::CoupledSim sim(scene, alone, E, one_way ? sim::Coupling::OneWay : sim::Coupling::TwoWay, pool);
  mjData* init = mj_makeData(m);
  reset_to_home(m, init);
  for (int e = 0; e < E; ++e) sim.set_state(e, init->qpos, init->qvel);
  mj_deleteData(init);
  engine::ContextOptions copt;
  copt.max_batch = E;
  copt.pool = &pool;
  engine::Context ctx(model, copt);
  const StateCodec codec(cfg.layout);
  const FrameFeatures features(codec, 0);
  std::vector<float> x(size_t(E) * cfg.input_dim), y(size_t(E) * cfg.output_dim);
  std::vector<double> dv(size_t(E) * scene->layout().nv);
  for (int t = 0; t < T; ++t) {
    const double* ut = commands.data() + size_t(t) * E * nu;
    sim.begin_step(ut);
    if (oracle) {
      sim.oracle_free_dv(dv.data());
    } else {
      for (int e = 0; e < E; ++e)
        features.input(sim.robot_qpos(e), sim.robot_qvel(e), ut + size_t(e) * nu, nullptr,
                       x.data() + size_t(e) * cfg.input_dim);
      engine::step(model, ctx, E, x.data(), y.data());
      for (size_t i = 0; i < dv.size(); ++i) dv[i] = y[i];
    }
    sim.end_step(dv.data());
    for (int e = 0; e < E; ++e)
      std::memcpy(q.data() + (size_t(t) * E + e) * nq, sim.data(e)->qpos, sizeof(double) * nq);
  }
  return q;
}

// Per step, mean over environments: the object's position and orientation error and the
// robot's joint RMS error of `q` against the reference.
void add_errors(CoupledModeResult& r, const std::vector<double>& q, const std::vector<double>& ref, int E, int T,
                int nq, int nq_r, int obj_q) {
  for (int t = 0; t < T; ++t) {
    double pos = 0, ang = 0, hand = 0;
    for (int e = 0; e < E; ++e) {
      const double* a = q.data() + (size_t(t) * E + e) * nq;
      const double* b = ref.data() + (size_t(t) * E + e) * nq;
      double dp[3] = {a[obj_q] - b[obj_q], a[obj_q + 1] - b[obj_q + 1], a[obj_q + 2] - b[obj_q + 2]};
      pos += std::sqrt(dp[0] * dp[0] + dp[1] * dp[1] + dp[2] * dp[2]);
      double rv[3];
      rot::orientation_error(a + obj_q + 3, b + obj_q + 3, rv);
      ang += std::sqrt(rv[0] * rv[0] + rv[1] * rv[1] + rv[2] * rv[2]);
      for (int i = 0; i < nq_r; ++i) hand += (a[i] - b[i]) * (a[i] - b[i]);
    }
    r.cube_position_error.push_back(pos / E);
    r.cube_orientation_error.push_back(ang / E);
    r.hand_error.push_back(std::sqrt(hand / (double(E) * nq_r)));
  }
}

}  // namespace

CoupledResult run_coupled_comparison(std::shared_ptr<const sim::Robot> scene,
                                     std::shared_ptr<const sim::Robot> alone,
                                     std::shared_ptr<const engine::Model> model,
                                     const CoupledOptions& o, ThreadPool& pool) {
  const int obj_q = check_coupled_inputs(*scene, model->config(), o);
  const mjModel* m = scene->model();
  const int E = o.envs, T = o.steps, nq = m->nq, nq_r = scene->layout().nq;
  const auto commands = scripted_commands(*scene, o);

  CoupledResult result;
  result.dt = m->opt.timestep;
  std::vector<std::vector<double>> traj;  // (steps, envs, nq) trajectories of each mode
  const char* names[] = {"analytical", "two-way", "one-way", "two-way oracle"};
  for (int mode = 0; mode < 4; ++mode) {
    auto t0 = std::chrono::steady_clock::now();
    traj.push_back(mode == 0 ? analytical_trajectories(m, commands, E, T, pool)
                             : coupled_trajectories(scene, alone, *model, commands, E, T, mode == 2, mode == 3, pool));
    const std::vector<double>& q = traj.back();
    CoupledModeResult r;
    r.mode = names[mode];
    r.steps_per_second = double(E) * T / seconds_since(t0);
    for (int t = 0; t < T; ++t)
      r.first_env_qpos.insert(r.first_env_qpos.end(), q.begin() + long(size_t(t) * E * nq),
                              q.begin() + long(size_t(t) * E * nq + nq));
    add_errors(r, q, traj[0], E, T, nq, nq_r, obj_q);  // against the analytical reference
    result.modes.push_back(r);
  }
  for (int t = 0; t < T; ++t) {  // two-way against one-way: how far the object pushes the hand
    double s = 0;
    for (int e = 0; e < E; ++e) {
      const double* a = traj[1].data() + (size_t(t) * E + e) * nq;
      const double* b = traj[2].data() + (size_t(t) * E + e) * nq;
      for (int i = 0; i < nq_r; ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
    }
    result.hand_deflection.push_back(std::sqrt(s / (double(E) * nq_r)));
  }
  return result;
}

}  // namespace flashnerd::eval
