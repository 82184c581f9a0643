#include "cli/plot_drawing.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "core/plot_spec.h"
#include "core/share_directory.h"

extern char** environ;

namespace flashnerd::cli {

namespace {

std::string python_interpreter() {
  if (const char* env = std::getenv("FLASHNERD_PYTHON"); env && *env) return env;
  if (::access("/usr/bin/python3", X_OK) == 0) return "/usr/bin/python3";
  return "python3";
}

// Runs `python plot.py specs...`; the exit status, or -1 when it could not start.
int run_drawer(const std::string& python, const std::string& script, const std::vector<std::string>& specs) {
  std::vector<std::string> args = {python, script};
  args.insert(args.end(), specs.begin(), specs.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (::posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ) != 0) return -1;
  int status = 0;
  if (::waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::vector<std::string> draw_plots(const std::vector<std::string>& specs) {
  if (specs.empty()) return {};
  const std::string script = (std::filesystem::path(share_directory()) / "plot.py").string();
  const std::string python = python_interpreter();
  const int status = std::filesystem::exists(script) ? run_drawer(python, script, specs) : -1;
  if (status != 0) {
    std::fprintf(stderr, "warning: plots not drawn (%s %s: %s); their data stays in %s%s; draw them later with "
                 "`flashnerd plot SPEC`\n", python.c_str(), script.c_str(),
                 status < 0 ? "could not run" : "failed", specs[0].c_str(), specs.size() > 1 ? " and beside it" : "");
    return {};
  }
  std::vector<std::string> pngs;
  for (const auto& s : specs) pngs.push_back(plot_png_path(s));
  return pngs;
}

}  // namespace flashnerd::cli
