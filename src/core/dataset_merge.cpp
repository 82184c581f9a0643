#include "core/dataset_merge.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"

namespace flashnerd {

namespace {

// The shard record of a generator block, or a clear refusal.
const nlohmann::json& shard_of(const Dataset& d, const std::string& name) {
  FN_CHECK(d.generator.contains("shard"), name, " is not a shard: it was generated without --shard i/n "
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

Dataset merge_shards(std::vector<Dataset> shards, const std::vector<std::string>& names) {
  FN_CHECK(!shards.empty(), "merge: no shard given");
  FN_ASSERT(names.size() == shards.size());
  std::vector<size_t> order(shards.size());
  std::iota(order.begin(), order.end(), size_t(0));
  auto index = [&](size_t i) { return shard_of(shards[i], names[i]).at("index").get<int>(); };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return index(a) < index(b); });

  const Dataset& first = shards[order[0]];
  const nlohmann::json& s0 = shard_of(first, names[order[0]]);
  const int count = s0.at("count").get<int>();
  const int64_t total = s0.at("total_trajectories").get<int64_t>();
  FN_CHECK(int(shards.size()) == count, "merge: the run has ", count, " shards, ", shards.size(), " given");
  int64_t next = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const Dataset& d = shards[order[k]];
    const std::string& name = names[order[k]];
    const nlohmann::json& s = shard_of(d, name);
    FN_CHECK(s.at("index").get<int>() == int(k), "merge: shard ", k, "/", count, " is ",
             s.at("index").get<int>() < int(k) ? "given twice" : "missing", " (", name, " is shard ",
             s.at("index").get<int>(), ")");
    auto same = [&](bool equal, const char* what) {
      FN_CHECK(equal, "merge: ", name, " is from another run than ", names[order[0]], ": its ", what, " differs");
    };
    same(s.at("count") == s0.at("count") && s.at("total_trajectories") == s0.at("total_trajectories"),
         "shard count or total trajectories");
    same(d.robot == first.robot && d.mjcf_hash == first.mjcf_hash, "robot or MJCF");
    same(d.seed == first.seed, "seed");
    same(d.steps == first.steps && d.timestep == first.timestep, "steps or timestep");
    same(d.layout == first.layout && d.actuator_model == first.actuator_model, "state layout or actuators");
    same(d.probe_count == first.probe_count && d.contact_capacity == first.contact_capacity &&
             d.link_count == first.link_count && d.free_dv.empty() == first.free_dv.empty(),
         "recorded probes, contacts or free dynamics");
    same(run_settings(d) == run_settings(first), "generator settings");
    FN_CHECK(s.at("first_trajectory").get<int64_t>() == next && d.trajectories > 0, "merge: ", name,
             " starts at trajectory ", s.at("first_trajectory").get<int64_t>(), ", expected ", next);
    next += d.trajectories;
  }
  FN_CHECK(next == total, "merge: the shards hold ", next, " of the run's ", total, " trajectories");

  Dataset out = std::move(shards[order[0]]);
  for (size_t k = 1; k < order.size(); ++k) {
    Dataset& d = shards[order[k]];
    append(out.qpos, d.qpos);
    append(out.qvel, d.qvel);
    append(out.act, d.act);
    append(out.ctrl, d.ctrl);
    append(out.valid, d.valid);
    append(out.probes, d.probes);
    append(out.contact_rows, d.contact_rows);
    append(out.contact_link, d.contact_link);
    append(out.contact_count, d.contact_count);
    append(out.contact_overflow, d.contact_overflow);
    append(out.free_dv, d.free_dv);
    d = Dataset{};  // release as we go
  }
  out.trajectories = total;
  out.generator.erase("shard");
  out.generator["trajectories"] = total;
  out.validate();
  return out;
}

}  // namespace flashnerd
