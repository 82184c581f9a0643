// flashnerd: learn a robot's dynamics from MuJoCo and replace the simulator where many
// dynamics queries are needed. One subcommand per job; see `flashnerd <cmd> --help`.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "cli/cli_common.h"
#include "core/error.h"

int main(int argc, char** argv) {
  CLI::App app{
      "FlashNeRD: streaming-transformer neural robot dynamics.\n"
      "Typical flow: gen (MuJoCo data) -> train (FlashNeRD or NeRD) -> eval / rollout / bench."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "flashnerd 0.1.0");
  flashnerd::cli::register_gen(app);
  flashnerd::cli::register_merge(app);
#ifdef FLASHNERD_WITH_TORCH
  flashnerd::cli::register_train(app);
  flashnerd::cli::register_finetune(app);
  flashnerd::cli::register_ppo(app);
#endif
  flashnerd::cli::register_import(app);
  flashnerd::cli::register_policy_eval(app);
  flashnerd::cli::register_bench_env(app);
  flashnerd::cli::register_policy_video(app);
  flashnerd::cli::register_plan(app);
  flashnerd::cli::register_plan_video(app);
  flashnerd::cli::register_eval(app);
  flashnerd::cli::register_calibrate(app);
  flashnerd::cli::register_bench(app);
  flashnerd::cli::register_bench_contacts(app);
  flashnerd::cli::register_rollout(app);
  flashnerd::cli::register_couple(app);
  flashnerd::cli::register_info(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const flashnerd::Error& e) {
    std::fprintf(stderr, "flashnerd: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "flashnerd: unexpected error: %s\n", e.what());
    return 1;
  }
  return 0;
}
