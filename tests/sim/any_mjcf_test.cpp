// Any MJCF (docs/ROBOTS.md): tendon, site, slider-crank and adhesion transmissions; position
// actuators without ctrlrange; choosing the robot's body trees; robots after free objects;
// start states clear of the floor; what gen records and what it leaves out.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>

#include "core/error.h"
#include "sim/generator.h"
#include "sim/recording_report.h"
#include "sim/robot.h"
#include "sim/samplers.h"
#include "sim_test_models.h"

namespace flashnerd::sim {
namespace {

// A two-link arm fixed to the world with four actuators of four transmissions.
const char* kTransmissionsXml = R"(
<mujoco model="transmissions">
  <compiler angle="radian"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <site name="anchor" pos="0 0 0.5"/>
    <body name="upper" pos="0 0 0.5">
      <joint name="shoulder" type="hinge" axis="0 1 0" range="-1 1" limited="true" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
      <site name="crank" pos="0.1 0 0"/>
      <body name="lower" pos="0.3 0 0">
        <joint name="elbow" type="hinge" axis="0 1 0" range="-2 2" limited="true" damping="0.1"/>
        <geom name="hand" type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="0.5"/>
        <site name="tip" pos="0.3 0 0"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="both"><joint joint="shoulder" coef="1"/><joint joint="elbow" coef="0.5"/></fixed>
  </tendon>
  <actuator>
    <motor name="tendon_motor" tendon="both" ctrlrange="-2 2" ctrllimited="true"/>
    <motor name="site_motor" site="tip" gear="0 0 1 0 0 0" ctrlrange="-1 1" ctrllimited="true"/>
    <position name="crank" cranksite="crank" slidersite="anchor" cranklength="0.3" kp="5" ctrlrange="-0.1 0.1" ctrllimited="true"/>
    <adhesion name="grip" body="lower" ctrlrange="0 1" gain="5"/>
  </actuator>
</mujoco>
)";

// Robot after a free object in <worldbody>; its position actuator has no ctrlrange.
const char* kObjectFirstXml = R"(
<mujoco model="object_first">
  <compiler angle="radian"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="box" pos="1 0 0.2"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="0.3"/></body>
    <body name="arm" pos="0 0 0.5">
      <joint name="j" type="hinge" axis="0 1 0" range="-0.5 0.5" limited="true" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
    </body>
  </worldbody>
  <actuator>
    <position name="servo" joint="j" kp="10"/>
  </actuator>
</mujoco>
)";

// Two free-floating actuated bodies ('a_torso', 'b_torso'): which one is the robot must be chosen.
std::string two_robots_xml() {
  auto robot = [](const std::string& p, const char* x) {
    return "<body name='" + p + "_torso' pos='" + x + " 0 1'><freejoint/><geom type='sphere' size='0.1'/><body>"
           "<joint name='" + p + "_hip' type='hinge' axis='0 1 0' range='-1 1' limited='true'/>"
           "<geom type='capsule' fromto='0 0 0 0 0 -0.5' size='0.03'/></body></body>";
  };
  auto motor = [](const std::string& p) {
    return "<motor joint='" + p + "_hip' ctrlrange='-1 1' ctrllimited='true'/>";
  };
  return "<mujoco><compiler angle='radian'/><worldbody><geom type='plane' size='5 5 0.1'/>" + robot("a", "0") +
         robot("b", "2") + "</worldbody><actuator>" + motor("a") + motor("b") + "</actuator></mujoco>";
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::vector<std::string>& lines, const std::string& needle) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(needle) != std::string::npos; });
}

TEST(AnyMjcf, TendonSiteSliderCrankAndAdhesionTransmissionsAreCommandedByCtrl) {
  auto r = Robot::load(testing::write_temp("transmissions.xml", kTransmissionsXml));
  ASSERT_EQ(r->layout().nu, 4);
  const auto& a = r->actuators();
  EXPECT_EQ(a[0].transmission, "tendon");
  EXPECT_EQ(a[1].transmission, "site");
  EXPECT_EQ(a[2].transmission, "slider-crank");
  EXPECT_EQ(a[3].transmission, "adhesion body");
  EXPECT_EQ(a[0].kind, "motor");
  EXPECT_EQ(a[2].kind, "position");
  EXPECT_EQ(a[3].kind, "adhesion");
  EXPECT_EQ(r->spec().actuator_model, "mixed (motor, position, adhesion)");
  Dataset d = testing::generate_small(*r, 3, 10);
  for (size_t i = 0; i < d.ctrl.size(); ++i) {
    const auto& info = a[i % 4];
    EXPECT_GE(d.ctrl[i], info.range[0]);
    EXPECT_LE(d.ctrl[i], info.range[1]);
  }
}

TEST(AnyMjcf, UserDynamicsAreRefusedNamingTheFeature) {
  std::string xml = kTransmissionsXml;
  xml.replace(xml.find("<motor name=\"site_motor\""), std::string("<motor").size(), "<general gaintype=\"user\"");
  std::string e = error_of([&] { Robot::load(testing::write_temp("user_dyn.xml", xml)); });
  EXPECT_NE(e.find("actuator 'site_motor' has a user-defined dynamics"), std::string::npos) << e;
  EXPECT_NE(e.find("mjcb_act_"), std::string::npos) << e;
}

TEST(AnyMjcf, PositionActuatorWithoutCtrlrangeTakesTheJointRange) {
  auto r = Robot::load(testing::write_temp("object_first.xml", kObjectFirstXml));
  ASSERT_EQ(r->layout().nu, 1);
  const ActuatorInfo& a = r->actuators()[0];
  EXPECT_EQ(a.kind, "position");
  EXPECT_EQ(r->spec().actuator_model, "position");  // not "motor"
  EXPECT_EQ(a.range_source, "joint 'j' range");
  EXPECT_DOUBLE_EQ(a.range[0], -0.5);
  EXPECT_DOUBLE_EQ(a.range[1], 0.5);
  EXPECT_DOUBLE_EQ(r->nominal_ctrl()[0], 0.0);
  CommandSampler commands(*r);
  Rng rng(5);
  commands.reset(rng);
  double lo = 1, hi = -1;
  for (int i = 0; i < 200; ++i) {
    double u;
    commands.next(rng, &u);
    lo = std::min(lo, u);
    hi = std::max(hi, u);
  }
  EXPECT_GE(lo, -0.5);
  EXPECT_LE(hi, 0.5);
  EXPECT_LT(lo, -0.4);  // the whole joint range, not [-1, 1] cut by nothing
  RecordingReport report = describe_recording(*r);
  EXPECT_TRUE(contains(report.notes, "commands are drawn from its joint 'j' range [-0.5, 0.5]"));
}

TEST(AnyMjcf, RobotAfterAFreeObjectIsRecordedFromItsOwnCoordinates) {
  auto r = Robot::load(testing::write_temp("object_first.xml", kObjectFirstXml));
  EXPECT_EQ(r->qpos_offset(), 7);
  EXPECT_EQ(r->qvel_offset(), 6);
  EXPECT_EQ(r->layout().nq, 1);
  EXPECT_FALSE(r->floating_base());
  Dataset d = testing::generate_small(*r, 4, 5);
  for (int64_t n = 0; n < 4; ++n) {  // sampled in the joint range, not the box's x = 1
    double q = d.qpos[size_t(n * 6)];
    EXPECT_GE(q, -0.5);
    EXPECT_LE(q, 0.5);
  }
  RecordingReport report = describe_recording(*r);
  EXPECT_EQ(report.nq_total, 8);
  EXPECT_TRUE(contains(report.warnings, "1 free object is simulated but not recorded ('box'; 1 bodies, 7 qpos)"));
}

TEST(AnyMjcf, SeveralFloatingRobotsMustBeChosenWithRobotBody) {
  const std::string path = testing::write_temp("two_robots.xml", two_robots_xml());
  std::string e = error_of([&] { Robot::load(path); });
  EXPECT_NE(e.find("the actuators move 2 body trees ('a_torso', 'b_torso') and each has a free joint"),
            std::string::npos) << e;
  EXPECT_NE(e.find("(e.g. robot_root_body a_torso)"), std::string::npos) << e;

  RobotOverrides o;
  o.robot_body = "b_torso";
  auto r = Robot::load(path, o);
  EXPECT_TRUE(r->floating_base());
  EXPECT_EQ(r->qpos_offset(), 8);  // after a_torso's free joint and hip
  ASSERT_EQ(r->layout().nu, 1);
  EXPECT_EQ(r->actuators()[0].id, 1);
  RecordingReport report = describe_recording(*r);
  EXPECT_TRUE(contains(report.warnings, "1 actuator moves no robot body ('actuator 0'): not commanded (ctrl stays 0)"));

  o.robot_body = "nosuchbody";
  e = error_of([&] { Robot::load(path, o); });
  EXPECT_NE(e.find("robot_root_body: " + path + ": robot body 'nosuchbody' is not a body"), std::string::npos) << e;
}

TEST(AnyMjcf, AnActuatorReachingOutsideTheRobotNamesTheFix) {
  RobotOverrides o;
  o.robot_body = "lower";  // the tendon also moves 'upper'
  std::string e = error_of([&] { Robot::load(testing::write_temp("transmissions.xml", kTransmissionsXml), o); });
  EXPECT_NE(e.find("actuator 'tendon_motor' (tendon transmission) moves robot bodies and body 'upper' outside the "
                   "robot"), std::string::npos) << e;
}

TEST(AnyMjcf, StartStatesOfAnyMjcfAreClearOfTheFloor) {
  // with 0.9 m legs the default base heights (0.5-1 m) start the walker inside the floor
  std::string xml = testing::kWalkerXml;
  for (size_t at; (at = xml.find("0 0 0 0 0 -0.3")) != std::string::npos;) xml.replace(at, 14, "0 0 0 0 0 -0.9");
  auto r = Robot::load(testing::write_temp("walker_low.xml", xml));
  EXPECT_DOUBLE_EQ(r->spec().state.max_initial_penetration, 0.01);
  Dataset d = testing::generate_small(*r, 16, 1);
  mjData* md = mj_makeData(r->model());
  for (int64_t n = 0; n < d.trajectories; ++n) {
    const int nq = r->layout().nq, nv = r->layout().nv;
    r->set_state(md, d.qpos.data() + n * 2 * nq, d.qvel.data() + n * 2 * nv);
    mj_fwdPosition(r->model(), md);
    for (int i = 0; i < md->ncon; ++i) {
      const mjContact& c = md->contact[i];
      const bool robot1 = r->is_robot_body(r->model()->geom_bodyid[c.geom1]);
      const bool robot2 = r->is_robot_body(r->model()->geom_bodyid[c.geom2]);
      if (robot1 != robot2) {
        EXPECT_GE(c.dist, -0.0100001) << "trajectory " << n;
      }
    }
  }
  mj_deleteData(md);
}

}  // namespace
}  // namespace flashnerd::sim
