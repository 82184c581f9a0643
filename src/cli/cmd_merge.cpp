// flashnerd merge: the shards of one generation run (gen --shard i/n) joined into one dataset,
// or (--concat) datasets of different runs of one robot appended, e.g. random and on-policy data.
#include <filesystem>

#include "cli/cli_common.h"
#include "core/atomic_file.h"
#include "core/dataset.h"
#include "core/dataset_merge.h"
#include "core/error.h"
#include "core/output_policy.h"
#include "core/system_memory.h"

namespace flashnerd::cli {

namespace {

struct MergeArgs : DatasetOutput {
  CommonOptions common;
  std::vector<std::string> shards;
  bool concat = false;
};

void run_merge(const MergeArgs& a) {
  CommandInputs inputs;
  for (const auto& path : a.shards) inputs.push_back({"shard", path});
  const auto lock = claim_dataset_output(a, inputs);
  std::vector<Dataset> shards;
  for (const auto& path : a.shards) shards.push_back(load_dataset(path));
  const Dataset d = a.concat ? concat_datasets(std::move(shards), a.shards) : merge_shards(std::move(shards), a.shards);
  save_dataset(a.out, d);
  print_summary(a.common, "flashnerd merge: " + a.out,
                {{"file", a.out}, {"robot", d.robot}, {a.concat ? "datasets" : "shards", a.shards.size()}, {"trajectories", d.trajectories},
                 {"steps", d.steps}, {"seed", d.seed}});
}

}  // namespace

void register_merge(CLI::App& app) {
  auto [sub, a] = add_command<MergeArgs>(app, 
      "merge", "Join the shards of one run (flashnerd gen --shard i/n) into the dataset one run writes, or "
               "(--concat) append datasets of one robot", run_merge);
  sub.add_option("shards", a.shards, "Every shard file of the run, in any order (--concat: the datasets, "
                 "appended in this order)")->required();
  sub.add_flag("--concat", a.concat, "Append datasets of different runs that record the same robot, "
               "steps, probes and contacts (e.g. random and on-policy data for a finetune)");
  add_dataset_output_options(sub, a, "Output HDF5 file (written to a temporary name, then renamed)",
                             "Replace an existing --out");
}

}  // namespace flashnerd::cli
