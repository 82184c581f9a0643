// flashnerd fit: from a robot (built-in, spec or any MJCF) to a trained, evaluated and
// calibrated model or ensemble in one command. Each stage runs a flashnerd subcommand as a
// child process and is finished when its summary exists in --out; a killed fit reruns only
// what was unfinished, and the children continue their own checkpoints (gen's blocks,
// train's checkpoints), so a resumed fit ends with the bytes an uninterrupted one writes.
//   OUT/fit.json       the plan (flags and robot-derived defaults; read and edit it)
//   OUT/robot.json     the robot and its sampler settings, as gen reads them
//   OUT/data/          train.h5, test.h5, check.h5 (+ gen summaries)
//   OUT/budget.json    a --budget turned into windows per member by a measured training rate
//   OUT/model/         the artifact: one model, or ensemble.json + member_I/
//   OUT/eval.json, OUT/eval/   held-out rollout NRMSE against horizon (members, mean), plots
//   OUT/calibrate.json, OUT/calibrate/   disagreement against error (ensembles)
//   OUT/provenance.json, OUT/timing.json, OUT/logs/
#include <memory>

#include "cli/fit_run.h"
#include "cli/option_values.h"
#include "cli/robot_options.h"
#include "core/error.h"
#include "train/precision.h"

namespace flashnerd::cli {

void register_fit(CLI::App& app) {
  // the callback needs the subcommand (which flags were given), made by add_command itself
  auto subcommand = std::make_shared<CLI::App*>(nullptr);
  auto [sub, a] = add_command<FitArgs>(
      app, "fit",
      "From a robot to a trained, evaluated and calibrated model or ensemble: MuJoCo data, members trained side "
      "by side, held-out rollout error, calibration, provenance. Resumable: rerun the same command after a kill",
      [subcommand](const FitArgs& args) {
        Fit fit(args, **subcommand);
        fit.run();
      });
  *subcommand = &sub;
  FitPlan& p = a.plan;
  sub.add_option("--robot", p.robot, "Built-in robot name or a robot spec (.json)");
  sub.add_option("--mjcf", a.mjcf, "Any MJCF file (sampler defaults from its joint and actuator ranges)");
  sub.add_option("--out", a.out, "The fit's directory (fit.json, data/, model/, eval/, provenance.json)")->required();
  sub.add_option("--task", p.task, "The task policies will learn on the model (a name or spec; named in the summary)");
  sub.add_option("--budget", a.budget,
                 "Wall time for the whole fit, e.g. 20m, 1h30m (default 30m): training gets what data and "
                 "evaluation leave, at the training rate measured on this machine");
  sub.add_option("--windows", p.windows, "Training windows per member instead of a --budget (runs repeat exactly)")
      ->check(positive());
  sub.add_option("--members", p.members, "Ensemble members (1: one model)")->check(in_range(1, 16))->capture_default_str();
  sub.add_option("--jobs", p.jobs, "Members trained at once, one core each (default: one per core)")
      ->check(at_least(1));
  sub.add_option("--workers", p.workers,
                 "Data-parallel processes per member (default: the cores the --jobs leave; train --workers)")
      ->check(at_least(1));
  sub.add_option("--seed", p.seed, "Seed of the data (train: seed, test: +1, check: +2) and of member I (seed+I)")
      ->capture_default_str();
  sub.add_option("--trajectories", p.data.train_trajectories,
                 "Training trajectories (default: 8000 for a fixed base, 20000 for a floating one)")
      ->check(positive());
  sub.add_option("--steps", p.data.steps, "Control steps per training trajectory (default: the robot's)")
      ->check(positive());
  sub.add_option("--test-trajectories", p.data.test_trajectories, "Held-out trajectories for the evaluation")
      ->check(positive())->capture_default_str();
  add_enum_option(sub, "--contacts", p.data.contacts, on_off(), "Record contact rows (for --variable-contacts)");
  sub.add_flag("--climbing-probes", p.data.climbing_probes, "Record the robot's climbing probe set (quadruped)");
  sub.add_option("--policy-data", p.data.policy,
                 "A policy (flashnerd ppo's policy/) whose MuJoCo trajectories join the training data");
  sub.add_option("--policy-trajectories", p.data.policy_trajectories,
                 "On-policy trajectories (default: a quarter of --trajectories)")
      ->check(positive());
  add_enum_option(sub, "--arch", p.training.arch, names_of({Arch::FlashNeRD, Arch::NeRD}, arch_name),
                  "Architecture: flashnerd or nerd");
  add_enum_option(sub, "--preset", p.training.preset, names_of(kModelPresetNames), "Model size (train --preset)");
  sub.add_option("--batch", p.training.batch, "Windows per update")->check(positive())->capture_default_str();
  sub.add_option("--lr", p.training.lr, "Initial learning rate")->check(positive())->capture_default_str();
  add_enum_option(sub, "--precision", p.training.precision, names_of(train::kTrainingPrecisionNames),
                  "Training products: auto (bf16 where the CPU has it and it is faster), fp32 or bf16");
  sub.add_option("--patience", p.training.patience,
                 "A member stops after this many validations without a lower validation loss (0: never)")
      ->check(at_least(0))->capture_default_str();
  sub.add_option("--valid-every", p.training.valid_every, "Validate every K updates (default: 25 times a run)")
      ->check(positive());
  sub.add_flag("--variable-contacts", p.training.variable_contacts,
               "Train on contact rows through the set encoder (records them: --contacts on)");
  sub.add_option("--horizons", p.horizons, "Evaluation horizons (default 1,15,100,200; floating base adds 50)")
      ->delimiter(',')->check(positive());
  sub.add_option("--init-from", p.init_from,
                 "Continue a trained model or ensemble: member I starts from its member I (fresh optimizer)");
  add_robot_override_options(sub, a.overrides);
  add_quiet_flag(sub, a.progress);
}

}  // namespace flashnerd::cli
