#include "sim/recorded_import.h"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "sim/contact_sensor.h"
#include "sim/probe_features.h"

namespace flashnerd::sim {

namespace {

bool finite(const double* p, size_t count) {
  return std::all_of(p, p + count, [](double x) { return std::isfinite(x); });
}

}  // namespace

Dataset recorded_dataset(const Robot& robot, int64_t n, int64_t steps, bool probes, bool contacts,
                         const nlohmann::json& source) {
  Dataset d;
  d.robot = robot.name();
  d.mjcf_hash = robot.mjcf_hash();
  d.actuator_model = robot.spec().actuator_model;
  d.timestep = robot.control_timestep();
  d.layout = robot.layout();
  d.probe_count = probes ? int(robot.probes().size()) : 0;
  d.contact_capacity = contacts ? robot.spec().contact_capacity : 0;
  d.link_count = robot.link_count();
  d.generator = {{"source", source},           {"steps", steps},        {"trajectories", n},
                 {"contacts", contacts},        {"probes", d.probe_count > 0},
                 {"spec", robot.spec().to_json()}, {"mujoco_version", mj_versionString()}};
  d.allocate(n, steps, false);
  return d;
}

void sense_recorded_states(const Robot& robot, Dataset& d) {
  const int K = d.contact_capacity, P = d.probe_count;
  if (K == 0 && P == 0) return;
  ContactSensor sensor(robot);
  for (int64_t n = 0; n < d.trajectories; ++n)
    for (int64_t t = 0; t < d.frames(); ++t) {
      // a frame with missing values keeps zero features (its transitions are masked)
      if (!finite(d.q(n, t), size_t(d.layout.nq)) || !finite(d.v(n, t), size_t(d.layout.nv))) continue;
      sensor.place(0, n, d.q(n, t), d.v(n, t));
      const size_t f = size_t(n * d.frames() + t);
      if (K > 0) {
        ContactRowsOut out{d.contact_rows.data() + f * size_t(K) * kContactRowDim, d.contact_link.data() + f * size_t(K),
                           0, 0};
        sensor.detect(K, out);
        d.contact_count[f] = out.count;
        d.contact_overflow[f] = out.overflow;
      } else {
        sensor.kinematics();
      }
      if (P > 0)
        build_probe_features(robot, sensor.model(), sensor.data(), robot.probes(), robot.spec().probe_threshold,
                             d.probes.data() + f * size_t(P) * kProbeFeatureDim);
    }
}

namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

}  // namespace

LogColumns log_columns(const Robot& robot) {
  const StateLayout& s = robot.layout();
  LogColumns c;
  if (s.floating_base) {
    for (const char* k : {"x", "y", "z", "qw", "qx", "qy", "qz"}) c.q.push_back(std::string("base/") + k);
    for (const char* k : {"vx", "vy", "vz", "wx", "wy", "wz"}) c.v.push_back(std::string("base/") + k);
  }
  FN_CHECK(int(s.joint_names.size()) == s.joint_count() && s.nv - (s.floating_base ? 6 : 0) == s.joint_count(),
           "robot '", robot.name(), "' has joints with several coordinates (ball joints): import maps one "
           "coordinate per joint name");
  for (const auto& j : s.joint_names) {
    c.q.push_back("q/" + j);
    c.v.push_back("v/" + j);
  }
  for (const auto& act : robot.actuators()) {
    c.u.push_back("u/" + act.name);
    if (act.dynamics != "none") c.a.push_back("a/" + act.name);
  }
  return c;
}

Dataset import_recorded_log(const Robot& robot, const RecordedLog& log, const std::string& origin,
                            const ImportOptions& o, ImportReport* report) {
  FN_CHECK(o.steps >= 1, "import: --steps must be >= 1");
  const LogColumns map = log_columns(robot);
  std::vector<std::string> wanted;
  for (const auto* group : {&map.q, &map.v, &map.u, &map.a}) wanted.insert(wanted.end(), group->begin(), group->end());
  ImportReport rep;
  // every column of a robot family must name something of the robot: a typo is refused
  for (const auto& name : log.names) {
    if (name == "time" || std::find(wanted.begin(), wanted.end(), name) != wanted.end()) continue;
    const bool family = starts_with(name, "q/") || starts_with(name, "v/") || starts_with(name, "u/") ||
                        starts_with(name, "a/") || starts_with(name, "base/");
    std::string choices;
    for (const auto& w : wanted)
      if (w.substr(0, 2) == name.substr(0, 2)) choices += (choices.empty() ? "" : ", ") + w;
    FN_CHECK(!family, origin, ": column '", name, "' names nothing of robot '", robot.name(), "'",
             choices.empty() ? std::string() : str_cat(" (expected columns like it: ", choices, ")"));
    rep.ignored_columns.push_back(name);
  }
  const std::vector<double>* time = log.find("time");
  FN_CHECK(time, origin, ": no 'time' column (seconds)");
  std::vector<const std::vector<double>*> columns;
  std::vector<bool> hold;
  for (const auto& name : wanted) {
    const std::vector<double>* c = log.find(name);
    FN_CHECK(c, origin, ": column '", name, "' is missing; robot '", robot.name(), "' needs ", wanted.size(),
             " columns besides time (q/, v/ per joint, u/ per actuator",
             robot.layout().floating_base ? ", base/ pose and velocity" : "",
             robot.layout().na > 0 ? ", a/ per actuator with dynamics" : "", ")");
    columns.push_back(c);
    hold.push_back(starts_with(name, "u/"));
  }
  ResampleOptions ro;
  ro.dt = robot.control_timestep();
  ro.max_jitter = o.max_jitter;
  ro.gap_factor = o.gap_factor;
  ResampleReport rr;
  std::vector<ResampledSegment> segments;
  try {
    segments = resample_log(*time, columns, hold, ro, &rr);
  } catch (const Error& e) {
    throw Error(str_cat(origin, ": ", e.what()));
  }
  FN_CHECK(!segments.empty(), origin, ": no gap-free stretch of the log covers one control step (", ro.dt, " s)");
  // trajectories: each segment cut into `steps` transitions, consecutive ones sharing a frame
  const int64_t T = o.steps;
  int64_t N = 0;
  for (const auto& s : segments) N += (s.frames - 1 + T - 1) / T;
  Dataset d = recorded_dataset(robot, N, T, o.probes, o.contacts, {{"import", origin}});
  const StateLayout& s = d.layout;
  const size_t nq = size_t(s.nq), nv = size_t(s.nv), nu = size_t(s.nu), na = size_t(s.na);
  int64_t n = 0;
  for (const auto& seg : segments) {
    for (int64_t start = 0; start + 1 < seg.frames; start += T, ++n) {
      for (int64_t t = 0; t <= T; ++t) {
        const int64_t k = std::min(start + t, seg.frames - 1);  // past the end: repeat the last frame
        auto fill = [&](double* dst, size_t count, size_t offset) {
          for (size_t i = 0; i < count; ++i) dst[i] = seg.columns[offset + i][size_t(k)];
        };
        fill(d.qpos.data() + size_t(n * d.frames() + t) * nq, nq, 0);
        fill(d.qvel.data() + size_t(n * d.frames() + t) * nv, nv, nq);
        if (na > 0) fill(d.act.data() + size_t(n * d.frames() + t) * na, na, nq + nv + nu);
        if (t < T) {
          fill(d.ctrl.data() + size_t(n * T + t) * nu, nu, nq + nv);
          bool ok = start + t + 1 < seg.frames;
          if (s.floating_base && ok) {  // interpolated quaternions are renormalized
            for (int64_t f : {t, t + 1}) {
              double* q = d.qpos.data() + size_t(n * d.frames() + f) * nq + 3;
              const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
              if (norm > 0) for (int i = 0; i < 4; ++i) q[i] /= norm;
            }
          }
          d.valid[size_t(n * T + t)] = ok ? 1 : 0;
        }
      }
    }
  }
  // a transition with a missing or non-finite value is masked
  for (int64_t i = 0; i < N; ++i)
    for (int64_t t = 0; t < T; ++t) {
      uint8_t& v = d.valid[size_t(i * T + t)];
      if (!v) continue;
      v = finite(d.q(i, t), nq) && finite(d.q(i, t + 1), nq) && finite(d.v(i, t), nv) && finite(d.v(i, t + 1), nv) &&
          finite(d.u(i, t), nu) && (na == 0 || (finite(d.a(i, t), na) && finite(d.a(i, t + 1), na)));
    }
  sense_recorded_states(robot, d);
  d.validate();
  rep.rows = log.rows();
  rep.duration = time->back() - time->front();
  rep.median_step = rr.median_step;
  rep.segments = int64_t(segments.size());
  rep.gaps = rr.gaps;
  for (uint8_t v : d.valid) (v ? rep.valid_transitions : rep.invalid_transitions) += 1;
  if (report) *report = rep;
  return d;
}

}  // namespace flashnerd::sim
