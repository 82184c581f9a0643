// Small inline MJCF models for the sim tests (no dependency on robots/).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "sim/generator.h"

namespace flashnerd::sim::testing {

// A floating box with two hinged legs, PD-actuated, falling onto a floor: free joint, hinges,
// contacts with a static floor and a dynamic ball.
inline const char* kWalkerXml = R"(
<mujoco model="walker">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="0.005"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="torso" pos="0 0 0.6">
      <freejoint name="root"/>
      <geom type="box" size="0.2 0.1 0.05" mass="3"/>
      <body name="leg1" pos="0.15 0 -0.05">
        <joint name="hip1" type="hinge" axis="0 1 0" range="-1 1" damping="0.5"/>
        <geom name="leg1" type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03" mass="0.5"/>
      </body>
      <body name="leg2" pos="-0.15 0 -0.05">
        <joint name="hip2" type="hinge" axis="0 1 0" range="-1 1" damping="0.5"/>
        <geom name="leg2" type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03" mass="0.5"/>
      </body>
    </body>
    <body name="ball" pos="0.5 0 0.3">
      <freejoint/>
      <geom type="sphere" size="0.08" mass="0.2"/>
    </body>
  </worldbody>
  <actuator>
    <general joint="hip1" gaintype="fixed" biastype="affine" gainprm="30" biasprm="0 -30 -1" ctrlrange="-1 1" ctrllimited="true"/>
    <general joint="hip2" gaintype="fixed" biastype="affine" gainprm="30" biasprm="0 -30 -1" ctrlrange="-1 1" ctrllimited="true"/>
  </actuator>
</mujoco>
)";

// A fixed-base pendulum on a cart (unbounded hinge), motor actuated, no contacts.
inline const char* kCartXml = R"(
<mujoco model="cart">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="0.004"/>
  <worldbody>
    <body name="cart">
      <joint name="slider" type="slide" axis="1 0 0" range="-3 3" limited="true"/>
      <geom type="box" size="0.2 0.1 0.05" mass="1" contype="0" conaffinity="0"/>
      <body name="pole">
        <joint name="hinge" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 1" size="0.02" mass="0.2" contype="0" conaffinity="0"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor joint="slider" ctrlrange="-20 20" ctrllimited="true"/>
  </actuator>
</mujoco>
)";

// A fixed-base two-link arm with actuator dynamics: a plain motor, a filtered motor and an
// integrator (position-like), so na = 2 activation states; no contacts.
inline const char* kStatefulArmXml = R"(
<mujoco model="stateful_arm">
  <compiler angle="radian"/>
  <option timestep="0.005"/>
  <worldbody>
    <body name="upper" pos="0 0 1">
      <joint name="shoulder" type="hinge" axis="0 1 0" range="-2 2" limited="true" damping="0.05"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1" contype="0" conaffinity="0"/>
      <body name="lower" pos="0.3 0 0">
        <joint name="elbow" type="hinge" axis="0 1 0" range="-2 2" limited="true" damping="0.05"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="0.5" contype="0" conaffinity="0"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="plain" joint="shoulder" ctrlrange="-1 1" ctrllimited="true"/>
    <general name="filtered" joint="shoulder" dyntype="filter" dynprm="0.1" ctrlrange="-2 2" ctrllimited="true"/>
    <general name="integrated" joint="elbow" dyntype="integrator" ctrlrange="-1 1" ctrllimited="true"
             actlimited="true" actrange="-1.5 1.5" gaintype="fixed" biastype="affine" gainprm="5" biasprm="0 -5 -0.2"/>
  </actuator>
</mujoco>
)";

// Writes text to a unique file in the temp directory and returns its path.
inline std::string write_temp(const std::string& name, const std::string& text) {
  auto dir = std::filesystem::temp_directory_path() / ("flashnerd_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

// A small dataset of `robot` (seed 0, one thread, no progress line).
inline Dataset generate_small(const Robot& robot, int64_t trajectories, int steps) {
  GenerateOptions o;
  o.trajectories = trajectories;
  o.steps = steps;
  o.progress = false;
  ThreadPool pool(1);
  return generate_dataset(robot, o, pool);
}

}  // namespace flashnerd::sim::testing
