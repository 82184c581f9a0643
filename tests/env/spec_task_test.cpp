// Spec tasks: each built-in task's spec (robots/tasks/) replays the tape of MuJoCo episodes with
// random actions recorded from the C++ task it replaced (tests/data/task_tapes/): the same
// observations, reward terms, rewards, terminations, time-outs, commands and reset states, bit
// for bit, through resets. Bad specs are refused before any step, naming the file, the field and
// the fix.
#include "env/spec_task.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/json_file.h"
#include "env/mujoco_backend.h"
#include "env/vec_env.h"
#include "testing/task_tape.h"

namespace flashnerd::env {
namespace {

using testing::ReplayBackend;
using testing::TaskTape;

std::unique_ptr<SpecTask> builtin(const std::string& name, const sim::Robot& robot) {
  return SpecTask::load(task_spec_path(name), robot);
}

std::string tape_path(const std::string& task) {
  return std::string(FLASHNERD_SOURCE_DIR) + "/tests/data/task_tapes/" + task + ".tape";
}

// Replays `tape` to `task`: the first difference (terms, rewards, ends, observations, or the
// commands and reset states the replay backend checks), or "" when every step equals the tape.
std::string replay_difference(Task& task, const std::shared_ptr<const sim::Robot>& robot, const TaskTape& tape) {
  const nlohmann::json& h = tape.header;
  nlohmann::json terms = nlohmann::json::array(), observation = nlohmann::json::array();
  for (const RewardTerm& t : task.reward_terms())
    terms.push_back({{"name", t.name}, {"scale", t.scale}, {"after_clip", t.after_clip}, {"objective", t.objective}});
  for (const auto& [name, width] : task.observation_terms()) observation.push_back({name, width});
  if (terms != h.at("reward_terms")) return "reward terms " + terms.dump() + " vs " + h.at("reward_terms").dump();
  if (observation != h.at("observation_terms")) return "observation terms " + observation.dump();
  if (task.episode_steps() != h.at("episode_steps") || task.action_bound() != h.at("action_bound"))
    return "episode steps or action bound";
  ThreadPool pool(2);
  ReplayBackend backend(robot, tape, pool);
  VecEnv vec(task, backend, pool, h.at("env_seed").get<uint64_t>());
  if (vec.observation_dim() != tape.obs || vec.action_dim() != tape.act) return "observation or action size";
  const size_t ob = size_t(tape.envs) * size_t(tape.obs), obs_row = size_t(tape.obs);
  vec.reset_all();
  if (!std::equal(vec.observations(), vec.observations() + ob, tape.observations.begin())) return "first observations";
  const float* final_want = tape.final_observations.data();  // the ended episodes', in order
  for (int s = 0; s < tape.steps; ++s) {
    const size_t se = size_t(s) * size_t(tape.envs);
    vec.step(tape.actions.data() + se * size_t(tape.act));
    const std::string at = "step " + std::to_string(s) + " ";
    for (int e = 0; e < tape.envs; ++e) {
      const std::string where = at + "env " + std::to_string(e) + ": ";
      const double* want = tape.term_values.data() + (se + size_t(e)) * size_t(tape.terms);
      for (int k = 0; k < tape.terms; ++k)
        if (vec.term_values(e)[k] != want[k])
          return where + "term " + task.reward_terms()[size_t(k)].name + " " + std::to_string(vec.term_values(e)[k]) +
                 " vs " + std::to_string(want[k]);
      if (vec.rewards()[e] != tape.rewards[se + size_t(e)]) return where + "reward";
      if (vec.terminated()[e] != tape.terminated[se + size_t(e)]) return where + "terminated";
      if (vec.timed_out()[e] != tape.timed_out[se + size_t(e)]) return where + "timed out";
      const float* final_got = vec.final_observations() + size_t(e) * obs_row;
      if (!vec.terminated()[e] && !vec.timed_out()[e]) continue;
      if (final_want == tape.final_observations.data() + tape.final_observations.size()) return where + "an end too many";
      if (!std::equal(final_got, final_got + obs_row, final_want)) return where + "final observation";
      final_want += obs_row;
    }
    if (!std::equal(vec.observations(), vec.observations() + ob, tape.observations.begin() + long(se + size_t(tape.envs)) * long(obs_row)))
      return at + "observations";
  }
  for (int e = 0; e < tape.envs; ++e)
    if (!backend.mismatches()[size_t(e)].empty()) return "env " + std::to_string(e) + ": " + backend.mismatches()[size_t(e)];
  return "";
}

// The built-in spec `task` against the tape recorded from the C++ task it replaced; returns the
// episodes that ended on the tape.
int64_t replay_builtin(const char* task) {
  const TaskTape tape = TaskTape::load(tape_path(task));
  auto robot = sim::Robot::load(spec_task_robot(task_spec_path(task)));
  auto spec = builtin(task, *robot);
  EXPECT_EQ(replay_difference(*spec, robot, tape), "") << task;
  return tape.header.at("episodes_ended").get<int64_t>();
}

TEST(SpecTask, QuadrupedVelocityReplaysItsCppTasksEpisodes) {
  // commands redrawn (every 250 steps), falls and resets on the way
  EXPECT_GT(replay_builtin("quadruped-velocity"), 0);
}

TEST(SpecTask, CartpoleBalanceReplaysItsCppTasksEpisodes) { EXPECT_GT(replay_builtin("cartpole-balance"), 16); }

TEST(SpecTask, CartpoleSwingupReplaysItsCppTasksEpisodes) { EXPECT_GT(replay_builtin("cartpole-swingup"), 16); }

// 310 steps of 2 hands, 8 control steps each: drops, and time-outs at 300
TEST(SpecTask, CubeReorientVariantsReplayTheirCppTasksEpisodes) {
  for (const char* task : {"cube-reorient", "cube-reorient-reduced", "cube-reorient-rotate"})
    EXPECT_GE(replay_builtin(task), 2) << task;
}

// The replay backend checks what a task gives it: the commands of each step and each reset's state.
TEST(SpecTask, ReplayBackendNamesOtherCommandsAndResetStates) {
  const TaskTape tape = TaskTape::load(tape_path("cartpole-balance"));
  auto robot = sim::Robot::load("cartpole");
  ThreadPool pool(1);
  ReplayBackend backend(robot, tape, pool);
  for (int e = 0; e < tape.envs; ++e) {
    const double* start = tape.reset_row(0, e);
    const double other[2] = {start[0] + 1e-9, start[1]};
    backend.reset(e, e == 1 ? other : start, start + 2);
  }
  std::vector<double> u(tape.commands.begin(), tape.commands.begin() + tape.envs * tape.nu);
  u[size_t(2 * tape.nu)] += 1e-9;
  backend.step(u.data());
  EXPECT_EQ(backend.mismatches()[0], "");
  EXPECT_EQ(backend.mismatches()[1], "another reset state at phase 0");
  EXPECT_EQ(backend.mismatches()[2], "other commands at phase 0");
  EXPECT_EQ(backend.q(0)[0], tape.physics_row(0, 0)[0]) << "a step loads the tape's state";
}

// The replay sees a change anywhere in a task: a reward's parameter, a reset's range, an action's
// scale, an observation's scale, a termination's bound.
TEST(SpecTask, ReplayCatchesAChangedTerm) {
  const TaskTape tape = TaskTape::load(tape_path("quadruped-velocity"));
  auto robot = sim::Robot::load("quadruped");
  const nlohmann::json good = read_json_file(task_spec_path("quadruped-velocity"), "spec");
  auto difference = [&](const nlohmann::json& spec) {
    SpecTask task(spec, "changed.json", *robot);
    return replay_difference(task, robot, tape);
  };
  ASSERT_EQ(difference(good), "");
  nlohmann::json j = good;
  j["rewards"][0]["sigma"] = j["rewards"][0]["sigma"].get<double>() * 1.001;
  EXPECT_NE(difference(j).find("term " + good["rewards"][0]["name"].get<std::string>()), std::string::npos);
  j = good;
  j["observations"][0]["scale"] = 2.5;
  EXPECT_NE(difference(j), "");
  j = good;
  j["terminations"][0]["min"] = 0.5;
  EXPECT_NE(difference(j), "");
  j = good;
  j["action"]["scale"] = 0.49;
  EXPECT_NE(difference(j).find("term torques"), std::string::npos) << difference(j);
  j = good;
  j["reset"]["events"][2]["range"] = {-0.5, 0.49};
  EXPECT_NE(difference(j).find("another reset state"), std::string::npos) << difference(j);
}

// The new spec-only tasks load, step, and describe every term they declare.
TEST(SpecTask, NewTasksStepOnMuJoCo) {
  for (const char* name : {"humanoid-velocity", "arm7-reach"}) {
    auto robot = sim::Robot::load(spec_task_robot(task_spec_path(name)));
    auto task = builtin(name, *robot);
    ThreadPool pool(2);
    MujocoBackend backend(robot, 4, pool);
    VecEnv env(*task, backend, pool, 1);
    env.reset_all();
    std::vector<float> actions(size_t(4) * size_t(env.action_dim()), 0.1f);
    for (int s = 0; s < 20; ++s) env.step(actions.data());
    for (int i = 0; i < 4 * env.observation_dim(); ++i) ASSERT_TRUE(std::isfinite(env.observations()[i])) << name;
    const TaskDescription d = task->describe();
    EXPECT_EQ(d.reward.size(), task->reward_terms().size()) << name;
    EXPECT_EQ(d.observation.size(), task->observation_terms().size()) << name;
  }
}

// The swing-up's small-control factor reads the action as the policy gives it (docs/TASKS.md
// says so): beyond the bound an action earns the factor's floor but pushes no harder.
TEST(SpecTask, SwingupControlFactorReadsTheUnclampedActionWhileThePhysicsGetsTheClamp) {
  auto robot = sim::Robot::load("cartpole");
  auto run = [&](float action, double* reward) {
    auto task = builtin("cartpole-swingup", *robot);
    ThreadPool pool(1);
    MujocoBackend backend(robot, 1, pool);
    VecEnv env(*task, backend, pool, 3);
    env.reset_all();
    env.step(&action);
    *reward = env.term_values(0)[0];
    return std::vector<double>(backend.q(0), backend.q(0) + robot->layout().nq);
  };
  double at_bound = 0, beyond = 0, half = 0;
  const std::vector<double> q_bound = run(1.0f, &at_bound), q_beyond = run(2.0f, &beyond);
  run(0.5f, &half);
  EXPECT_EQ(q_bound, q_beyond) << "an action beyond the bound pushed differently";
  EXPECT_EQ(at_bound, beyond) << "both are at or beyond the margin: the factor's floor";
  EXPECT_GT(half, at_bound);
  EXPECT_GE(at_bound, 0.0);
}

// arm7-reach reads the hand's world position: the backend tracks it, MuJoCo's xpos equals it.
TEST(SpecTask, BodyPositionIsTheBodysWorldPosition) {
  auto robot = sim::Robot::load("arm7");
  auto task = builtin("arm7-reach", *robot);
  ThreadPool pool(1);
  MujocoBackend backend(robot, 2, pool);
  VecEnv env(*task, backend, pool, 3);
  env.reset_all();
  const mjModel* m = robot->model();
  mjData* d = mj_makeData(m);
  std::copy_n(backend.q(1), m->nq, d->qpos);
  mj_kinematics(m, d);
  const int hand = mj_name2id(m, mjOBJ_BODY, "hand");
  int offset = 0;
  for (const auto& [name, width] : task->observation_terms()) {
    if (name == "hand_pos") break;
    offset += width;
  }
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(env.observations()[size_t(env.observation_dim() + offset + i)], float(d->xpos[3 * hand + i]));
  mj_deleteData(d);
}

// arm7-reach's success term judges each target once, on the last step of its period: 1 with
// the hand on the target, 0 a step earlier or 10 cm away; policy-eval divides by two periods.
TEST(SpecTask, WithinJudgesEachCommandPeriodOnItsLastStep) {
  auto robot = sim::Robot::load("arm7");
  auto task = builtin("arm7-reach", *robot);
  size_t success = 0;
  while (task->reward_terms()[success].name != "success") ++success;
  EXPECT_EQ(task->judged_periods(success), 2);
  EXPECT_EQ(task->judged_periods(0), 0) << "the distance term judges no periods";
  ThreadPool pool(1);
  MujocoBackend backend(robot, 1, pool);
  backend.track_bodies(task->tracked_bodies());
  task->allocate(1);
  Rng rng(5);
  std::vector<double> q(size_t(robot->layout().nq)), v(size_t(robot->layout().nv));
  task->reset(0, rng, q.data(), v.data());
  backend.set_state(0, q.data(), v.data());
  const int target = task->command_index("target");
  const double* hand = backend.body_pose(0, 0);
  const int period = task->episode_steps() / 2;
  std::vector<float> action(size_t(task->action_dim()), 0.0f);
  std::vector<double> terms(task->reward_terms().size());
  auto judged = [&](double offset) {
    const double at[3] = {hand[0] + offset, hand[1], hand[2]};
    task->set_command(0, target, at);  // restarts the period
    double sum = 0;
    for (int s = 0; s < period; ++s) {
      task->evaluate(0, backend, action.data(), rng, terms.data());
      if (s < period - 1) {
        EXPECT_EQ(terms[success], 0.0) << "step " << s << " judged before the period's end";
      }
      sum += terms[success];
    }
    return sum;
  };
  EXPECT_EQ(judged(0.0), 1.0);
  EXPECT_EQ(judged(0.049), 1.0);
  EXPECT_EQ(judged(0.1), 0.0);
}

std::string write_spec(const std::string& name, nlohmann::json j) {
  const std::string path = ::testing::TempDir() + "/" + name + ".json";
  std::ofstream(path) << j.dump(1);
  return path;
}

std::string refusal(const nlohmann::json& spec, const sim::Robot& robot) {
  const std::string path = write_spec("bad_spec", spec);
  try {
    SpecTask::load(path, robot);
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

// The term library's tolerance is the Control Suite's: 1 within bounds, value_at_margin one
// margin beyond, for each sigmoid; a product multiplies floor + (1 − floor)·factor.
TEST(SpecTask, ToleranceAndProductFollowTheControlSuite) {
  auto robot = sim::Robot::load("cartpole");
  auto reward_at = [&](const nlohmann::json& term, double x) {
    nlohmann::json spec = read_json_file(task_spec_path("cartpole-balance"), "spec");
    spec["rewards"] = nlohmann::json::array({term});
    spec["rewards"][0]["name"] = "probe";
    spec["rewards"][0]["scale_per_step"] = 1.0;
    auto task = SpecTask::load(write_spec("tolerance", spec), *robot);
    ThreadPool pool(1);
    MujocoBackend backend(robot, 1, pool);
    task->allocate(1);
    const double q[2] = {x, 0.0}, v[2] = {0.0, 0.0};
    backend.set_state(0, q, v);
    Rng rng(1);
    const float action = 0.0f;
    double value = 0;
    task->evaluate(0, backend, &action, rng, &value);
    return value;
  };
  const nlohmann::json cart = {{"term", "tolerance"}, {"signal", "joint_pos"}, {"joints", {"slider"}},
                               {"bounds", {-0.25, 0.25}}, {"margin", 1.0}};
  for (const char* sigmoid : {"gaussian", "linear", "quadratic"}) {
    nlohmann::json t = cart;
    t["sigmoid"] = sigmoid;
    t["value_at_margin"] = 0.2;
    EXPECT_EQ(reward_at(t, 0.1), 1.0) << sigmoid;
    EXPECT_NEAR(reward_at(t, 1.25), 0.2, 1e-12) << sigmoid;
    EXPECT_NEAR(reward_at(t, -1.25), 0.2, 1e-12) << sigmoid;
    EXPECT_GT(reward_at(t, 0.75), 0.2) << sigmoid;
    EXPECT_LT(reward_at(t, 0.75), 1.0) << sigmoid;
  }
  nlohmann::json linear = cart;
  linear["sigmoid"] = "linear";
  linear["value_at_margin"] = 0.0;
  EXPECT_EQ(reward_at(linear, 2.0), 0.0) << "beyond the margin a linear fall-off stays at 0";
  nlohmann::json product = {{"term", "product"}, {"factors", {cart, cart}}};
  product["factors"][1]["floor"] = 0.5;
  const double t = reward_at(cart, 0.75);
  EXPECT_NEAR(reward_at(product, 0.75), t * (0.5 + 0.5 * t), 1e-15);
  // refusals name the field
  auto refused = [&](const nlohmann::json& term, const std::string& field) {
    try {
      reward_at(term, 0.0);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("'rewards[0]." + field + "'"), std::string::npos) << e.what();
      return;
    }
    ADD_FAILURE() << "accepted " << term.dump();
  };
  nlohmann::json bad = product;
  bad["factors"][1]["floor"] = 1.0;
  refused(bad, "factors[1].floor");
  bad = product;
  bad["factors"][0]["term"] = "l2";
  refused(bad, "factors[0].term");
  bad = cart;
  bad["value_at_margin"] = 0.0;  // a Gaussian never reaches 0
  refused(bad, "value_at_margin");
  bad = cart;
  bad["sigmoid"] = "cosine";
  refused(bad, "sigmoid");
}

TEST(SpecTask, BadSpecsAreRefusedNamingFileFieldAndFix) {
  auto robot = sim::Robot::load("quadruped");
  const nlohmann::json good = read_json_file(task_spec_path("quadruped-velocity"), "spec");
  ASSERT_EQ(refusal(good, *robot), "accepted");
  auto expect_refused = [&](nlohmann::json bad, const std::string& field, const std::string& words) {
    const std::string msg = refusal(bad, *robot);
    EXPECT_NE(msg.find("bad_spec.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'" + field + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find(words), std::string::npos) << msg;
  };
  nlohmann::json j = good;
  j["rewards"][2]["term"] = "l3";
  expect_refused(j, "rewards[2].term", "the library has l2, l1");
  j = good;
  j["rewards"][0].erase("sigma");
  expect_refused(j, "rewards[0].sigma", "is missing");
  j = good;
  j["rewards"][0]["sigma"] = -1;
  expect_refused(j, "rewards[0].sigma", "must be > 0");
  j = good;
  j["terminations"][0]["min"] = "NaN";
  expect_refused(j, "terminations[0].min", "must be a number");
  j = good;
  j["terminations"][0]["signal"] = "body_pos";
  j["terminations"][0]["body"] = "LF_FOOT_TYPO";
  expect_refused(j, "terminations[0].body", "not a body of robot 'quadruped'");
  j = good;
  j["observations"][0]["scael"] = 2;
  expect_refused(j, "observations[0].scael", "remove it or fix its spelling");
  j = good;
  j["rewards"][8]["command"] = "speed";
  expect_refused(j, "rewards[8].command", "names command 'speed'");
  j = good;
  j["observations"][4]["joints"] = {"LF_HAA", "knee"};
  expect_refused(j, "observations[4].joints", "lacks; its joints:");
  j = good;
  j["format"] = "something";
  expect_refused(j, "format", "flashnerd-task");
  j = good;  // 2^32 is not component 0, nor 2^64-1 a negative count
  j["rewards"][0]["index"] = {0, 4294967296LL};
  expect_refused(j, "rewards[0].index", "must list component indices");
  j = good;
  j["control_steps"] = 18446744073709551615ULL;
  expect_refused(j, "control_steps", "got 18446744073709551615");
  // a fixed-base robot has no base velocity
  auto arm = sim::Robot::load("arm7");
  j = read_json_file(task_spec_path("arm7-reach"), "spec");
  j["observations"][0] = {{"signal", "base_lin_vel"}};
  const std::string msg = refusal(j, *arm);
  EXPECT_NE(msg.find("needs a floating-base robot"), std::string::npos) << msg;
  // a success judged at redraws needs a command that is redrawn
  j = read_json_file(task_spec_path("arm7-reach"), "spec");
  j["commands"][0].erase("resample_seconds");
  const std::string once = refusal(j, *arm);
  EXPECT_NE(once.find("'rewards[2].when_redrawn'"), std::string::npos) << once;
  EXPECT_NE(once.find("resample_seconds"), std::string::npos) << once;
  j["commands"][0]["resample_seconds"] = 4;
  j["rewards"][2]["distance"] = 0;
  const std::string zero = refusal(j, *arm);
  EXPECT_NE(zero.find("'rewards[2].distance'"), std::string::npos) << zero;
}

TEST(SpecTask, UnknownTaskNamesListTheBuiltIns) {
  try {
    task_spec_path("quadruped-run");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("quadruped-velocity"), std::string::npos) << e.what();
  }
  const auto names = builtin_spec_task_names();
  for (const char* n : {"arm7-reach", "cartpole-balance", "cartpole-swingup", "humanoid-velocity", "quadruped-velocity"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
}

}  // namespace
}  // namespace flashnerd::env
