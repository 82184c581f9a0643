#include "sim/recorded_import.h"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/option_error.h"
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

// The plausible interval of every q, v and u coordinate of a frame: joint ranges and
// ctrlranges widened by the margin, velocities by the bound; unlimited ones unbounded.
struct Plausibility {
  std::vector<double> q_lo, q_hi, u_lo, u_hi;
  double v_max = 0;

  Plausibility(const Robot& robot, const ImportOptions& o) : v_max(o.max_velocity) {
    const mjModel* m = robot.model();
    const StateLayout& s = robot.layout();
    const double unbounded = o.max_unbounded;
    q_lo.assign(size_t(s.nq), -unbounded);
    q_hi.assign(size_t(s.nq), unbounded);
    const int base = s.base_nq();
    for (size_t j = 0; j < s.joint_names.size(); ++j) {
      const int id = mj_name2id(m, mjOBJ_JOINT, s.joint_names[j].c_str());
      if (id < 0 || !m->jnt_limited[id]) continue;
      const double lo = m->jnt_range[2 * id], hi = m->jnt_range[2 * id + 1], pad = o.range_margin * (hi - lo);
      q_lo[size_t(base) + j] = lo - pad;
      q_hi[size_t(base) + j] = hi + pad;
    }
    u_lo.assign(size_t(s.nu), -unbounded);
    u_hi.assign(size_t(s.nu), unbounded);
    for (size_t k = 0; k < robot.actuators().size() && k < size_t(s.nu); ++k) {
      const int id = mj_name2id(m, mjOBJ_ACTUATOR, robot.actuators()[k].name.c_str());
      if (id < 0 || !m->actuator_ctrllimited[id]) continue;
      const double lo = m->actuator_ctrlrange[2 * id], hi = m->actuator_ctrlrange[2 * id + 1];
      const double pad = o.range_margin * (hi - lo);
      u_lo[k] = lo - pad;
      u_hi[k] = hi + pad;
    }
  }

  // Empty when the transition (q, v at t and t+1, u at t) is plausible; else the first
  // offending column and its value.
  std::string violation(const Dataset& d, int64_t n, int64_t t, const LogColumns& c) const {
    for (int64_t f : {t, t + 1}) {
      const double* q = d.q(n, f);
      for (size_t i = 0; i < q_lo.size(); ++i)
        if (q[i] < q_lo[i] || q[i] > q_hi[i]) return str_cat(c.q[i], " = ", q[i]);
      const double* v = d.v(n, f);
      for (size_t i = 0; i < size_t(d.layout.nv); ++i)
        if (std::abs(v[i]) > v_max) return str_cat(c.v[i], " = ", v[i]);
    }
    const double* u = d.u(n, t);
    for (size_t i = 0; i < u_lo.size(); ++i)
      if (u[i] < u_lo[i] || u[i] > u_hi[i]) return str_cat(c.u[i], " = ", u[i]);
    return {};
  }
};

}  // namespace

LogColumns log_columns(const Robot& robot) {
  const StateLayout& s = robot.layout();
  LogColumns c;
  if (s.floating_base) {
    for (const char* k : {"x", "y", "z", "qw", "qx", "qy", "qz"}) c.q.push_back(std::string("base/") + k);
    for (const char* k : {"vx", "vy", "vz", "wx", "wy", "wz"}) c.v.push_back(std::string("base/") + k);
  }
  FN_CHECK(int(s.joint_names.size()) == s.joint_count() && s.nv - s.base_nv() == s.joint_count(),
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

namespace {

// The columns import reads, in layout order (q, v, u, a). Other columns of a robot family
// are refused (a typo); columns of no family are listed in rep.ignored_columns.
std::vector<std::string> wanted_columns(const Robot& robot, const RecordedLog& log, const std::string& origin,
                                        const LogColumns& map, ImportReport& rep) {
  std::vector<std::string> wanted;
  for (const auto* group : {&map.q, &map.v, &map.u, &map.a}) wanted.insert(wanted.end(), group->begin(), group->end());
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
  return wanted;
}

// The wanted columns resampled to the control step (commands held, the rest interpolated),
// as gap-free segments; refused when none is long enough for o.steps.
std::vector<ResampledSegment> resample_columns(const Robot& robot, const RecordedLog& log, const std::string& origin,
                                               const std::vector<std::string>& wanted, const ImportOptions& o,
                                               ResampleReport& rr) {
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
  std::vector<ResampledSegment> segments;
  try {
    segments = resample_log(*time, columns, hold, ro, &rr);
  } catch (const Error& e) {
    throw Error(str_cat(origin, ": ", e.what()));
  }
  FN_CHECK(!segments.empty(), origin, ": no gap-free stretch of the log covers one control step (", ro.dt, " s)");
  int64_t longest = 0;
  for (const auto& seg : segments) longest = std::max<int64_t>(longest, seg.frames - 1);
  FN_CHECK_OPTION(o.steps <= longest, "steps", o.steps, " is longer than the log's longest gap-free stretch (",
                  longest, " control steps); give at most ", longest);
  return segments;
}

// Each segment cut into trajectories of o.steps transitions, consecutive ones sharing a
// frame; the last one padded with its final frame and those transitions masked.
Dataset cut_trajectories(const Robot& robot, const std::vector<ResampledSegment>& segments, const std::string& origin,
                         const ImportOptions& o) {
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
  return d;
}

// A transition with a missing, non-finite or implausible value is masked; implausible ones
// are counted in rep, the first with its column and value.
void mask_bad_transitions(const Robot& robot, const ImportOptions& o, const LogColumns& map, Dataset& d,
                          ImportReport& rep) {
  const size_t nq = size_t(d.layout.nq), nv = size_t(d.layout.nv), nu = size_t(d.layout.nu),
               na = size_t(d.layout.na);
  const Plausibility bounds(robot, o);
  for (int64_t i = 0; i < d.trajectories; ++i)
    for (int64_t t = 0; t < d.steps; ++t) {
      uint8_t& v = d.valid[size_t(i * d.steps + t)];
      if (!v) continue;
      v = finite(d.q(i, t), nq) && finite(d.q(i, t + 1), nq) && finite(d.v(i, t), nv) && finite(d.v(i, t + 1), nv) &&
          finite(d.u(i, t), nu) && (na == 0 || (finite(d.a(i, t), na) && finite(d.a(i, t + 1), na)));
      if (!v) continue;
      const std::string why = bounds.violation(d, i, t, map);
      if (why.empty()) continue;
      v = 0;
      if (rep.implausible_transitions++ == 0) rep.first_implausible = why;
    }
}

}  // namespace

Dataset import_recorded_log(const Robot& robot, const RecordedLog& log, const std::string& origin,
                            const ImportOptions& o, ImportReport* report) {
  FN_CHECK_OPTION(o.steps >= 1, "steps", "must be >= 1 (got ", o.steps, ")");
  FN_CHECK(std::isfinite(o.max_velocity) && o.max_velocity > 0 && o.range_margin >= 0,
           "import: the velocity bound must be positive and the range margin >= 0");
  const LogColumns map = log_columns(robot);
  ImportReport rep;
  const std::vector<std::string> wanted = wanted_columns(robot, log, origin, map, rep);
  ResampleReport rr;
  const std::vector<ResampledSegment> segments = resample_columns(robot, log, origin, wanted, o, rr);
  Dataset d = cut_trajectories(robot, segments, origin, o);
  mask_bad_transitions(robot, o, map, d, rep);
  sense_recorded_states(robot, d);
  d.validate();
  const std::vector<double>& time = *log.find("time");
  rep.rows = log.rows();
  rep.duration = time.back() - time.front();
  rep.median_step = rr.median_step;
  rep.segments = int64_t(segments.size());
  rep.gaps = rr.gaps;
  for (uint8_t v : d.valid) (v ? rep.valid_transitions : rep.invalid_transitions) += 1;
  FN_CHECK(rep.valid_transitions > 0, origin, ": no valid transition (", rep.invalid_transitions,
           " masked: missing or non-finite values, gaps",
           rep.implausible_transitions > 0 ? str_cat(", ", rep.implausible_transitions, " implausible, first ",
                                                     rep.first_implausible)
                                           : std::string(),
           "); nothing to write");
  if (report) *report = rep;
  return d;
}

}  // namespace flashnerd::sim
