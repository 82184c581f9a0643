// Robot: an immutable, compiled MuJoCo model plus its RobotSpec and everything derived from
// them once (state layout, robot links, probes, substeps, hash). Shared by all threads;
// workers make their own mjData (and their own mjModel copy when a scene is randomized).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "core/state_layout.h"
#include "sim/actuators.h"
#include "sim/robot_spec.h"

namespace flashnerd::sim {

// Command-line overrides of spec fields (unset = keep the spec's value).
struct RobotOverrides {
  double control_timestep = 0;
  std::optional<CommandProcess> command_process;
  int hold_steps = 0;
  double ar1_coefficient = -1;
  double ar1_amplitude = -1;
  int contact_capacity = -1;
  // Robot body trees: comma-separated body names, each the top of a robot subtree (empty:
  // the spec's robot_root_body, else the trees the actuators drive).
  std::string robot_body;
};

struct ResolvedProbe {
  int body;
  double pos[3];
  double radius;
};

class Robot {
 public:
  // name_or_path: a built-in robot name (see builtin_robot_names()), a spec .json file, or
  // an MJCF .xml file (defaults from the model: joint ranges, ctrlrange, its timestep).
  static std::shared_ptr<const Robot> load(const std::string& name_or_path,
                                           const RobotOverrides& overrides = {});
  // From an already-filled spec (spec.mjcf is the MJCF path).
  static std::shared_ptr<const Robot> from_spec(RobotSpec spec, const RobotOverrides& overrides = {});
  ~Robot();
  Robot(const Robot&) = delete;
  Robot& operator=(const Robot&) = delete;

  const mjModel* model() const { return model_; }
  const RobotSpec& spec() const { return spec_; }
  const std::string& name() const { return spec_.name; }
  const StateLayout& layout() const { return layout_; }
  bool floating_base() const { return layout_.floating_base; }
  int substeps() const { return substeps_; }
  double control_timestep() const { return substeps_ * model_->opt.timestep; }
  const std::string& mjcf_hash() const { return mjcf_hash_; }

  // The robot's coordinates are one contiguous block of mjData's qpos / qvel that starts
  // here (0 unless other bodies' joints come first in <worldbody>).
  int qpos_offset() const { return qpos_offset_; }
  int qvel_offset() const { return qvel_offset_; }
  // Robot state (layout nq, nv, na) into / out of a full mjData; act may be null when na = 0.
  void set_state(mjData* d, const double* qpos, const double* qvel, const double* act = nullptr) const;
  void get_state(const mjData* d, double* qpos, double* qvel, double* act = nullptr) const;
  // mjData.act index of each robot activation (size na): robot actuators with dynamics.
  const std::vector<int>& act_indices() const { return act_indices_; }

  // Robot actuators in command order (size nu): mjModel actuator ids and what they are.
  // Actuators that move no robot body are not commanded (their ctrl stays 0).
  const std::vector<ActuatorInfo>& actuators() const { return actuators_; }
  void set_ctrl(mjData* d, const double* u) const;  // u: nu commands

  // Robot links: the bodies of the robot subtrees, numbered 0..link_count()-1.
  // root_body(): the base frame's body: the root of the robot's one tree, or the world (0)
  // for a fixed-base robot of several trees.
  int root_body() const { return root_body_; }
  const std::vector<int>& tree_roots() const { return tree_roots_; }
  int link_count() const { return int(link_bodies_.size()); }
  int link_index(int body) const { return body_link_[size_t(body)]; }  // -1: not the robot
  bool is_robot_body(int body) const { return body_link_[size_t(body)] >= 0; }
  const std::vector<int>& link_bodies() const { return link_bodies_; }

  // Fixed probes of the NeRD baseline (climbing=true: the climbing probe set).
  const std::vector<ResolvedProbe>& probes(bool climbing = false) const {
    return climbing ? climbing_probes_ : probes_;
  }
  // Nominal robot qpos (keyframe or qpos0), size nq of the robot.
  const std::vector<double>& nominal_qpos() const { return nominal_qpos_; }
  // Nominal command (keyframe ctrl, or middle of ctrlrange), size nu.
  const std::vector<double>& nominal_ctrl() const { return nominal_ctrl_; }

  // A private copy of the model for a worker that edits it (randomized scenes).
  mjModel* copy_model() const;

 private:
  Robot() = default;
  void analyze(const RobotOverrides& overrides);

  RobotSpec spec_;
  mjModel* model_ = nullptr;
  StateLayout layout_;
  int substeps_ = 1;
  std::string mjcf_hash_;
  void select_bodies();
  void analyze_joints();
  void analyze_actuators();

  int root_body_ = 0;
  std::vector<int> tree_roots_;
  int qpos_offset_ = 0, qvel_offset_ = 0;
  std::vector<ActuatorInfo> actuators_;
  std::vector<int> act_indices_;
  std::vector<int> link_bodies_;
  std::vector<int> body_link_;
  std::vector<ResolvedProbe> probes_, climbing_probes_;
  std::vector<double> nominal_qpos_, nominal_ctrl_;
};

// MuJoCo's warnings raised so far in d (all kinds): a step that raises one is unstable.
int warning_total(const mjData* d);


}  // namespace flashnerd::sim
