// Actuators with dynamics (filter, integrator): their activations are part of the recorded
// state, so each recorded transition is reproduced by MuJoCo from (qpos, qvel, act, ctrl)
// alone, bit for bit (the data is Markov); without act it is not.
#include <gtest/gtest.h>

#include <cstring>

#include "sim/generator.h"
#include "sim/recording_report.h"
#include "sim/robot.h"
#include "sim_test_models.h"

namespace flashnerd::sim {
namespace {

TEST(ActivationRecording, ActIsRecordedAndMakesTransitionsMarkov) {
  RobotOverrides overrides;
  overrides.control_timestep = 0.02;
  auto robot = Robot::load(testing::write_temp("stateful_arm.xml", testing::kStatefulArmXml), overrides);
  const StateLayout& l = robot->layout();
  ASSERT_EQ(l.na, 2);
  EXPECT_EQ(robot->act_indices(), (std::vector<int>{0, 1}));
  EXPECT_EQ(describe_recording(*robot).activations_recorded, 2);
  Dataset d = testing::generate_small(*robot, 3, 10);
  ASSERT_EQ(d.act.size(), size_t(3 * 11 * 2));
  EXPECT_NE(d.a(0, 0)[0], 0.0);  // start activations are sampled, not all zero

  const mjModel* m = robot->model();
  mjData* md = mj_makeData(m);
  int markov = 0, without_act_differs = 0;
  for (int64_t n = 0; n < d.trajectories; ++n)
    for (int64_t t = 0; t < d.steps; ++t) {
      if (!d.is_valid(n, t)) continue;
      for (bool with_act : {true, false}) {
        mj_resetData(m, md);
        const double zero[2] = {0, 0};
        robot->set_state(md, d.q(n, t), d.v(n, t), with_act ? d.a(n, t) : zero);
        robot->set_ctrl(md, d.u(n, t));
        for (int s = 0; s < robot->substeps(); ++s) mj_step(m, md);
        double q[2], v[2], a[2];
        robot->get_state(md, q, v, a);
        const bool same = std::memcmp(q, d.q(n, t + 1), sizeof q) == 0 && std::memcmp(v, d.v(n, t + 1), sizeof v) == 0 &&
                          std::memcmp(a, d.a(n, t + 1), sizeof a) == 0;
        (with_act ? markov : without_act_differs) += with_act ? int(same) : int(!same);
      }
    }
  mj_deleteData(md);
  EXPECT_EQ(markov, 30);
  EXPECT_EQ(without_act_differs, 30);
}

}  // namespace
}  // namespace flashnerd::sim
