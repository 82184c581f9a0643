#include "sim/robot_spec.h"

#include <cstdlib>
#include <filesystem>
#include <algorithm>

#include "core/atomic_file.h"
#include "core/enum_names.h"
#include "core/error.h"
#include "core/share_directory.h"

namespace flashnerd::sim {

namespace fs = std::filesystem;

namespace {

constexpr const char* kRobotsPrefix = "$FLASHNERD_ROBOTS/";

// A built-in robot's file as "$FLASHNERD_ROBOTS/NAME.xml", so that datasets and artifacts do
// not record the path of one machine's tree; other paths, and every path while the user
// points FLASHNERD_ROBOTS at a copy of their own (a perturbed robot, say), unchanged.
std::string portable_path(const std::string& path) {
  if (path.empty() || std::getenv("FLASHNERD_ROBOTS")) return path;
  std::error_code ec;
  const fs::path rel = fs::path(path).lexically_relative(fs::weakly_canonical(fs::path(share_directory()) / "robots", ec));
  if (rel.empty() || *rel.begin() == "..") return path;
  return kRobotsPrefix + rel.string();
}

std::string resolve_portable_path(const std::string& path) {
  if (path.rfind(kRobotsPrefix, 0) != 0) return path;
  return (fs::path(robots_directory()) / path.substr(std::string(kRobotsPrefix).size())).string();
}

}  // namespace

const EnumName<CommandProcess> kCommandProcessNames[3] = {
    {CommandProcess::Uniform, "uniform"}, {CommandProcess::Hold, "hold"}, {CommandProcess::AR1, "ar1"}};

CommandProcess parse_command_process(const std::string& s) {
  return parse_enum(kCommandProcessNames, s, "command process");
}
const char* command_process_name(CommandProcess p) { return enum_name(kCommandProcessNames, p); }

const EnumName<RobotBase> kRobotBaseNames[2] = {{RobotBase::Fixed, "fixed"}, {RobotBase::Floating, "floating"}};

namespace {

std::vector<ProbeSpec> parse_probes(const nlohmann::json& j, const std::string& origin) {
  std::vector<ProbeSpec> out;
  for (const auto& p : j) {
    ProbeSpec s;
    s.body = p.at("body").get<std::string>();
    if (p.contains("pos")) {
      auto v = p.at("pos").get<std::vector<double>>();
      FN_CHECK(v.size() == 3, origin, ": probe on body '", s.body, "' needs a 3-vector 'pos'");
      s.pos = {v[0], v[1], v[2]};
    }
    s.radius = p.value("radius", 0.0);
    out.push_back(s);
  }
  return out;
}

nlohmann::json probes_json(const std::vector<ProbeSpec>& probes) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& p : probes) a.push_back({{"body", p.body}, {"pos", p.pos}, {"radius", p.radius}});
  return a;
}

std::array<double, 2> pair(const nlohmann::json& j, const char* key, std::array<double, 2> def) {
  if (!j.contains(key)) return def;
  auto v = j.at(key).get<std::vector<double>>();
  FN_CHECK(v.size() == 2, "field '", key, "' must be [low, high]");
  return {v[0], v[1]};
}

}  // namespace

RobotSpec RobotSpec::from_json(const nlohmann::json& j, const std::string& origin) {
  RobotSpec s;
  try {
    s.name = j.value("name", "");
    s.stands_for = j.value("stands_for", "");
    s.mjcf = resolve_portable_path(j.value("mjcf", ""));
    const std::string base = j.value("base", "");
    const EnumName<RobotBase>* named = find_enum(kRobotBaseNames, base);
    FN_CHECK(base.empty() || named != nullptr, origin, ": 'base' must be ", enum_choices(kRobotBaseNames), ", got '",
             base, "'");
    s.base = named != nullptr ? named->value : RobotBase::Detect;
    s.control_timestep = j.value("control_timestep", 0.0);
    s.actuator_model = j.value("actuator_model", "");
    s.robot_root_body = j.value("robot_root_body", "");
    if (j.contains("command")) {
      const auto& c = j.at("command");
      s.command.process = parse_command_process(c.value("process", "uniform"));
      s.command.hold_steps = c.value("hold_steps", 1);
      s.command.ar1_coefficient = c.value("ar1_coefficient", 0.9);
      s.command.ar1_amplitude = c.value("ar1_amplitude", 0.6);
      if (c.contains("nominal") && c.at("nominal").is_array()) {
        s.command.nominal_values = c.at("nominal").get<std::vector<double>>();
      } else {
        s.command.nominal = c.value("nominal", "");
      }
    }
    if (j.contains("state")) {
      const auto& st = j.at("state");
      StateSpec d;
      s.state.nominal = st.value("nominal", "");
      s.state.nominal_fraction = st.value("nominal_fraction", d.nominal_fraction);
      s.state.nominal_perturbation = st.value("nominal_perturbation", d.nominal_perturbation);
      s.state.unlimited_joint_range = st.value("unlimited_joint_range", d.unlimited_joint_range);
      s.state.qvel_uniform = st.value("qvel_uniform", d.qvel_uniform);
      s.state.qvel_gaussian_std = st.value("qvel_gaussian_std", d.qvel_gaussian_std);
      s.state.qvel_uniform_fraction = st.value("qvel_uniform_fraction", d.qvel_uniform_fraction);
      s.state.base_height = pair(st, "base_height", d.base_height);
      s.state.base_xy = st.value("base_xy", d.base_xy);
      s.state.base_tilt = st.value("base_tilt", d.base_tilt);
      s.state.base_linear_velocity_std = st.value("base_linear_velocity_std", d.base_linear_velocity_std);
      s.state.base_angular_velocity_std = st.value("base_angular_velocity_std", d.base_angular_velocity_std);
      s.state.max_initial_penetration = st.value("max_initial_penetration", d.max_initial_penetration);
    }
    s.trajectory_steps = j.value("trajectory_steps", 100);
    if (j.contains("probes")) s.probes = parse_probes(j.at("probes"), origin);
    if (j.contains("climbing_probes")) s.climbing_probes = parse_probes(j.at("climbing_probes"), origin);
    s.probe_threshold = j.value("probe_threshold", 0.1);
    s.contact_capacity = j.value("contact_capacity", 64);
    s.contact_margin = j.value("contact_margin", 0.0);
    if (j.contains("platform")) {
      const auto& p = j.at("platform");
      PlatformSpec ps;
      ps.geom = p.at("geom").get<std::string>();
      ps.height = pair(p, "height", ps.height);
      ps.distance = pair(p, "distance", ps.distance);
      s.platform = ps;
    }
    s.free_dynamics_mjcf = resolve_portable_path(j.value("free_dynamics_mjcf", ""));
    if (j.contains("camera")) {
      const auto& c = j.at("camera");
      RobotSpec::CameraSpec cs;
      cs.azimuth = c.value("azimuth", cs.azimuth);
      cs.elevation = c.value("elevation", cs.elevation);
      s.camera = cs;
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(str_cat(origin, ": malformed robot spec: ", e.what()));
  }
  FN_CHECK(s.trajectory_steps > 0, origin, ": trajectory_steps must be positive");
  FN_CHECK(s.contact_capacity >= 0, origin, ": contact_capacity must be >= 0");
  FN_CHECK(s.contact_margin >= 0, origin, ": contact_margin must be >= 0 (m)");
  return s;
}

nlohmann::json RobotSpec::to_json() const {
  nlohmann::json j = {
      {"name", name}, {"stands_for", stands_for}, {"mjcf", portable_path(mjcf)}, {"base", base == RobotBase::Detect ? "" : enum_name(kRobotBaseNames, base)},
      {"control_timestep", control_timestep}, {"actuator_model", actuator_model},
      {"robot_root_body", robot_root_body},
      {"command",
       {{"process", command_process_name(command.process)},
        {"hold_steps", command.hold_steps},
        {"ar1_coefficient", command.ar1_coefficient},
        {"ar1_amplitude", command.ar1_amplitude},
        {"nominal", command.nominal_values.empty() ? nlohmann::json(command.nominal)
                                                   : nlohmann::json(command.nominal_values)}}},
      {"state",
       {{"nominal", state.nominal}, {"nominal_fraction", state.nominal_fraction},
        {"nominal_perturbation", state.nominal_perturbation}, {"unlimited_joint_range", state.unlimited_joint_range},
        {"qvel_uniform", state.qvel_uniform}, {"qvel_gaussian_std", state.qvel_gaussian_std},
        {"qvel_uniform_fraction", state.qvel_uniform_fraction}, {"base_height", state.base_height},
        {"base_xy", state.base_xy}, {"base_tilt", state.base_tilt},
        {"base_linear_velocity_std", state.base_linear_velocity_std},
        {"base_angular_velocity_std", state.base_angular_velocity_std},
        {"max_initial_penetration", state.max_initial_penetration}}},
      {"trajectory_steps", trajectory_steps}, {"probes", probes_json(probes)},
      {"climbing_probes", probes_json(climbing_probes)}, {"probe_threshold", probe_threshold},
      {"contact_capacity", contact_capacity}, {"contact_margin", contact_margin},
      {"free_dynamics_mjcf", portable_path(free_dynamics_mjcf)},
  };
  if (platform) {
    j["platform"] = {{"geom", platform->geom}, {"height", platform->height}, {"distance", platform->distance}};
  }
  if (camera) j["camera"] = {{"azimuth", camera->azimuth}, {"elevation", camera->elevation}};
  return j;
}

RobotSpec RobotSpec::load(const std::string& json_path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(json_path));
  } catch (const nlohmann::json::exception& e) {
    throw Error(str_cat(json_path, ": not valid JSON: ", e.what()));
  }
  RobotSpec s = from_json(j, json_path);
  if (!s.mjcf.empty() && fs::path(s.mjcf).is_relative()) {
    s.mjcf = (fs::path(json_path).parent_path() / s.mjcf).string();
  }
  if (!s.free_dynamics_mjcf.empty() && fs::path(s.free_dynamics_mjcf).is_relative()) {
    s.free_dynamics_mjcf = (fs::path(json_path).parent_path() / s.free_dynamics_mjcf).string();
  }
  if (s.name.empty()) s.name = fs::path(json_path).stem().string();
  return s;
}


std::string robots_directory() {
  std::error_code ec;
  if (const char* env = std::getenv("FLASHNERD_ROBOTS")) {
    FN_CHECK(*env != '\0' && fs::is_directory(env, ec), "FLASHNERD_ROBOTS is set to '", env,
             "', which is not a directory; point it at a folder of robot specs (*.json), or unset it "
             "to use the built-in robots");
    return env;
  }
  const fs::path dir = fs::path(share_directory()) / "robots";
  FN_CHECK(fs::is_directory(dir, ec), "the built-in robots are missing: ", dir.string(),
           " does not exist; reinstall flashnerd or set FLASHNERD_ROBOTS to a folder of robot specs");
  return dir.string();
}

std::vector<std::string> builtin_robot_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(robots_directory(), ec)) {
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace flashnerd::sim
