// Generation: determinism across thread counts, validity masks, contacts and probes recorded,
// the codec reproducing real MuJoCo steps, datasets round-tripping through HDF5.
#include "sim/generator.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/dataset.h"
#include "core/error.h"
#include "core/state_codec.h"
#include "sim_test_models.h"

namespace flashnerd::sim {
namespace {

std::shared_ptr<const Robot> walker(int capacity = 16) {
  RobotSpec spec;
  spec.name = "walker";
  spec.mjcf = testing::write_temp("walker.xml", testing::kWalkerXml);
  spec.control_timestep = 0.02;
  spec.actuator_model = "position_pd";
  spec.robot_root_body = "torso";
  spec.state.base_height = {0.3, 0.6};
  spec.contact_capacity = capacity;
  spec.probes = {{"leg1", {0, 0, -0.3}, 0.03}, {"leg2", {0, 0, -0.3}, 0.03}};
  return Robot::from_spec(spec);
}

// Generation options of a test: no progress line.
GenerateOptions quiet(int64_t trajectories, int steps, uint64_t seed = 0) {
  GenerateOptions o;
  o.trajectories = trajectories;
  o.steps = steps;
  o.seed = seed;
  o.progress = false;
  return o;
}

TEST(Robot, LayoutOfFloatingBaseExcludesObjects) {
  auto r = walker();
  EXPECT_TRUE(r->floating_base());
  EXPECT_EQ(r->layout().nq, 9);  // free joint + 2 hinges; the ball is not the robot
  EXPECT_EQ(r->layout().nv, 8);
  EXPECT_EQ(r->layout().nu, 2);
  EXPECT_EQ(r->substeps(), 4);
  EXPECT_EQ(r->link_count(), 3);
}

TEST(Robot, UnboundedHingeIsWrapped) {
  auto r = Robot::load(testing::write_temp("cart.xml", testing::kCartXml));
  ASSERT_EQ(r->layout().joint_wrapped.size(), 2u);
  EXPECT_EQ(r->layout().joint_wrapped[0], 0);
  EXPECT_EQ(r->layout().joint_wrapped[1], 1);
  EXPECT_FALSE(r->floating_base());
}

TEST(Generator, SameSeedSameDataWhateverTheThreadCount) {
  auto r = walker();
  GenerateOptions o = quiet(6, 20, 11);
  ThreadPool one(1), two(2);
  Dataset a = generate_dataset(*r, o, one);
  Dataset b = generate_dataset(*r, o, two);
  EXPECT_EQ(a.qpos, b.qpos);
  EXPECT_EQ(a.qvel, b.qvel);
  EXPECT_EQ(a.ctrl, b.ctrl);
  EXPECT_EQ(a.contact_rows, b.contact_rows);
  EXPECT_EQ(a.probes, b.probes);
  o.seed = 12;
  Dataset c = generate_dataset(*r, o, two);
  EXPECT_NE(a.qpos, c.qpos);
}

TEST(Generator, RecordsContactsAndProbes) {
  auto r = walker();
  GenerateOptions o = quiet(4, 50);
  ThreadPool pool(2);
  GenerateSummary s;
  Dataset d = generate_dataset(*r, o, pool, &s);
  EXPECT_GT(s.contacts_max, 0) << "the walker falls onto the floor";
  EXPECT_GT(s.valid_fraction, 0.9);
  // every valid row has a robot link and a unit normal; padding is zero with link -1
  const int K = d.contact_capacity;
  for (int64_t f = 0; f < d.trajectories * d.frames(); ++f) {
    for (int k = 0; k < K; ++k) {
      const float* row = d.contact_rows.data() + (f * K + k) * kContactRowDim;
      int link = d.contact_link[size_t(f * K + k)];
      if (k < d.contact_count[size_t(f)]) {
        EXPECT_GE(link, 0);
        double n2 = row[6] * row[6] + row[7] * row[7] + row[8] * row[8];
        EXPECT_NEAR(n2, 1.0, 1e-4);
        EXPECT_NEAR(row[0] + row[1] + row[2], 1.0f, 0);
      } else {
        EXPECT_EQ(link, -1);
        for (int c = 0; c < kContactRowDim; ++c) EXPECT_EQ(row[c], 0.0f);
      }
    }
  }
  // probes near the floor have a non-zero signed distance feature at some frame
  bool probe_active = false;
  for (float x : d.probes) probe_active = probe_active || x != 0.0f;
  EXPECT_TRUE(probe_active);
}

// gen --policy's replay: a dataset's own start states and commands, given back as a plan,
// reproduce the dataset (states, probes, contact rows) bit for bit; a plan that does not fit
// the robot is refused.
TEST(Generator, ReplayingADatasetsCommandsReproducesIt) {
  auto r = walker();
  GenerateOptions o = quiet(3, 40, 5);
  ThreadPool pool(2);
  const Dataset d = generate_dataset(*r, o, pool);
  for (uint8_t v : d.valid) ASSERT_EQ(v, 1) << "an invalid transition restarts the random trajectory";
  CommandPlan plan;
  plan.trajectories = d.trajectories;
  plan.steps = int(d.steps);
  for (int64_t n = 0; n < d.trajectories; ++n) {
    plan.qpos.insert(plan.qpos.end(), d.q(n, 0), d.q(n, 0) + d.layout.nq);
    plan.qvel.insert(plan.qvel.end(), d.v(n, 0), d.v(n, 0) + d.layout.nv);
  }
  plan.ctrl = d.ctrl;
  plan.source = {{"from", "test"}};
  GenerateOptions replay = o;
  replay.seed = 99;  // the plan decides everything: no draw may matter
  replay.plan = &plan;
  const Dataset e = generate_dataset(*r, replay, pool);
  EXPECT_EQ(e.qpos, d.qpos);
  EXPECT_EQ(e.qvel, d.qvel);
  EXPECT_EQ(e.ctrl, d.ctrl);
  EXPECT_EQ(e.valid, d.valid);
  EXPECT_EQ(e.probes, d.probes);
  EXPECT_EQ(e.contact_rows, d.contact_rows);
  EXPECT_EQ(e.contact_count, d.contact_count);
  EXPECT_EQ(e.generator.at("plan"), plan.source);
  // another command at one step changes the rest of that trajectory only
  plan.ctrl[size_t(d.layout.nu) * 10] += 0.5;
  const Dataset f = generate_dataset(*r, replay, pool);
  EXPECT_EQ(std::vector<double>(f.qpos.begin(), f.qpos.begin() + 11 * d.layout.nq),
            std::vector<double>(d.qpos.begin(), d.qpos.begin() + 11 * d.layout.nq));
  EXPECT_NE(f.qpos[size_t(20 * d.layout.nq)], d.qpos[size_t(20 * d.layout.nq)]);
  const int64_t second = d.frames() * d.layout.nq;
  EXPECT_EQ(std::vector<double>(f.qpos.begin() + second, f.qpos.end()),
            std::vector<double>(d.qpos.begin() + second, d.qpos.end()));
  plan.ctrl.pop_back();
  EXPECT_THROW(generate_dataset(*r, replay, pool), Error);
}

TEST(Generator, OverflowKeepsSmallestGapsAndIsCounted) {
  auto r = walker(/*capacity=*/1);
  GenerateOptions o = quiet(4, 50);
  ThreadPool pool(1);
  GenerateSummary s;
  Dataset d = generate_dataset(*r, o, pool, &s);
  EXPECT_GT(s.overflow_total, 0);
  EXPECT_LE(s.contacts_max, 1);
}

TEST(Generator, CodecReproducesMuJoCoSteps) {
  // decode(encode increment of a real step) gives the next state to 1e-9 (double)
  auto r = walker();
  GenerateOptions o = quiet(3, 40);
  ThreadPool pool(1);
  Dataset d = generate_dataset(*r, o, pool);
  StateCodec codec(d.layout);
  std::vector<double> inc(size_t(codec.increment_dim())), q(size_t(d.layout.nq)), v(size_t(d.layout.nv));
  std::vector<double> err(size_t(codec.channel_dim()));
  for (int64_t n = 0; n < d.trajectories; ++n) {
    for (int64_t t = 0; t < d.steps; ++t) {
      if (!d.is_valid(n, t)) continue;
      codec.increment(d.q(n, t), d.v(n, t), d.q(n, t + 1), d.v(n, t + 1), inc.data());
      codec.apply(d.q(n, t), d.v(n, t), inc.data(), q.data(), v.data());
      for (int i = 0; i < d.layout.nq; ++i) {
        double want = d.q(n, t + 1)[i];
        // quaternion sign is free; compare through the channel error below
        if (i < 3 || i >= 7) {
          EXPECT_NEAR(q[size_t(i)], want, 1e-9);
        }
      }
      codec.channel_error(q.data(), v.data(), d.q(n, t + 1), d.v(n, t + 1), err.data());
      for (double e : err) EXPECT_NEAR(e, 0.0, 1e-9);
    }
  }
}

TEST(Generator, ActuatorDelayAppliesTheCommandSentStepsEarlier) {
  // replaying a delayed trajectory in MuJoCo: step t applies the command recorded at t − 2
  // (the nominal command before), and reaches the recorded next state exactly
  auto r = Robot::load("cartpole");
  GenerateOptions o = quiet(2, 12);
  o.actuator_delay = 2;
  ThreadPool pool(1);
  Dataset d = generate_dataset(*r, o, pool);
  const mjModel* m = r->model();
  mjData* md = mj_makeData(m);
  int mismatches_without_delay = 0;
  for (int64_t n = 0; n < d.trajectories; ++n) {
    for (int64_t t = 0; t < d.steps; ++t) {
      ASSERT_TRUE(d.is_valid(n, t));
      for (bool delayed : {true, false}) {
        mj_resetData(m, md);
        r->set_state(md, d.q(n, t), d.v(n, t));
        const double* u = delayed ? (t >= 2 ? d.u(n, t - 2) : r->nominal_ctrl().data()) : d.u(n, t);
        r->set_ctrl(md, u);
        for (int s = 0; s < r->substeps(); ++s) mj_step(m, md);
        std::vector<double> q(2), v(2);
        r->get_state(md, q.data(), v.data());
        const bool same = q[0] == d.q(n, t + 1)[0] && q[1] == d.q(n, t + 1)[1] && v[0] == d.v(n, t + 1)[0] &&
                          v[1] == d.v(n, t + 1)[1];
        if (delayed) {
          EXPECT_TRUE(same) << "trajectory " << n << " step " << t;
        } else {
          mismatches_without_delay += !same;
        }
      }
    }
  }
  mj_deleteData(md);
  EXPECT_GT(mismatches_without_delay, 20);  // the delay is real
  o.actuator_delay = -1;
  EXPECT_THROW(generate_dataset(*r, o, pool), Error);
}

TEST(Generator, InvalidTransitionsAreMaskedNotDropped) {
  auto r = walker();
  GenerateOptions o = quiet(3, 30);
  o.max_velocity = 0.5;  // absurdly low: most transitions count as blow-ups
  ThreadPool pool(1);
  GenerateSummary s;
  Dataset d = generate_dataset(*r, o, pool, &s);
  EXPECT_LT(s.valid_fraction, 0.9);
  EXPECT_EQ(d.valid.size(), size_t(3 * 30));  // arrays keep every transition
}

TEST(Dataset, RoundTripAndRefusals) {
  auto r = walker();
  GenerateOptions o = quiet(2, 10);
  o.free_dynamics = false;
  ThreadPool pool(1);
  Dataset d = generate_dataset(*r, o, pool);
  std::string path = testing::write_temp("walker.h5", "");
  save_dataset(path, d);
  Dataset e = load_dataset(path);
  EXPECT_EQ(e.robot, "walker");
  EXPECT_EQ(e.qpos, d.qpos);
  EXPECT_EQ(e.ctrl, d.ctrl);
  EXPECT_EQ(e.contact_rows, d.contact_rows);
  EXPECT_EQ(e.contact_count, d.contact_count);
  EXPECT_EQ(e.probes, d.probes);
  EXPECT_EQ(e.layout, d.layout);
  // a dataset of another robot is refused with both names in the message
  auto cart = Robot::load(testing::write_temp("cart.xml", testing::kCartXml));
  try {
    check_dataset_robot(e, cart->name(), cart->layout(), path);
    FAIL() << "expected a refusal";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("walker"), std::string::npos);
    EXPECT_NE(std::string(err.what()).find("cart"), std::string::npos);
  }
  // a truncated file is refused, not crashed on
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  EXPECT_THROW(load_dataset(path), Error);
  EXPECT_THROW(load_dataset(path + ".missing"), Error);
}

TEST(Robot, BadModelsGetClearErrors) {
  auto expect_error = [](const std::string& path, const std::string& needle) {
    try {
      Robot::load(path);
      FAIL() << "expected an error for " << path;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error("/nonexistent/robot.xml", "does not exist");
  expect_error(testing::write_temp("bad.xml", "<mujoco><worldbody><body>"), "cannot load MJCF");
  expect_error(testing::write_temp("noact.xml",
                                   "<mujoco><worldbody><body><joint type='hinge'/><geom size='0.1'/>"
                                   "</body></worldbody></mujoco>"),
               "no actuators");
  expect_error("no_such_robot_name", "unknown robot");
}

}  // namespace
}  // namespace flashnerd::sim
