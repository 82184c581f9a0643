// flashnerd gen (placeholder until its issue lands).
#include "cli/cli_common.h"
#include "core/error.h"

namespace flashnerd::cli {

void register_gen(CLI::App& app) {
  auto* sub = app.add_subcommand("gen", "(gen: not built yet)");
  sub->callback([] { throw Error("'flashnerd gen' is not built yet in this version"); });
}

}  // namespace flashnerd::cli
