// flashnerd import: a robot's recorded log (CSV or .npz) into the dataset schema train and
// finetune read: columns mapped by name, resampled to the control step, gaps masked, probes
// and contact rows computed by MuJoCo at the recorded states (sim/recorded_import.h).
#include "cli/cli_common.h"
#include "cli/option_values.h"
#include "core/atomic_file.h"
#include "core/dataset.h"
#include "core/error.h"
#include "core/output_policy.h"
#include "core/recorded_log.h"
#include "sim/recorded_import.h"
#include "sim/robot.h"

namespace flashnerd::cli {

namespace {

struct ImportArgs : DatasetOutput {
  CommonOptions common;
  std::string robot, log;
  sim::ImportOptions import;  // the flags bind to its fields: one default each, the library's
};

void run_import(const ImportArgs& a) {
  const auto lock = claim_dataset_output(a, {{"--log", a.log}, {"--robot", a.robot}});
  auto robot = sim::Robot::load(a.robot);
  const RecordedLog log = read_recorded_log(a.log);
  sim::ImportReport r;
  const Dataset d = sim::import_recorded_log(*robot, log, a.log, a.import, &r);
  save_dataset(a.out, d);
  nlohmann::json summary = {
      {"robot", d.robot},          {"log_rows", r.rows},      {"duration_s", r.duration},
      {"median_step_s", r.median_step}, {"control_step_s", d.timestep}, {"segments", r.segments},
      {"gaps", r.gaps},            {"trajectories", d.trajectories}, {"steps", d.steps},
      {"valid_transitions", r.valid_transitions}, {"invalid_transitions", r.invalid_transitions},
      {"implausible_transitions", r.implausible_transitions}, {"first_implausible", r.first_implausible},
      {"probes", d.probe_count},   {"contact_capacity", d.contact_capacity}, {"ignored_columns", r.ignored_columns},
      {"out", a.out}};
  print_summary(a.common, "import " + a.log, summary);
}

}  // namespace

void register_import(CLI::App& app) {
  auto [sub, a] = add_command<ImportArgs>(app, "import", "A robot's recorded log (CSV or .npz) -> a dataset train and finetune read "
                                           "(columns by name, resampled, gaps masked; docs/FINETUNE.md)", run_import);
  sub.add_option("--robot", a.robot, "Built-in robot name or MJCF path the log belongs to")->required();
  sub.add_option("--log", a.log, "Recorded log: .csv with a header row, or .npz of 1-D arrays")->required();
  add_dataset_output_options(sub, a, "Dataset file to write (HDF5)", "Replace --out if it exists");
  sub.add_option("--steps", a.import.steps, "Transitions per trajectory")->check(at_least(1))->capture_default_str();
  // on | off as gen spells them; the older spellings (--no-probes, --contacts alone) still work
  add_enum_option(sub, "--probes", a.import.probes, on_off(), "Compute the robot's fixed-probe features");
  sub.add_flag("!--no-probes", a.import.probes, "The older spelling of --probes off")->group("");
  sub.add_flag("--contacts{on}", a.import.contacts, "Also compute contact rows (variable-contact models)")
      ->expected(0, 1)->transform(by_name(on_off()))->default_str("off");
  sub.add_option("--max-jitter", a.import.max_jitter,
                 "Refuse logs where over 5% of steps differ from the median step by more than this fraction")
      ->check(positive())->capture_default_str();
  sub.add_option("--max-velocity", a.import.max_velocity,
                 "Mask transitions with a velocity above this (rad/s or m/s); joints outside their range and "
                 "commands outside ctrlrange (by over 10% of the range) are masked too")
      ->check(positive())->capture_default_str();
  sub.add_option("--max-unbounded", a.import.max_unbounded,
                 "Mask transitions where a coordinate without a range (an unlimited joint, the base position, a "
                 "command without ctrlrange) exceeds this in magnitude")
      ->check(positive())->capture_default_str();
}

}  // namespace flashnerd::cli
