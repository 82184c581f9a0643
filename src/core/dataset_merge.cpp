#include "core/dataset_merge.h"

#include <algorithm>
#include <map>

#include "core/error.h"

namespace flashnerd {

namespace {

// The shard record of a generator block, or a clear refusal.
const nlohmann::json& shard_of(const Dataset& d, const std::string& name) {
  FN_CHECK(d.generator.contains("shard"), name, " is not a shard: it was generated whole, not as shard i of a run of n "
           "(only the shards of one run can be merged)");
  return d.generator.at("shard");
}

// The generator block without what differs between the shards of one run.
nlohmann::json run_settings(const Dataset& d) {
  nlohmann::json g = d.generator;
  g.erase("shard");
  g.erase("trajectories");
  return g;
}

template <typename T>
void append(std::vector<T>& to, const std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

}  // namespace

namespace {

// Moves every array of `from` to the end of `to`'s.
void append_arrays(Dataset& to, Dataset& from) {
  append(to.qpos, from.qpos);
  append(to.qvel, from.qvel);
  append(to.act, from.act);
  append(to.ctrl, from.ctrl);
  append(to.valid, from.valid);
  append(to.probes, from.probes);
  append(to.contact_rows, from.contact_rows);
  append(to.contact_link, from.contact_link);
  append(to.contact_count, from.contact_count);
  append(to.contact_overflow, from.contact_overflow);
  append(to.free_dv, from.free_dv);
  to.trajectories += from.trajectories;
  from = Dataset{};  // release as we go
}

// Throws unless b records what a records (same robot, timing and features); `same` reports a difference.
template <class Same>
void check_same_recording(const Dataset& a, const Dataset& b, const Same& same) {
  same(b.robot == a.robot && b.mjcf_hash == a.mjcf_hash, "robot or MJCF");
  same(b.steps == a.steps && b.timestep == a.timestep, "steps or timestep");
  same(b.layout == a.layout && b.actuator_model == a.actuator_model, "state layout or actuators");
  same(b.probe_count == a.probe_count && b.contact_capacity == a.contact_capacity && b.link_count == a.link_count &&
           b.free_dv.empty() == a.free_dv.empty(),
       "recorded probes, contacts or free dynamics");
}

}  // namespace

Dataset concat_datasets(std::vector<Dataset> parts, const std::vector<std::string>& names) {
  FN_CHECK(parts.size() >= 2, "merge: give at least two datasets to concatenate, got ", parts.size());
  FN_ASSERT(names.size() == parts.size());
  nlohmann::json sources = nlohmann::json::array();
  for (size_t k = 0; k < parts.size(); ++k) {
    if (k > 0)
      check_same_recording(parts[0], parts[k], [&](bool equal, const char* what) {
        FN_CHECK(equal, "merge: ", names[k], " does not record what ", names[0], " records: its ", what,
                 " differs");
      });
    // the same recording twice would count its trajectories twice (and leak them across the
    // training / validation split)
    for (size_t j = 0; j < k; ++j)
      FN_CHECK(parts[j].trajectories != parts[k].trajectories || parts[j].qpos != parts[k].qpos ||
                   parts[j].ctrl != parts[k].ctrl,
               "merge: ", names[k], " holds the same trajectories as ", names[j],
               "; give each dataset once");
    sources.push_back({{"file", names[k]}, {"seed", parts[k].seed}, {"trajectories", parts[k].trajectories},
                       {"generator", parts[k].generator}});
  }
  Dataset out = std::move(parts[0]);
  for (size_t k = 1; k < parts.size(); ++k) append_arrays(out, parts[k]);
  out.generator = {{"concatenated", sources}, {"trajectories", out.trajectories}};
  out.validate();
  return out;
}

namespace {

// Drops the first n trajectories of an array of `per` values per trajectory.
template <typename T>
void drop_front(std::vector<T>& v, int64_t n, int64_t per) {
  v.erase(v.begin(), v.begin() + long(std::min<size_t>(v.size(), size_t(n * per))));
}

}  // namespace

void append_keeping_newest(Dataset& d, Dataset newer, int64_t keep) {
  FN_CHECK(keep >= 1, "a rolling dataset keeps at least one trajectory, asked for ", keep);
  if (d.trajectories == 0) {
    d = std::move(newer);
  } else {
    check_same_recording(d, newer, [](bool equal, const char* what) {
      FN_CHECK(equal, "appending trajectories: the new ones do not record what the dataset records: their ", what,
               " differs");
    });
    append_arrays(d, newer);
  }
  const int64_t n = d.trajectories - keep;
  if (n <= 0) return;
  const int64_t F = d.frames(), T = d.steps, K = d.contact_capacity;
  drop_front(d.qpos, n, F * d.layout.nq);
  drop_front(d.qvel, n, F * d.layout.nv);
  drop_front(d.act, n, F * d.layout.na);
  drop_front(d.ctrl, n, T * d.layout.nu);
  drop_front(d.valid, n, T);
  drop_front(d.probes, n, F * d.probe_count * kProbeFeatureDim);
  drop_front(d.contact_rows, n, F * K * kContactRowDim);
  drop_front(d.contact_link, n, F * K);
  drop_front(d.contact_count, n, K > 0 ? F : 0);
  drop_front(d.contact_overflow, n, K > 0 ? F : 0);
  drop_front(d.free_dv, n, T * d.layout.nv);
  d.trajectories = keep;
  d.validate();
}

namespace {

// What differs between two shards that makes them parts of different runs, or nullptr.
const char* run_difference(const Dataset& a, const Dataset& b) {
  const nlohmann::json &sa = a.generator.at("shard"), &sb = b.generator.at("shard");
  const char* difference = nullptr;
  auto same = [&](bool equal, const char* what) {
    if (!equal && difference == nullptr) difference = what;
  };
  same(sa.at("count") == sb.at("count") && sa.at("total_trajectories") == sb.at("total_trajectories"),
       "shard count or total trajectories");
  check_same_recording(a, b, same);
  same(a.seed == b.seed, "seed");
  same(run_settings(a) == run_settings(b), "generator settings");
  return difference;
}

}  // namespace

Dataset merge_shards(std::vector<Dataset> shards, const std::vector<std::string>& names) {
  FN_CHECK(!shards.empty(), "merge: no shard given");
  FN_ASSERT(names.size() == shards.size());
  const size_t n = shards.size();
  for (size_t i = 0; i < n; ++i) shard_of(shards[i], names[i]);
  // the run is the one most shards agree on, so the foreign shard is the one named
  size_t ref = 0, ref_agree = 0;
  for (size_t i = 0; i < n; ++i) {
    size_t agree = 0;
    for (size_t j = 0; j < n; ++j) agree += j != i && run_difference(shards[i], shards[j]) == nullptr;
    if (agree > ref_agree) ref = i, ref_agree = agree;
  }
  for (size_t i = 0; i < n; ++i) {
    const char* what = run_difference(shards[ref], shards[i]);
    if (what == nullptr) continue;
    if (ref_agree == 0)
      throw Error(str_cat("merge: ", names[i], " and ", names[ref], " are from different runs: their ", what,
                          " differs; give only the shards of one run"));
    throw Error(str_cat("merge: ", names[i], " is from another run than ", names[ref], " and the ", ref_agree,
                        " other shard(s) that agree with it: its ", what, " differs; give only the shards of one run"));
  }
  const nlohmann::json& s0 = shard_of(shards[ref], names[ref]);
  const int count = s0.at("count").get<int>();
  const int64_t total = s0.at("total_trajectories").get<int64_t>();
  std::map<int, std::vector<size_t>> files;  // per shard index, the files given
  for (size_t i = 0; i < n; ++i) {
    const int index = shard_of(shards[i], names[i]).at("index").get<int>();
    FN_CHECK(index >= 0 && index < count, "merge: ", names[i], " claims to be shard ", index, "/", count,
             ", outside the run (shards count from 0); regenerate it");
    files[index].push_back(i);
  }
  for (const auto& [k, f] : files)
    FN_CHECK(f.size() == 1, "merge: shard ", k, "/", count, " is given twice (", names[f[0]], " and ", names[f[1]],
             "); give each shard of the run once");
  for (int k = 0; k < count; ++k)  // ends by k = n: the indices are distinct and in range
    FN_CHECK(files.count(k), "merge: the run has ", count, " shards, ", n, " given: the file of shard ", k, "/",
             count, " is missing");
  std::vector<size_t> order;  // by shard index
  for (const auto& [k, f] : files) order.push_back(f[0]);
  int64_t next = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const Dataset& d = shards[order[k]];
    const std::string& name = names[order[k]];
    const nlohmann::json& s = shard_of(d, name);
    FN_CHECK(s.at("first_trajectory").get<int64_t>() == next && d.trajectories > 0, "merge: ", name,
             " starts at trajectory ", s.at("first_trajectory").get<int64_t>(), ", expected ", next,
             " (a damaged shard?); regenerate it");
    next += d.trajectories;
  }
  FN_CHECK(next == total, "merge: the shards hold ", next, " of the run's ", total, " trajectories");

  Dataset out = std::move(shards[order[0]]);
  for (size_t k = 1; k < order.size(); ++k) append_arrays(out, shards[order[k]]);
  FN_ASSERT(out.trajectories == total);
  out.generator.erase("shard");
  out.generator["trajectories"] = total;
  out.validate();
  return out;
}

}  // namespace flashnerd
