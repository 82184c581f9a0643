// flashnerd: learn a robot's dynamics from MuJoCo and replace the simulator where many
// dynamics queries are needed. One subcommand per job; see `flashnerd <cmd> --help`.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/cli_common.h"
#include "cli/option_fields.h"
#include "cli/option_values.h"
#include "cli/worker_launcher.h"
#include "core/error.h"
#include "core/output_policy.h"

namespace {

// A message as the terminal should show it: bytes that are not printable (binary garbage
// quoted from a bad input file) as \xNN, and at most 2000 characters.
std::string printable(const char* message) {
  std::string out;
  for (const char* p = message; *p && out.size() < 2000; ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f) || c >= 0x80) {
      out += char(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (out.size() >= 2000) out += " [...]";
  return out;
}

// The exit status of a failed command. A data-parallel worker ends at once, without the static
// destructors: libtorch's communication threads may still be waiting on a dead or stopped peer,
// and its launcher needs this worker gone to stop the others and report.
int failed() {
  if (flashnerd::cli::is_worker_process()) {
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(1);
  }
  return 1;
}

}  // namespace

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
  flashnerd::cli::register_fit(app);
#endif
  flashnerd::cli::register_import(app);
  flashnerd::cli::register_policy_eval(app);
  flashnerd::cli::register_bench_env(app);
  flashnerd::cli::register_policy_video(app);
  flashnerd::cli::register_export_onnx(app);
  flashnerd::cli::register_plan(app);
  flashnerd::cli::register_plan_video(app);
  flashnerd::cli::register_eval(app);
  flashnerd::cli::register_calibrate(app);
  flashnerd::cli::register_bench(app);
  flashnerd::cli::register_bench_contacts(app);
  flashnerd::cli::register_rollout(app);
  flashnerd::cli::register_couple(app);
  flashnerd::cli::register_plot(app);
  flashnerd::cli::register_tasks(app);
  flashnerd::cli::register_info(app);
  flashnerd::cli::check_every_value(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const flashnerd::OptionError& e) {  // about one option: named by its flag, as CLI11 does
    std::fprintf(stderr, "flashnerd: error: %s\n", printable(flashnerd::cli::flag_message(e).c_str()).c_str());
    return failed();
  } catch (const flashnerd::Error& e) {
    std::fprintf(stderr, "flashnerd: error: %s\n", printable(e.what()).c_str());
    return failed();
  } catch (const std::filesystem::filesystem_error& e) {  // a path no check examined first (a symlink loop)
    const std::string what = flashnerd::unexaminable_path_message(e.path1().string(), "path", e.code());
    std::fprintf(stderr, "flashnerd: error: %s\n", printable(what.c_str()).c_str());
    return failed();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "flashnerd: unexpected error: %s\n", printable(e.what()).c_str());
    return failed();
  }
  return 0;
}
