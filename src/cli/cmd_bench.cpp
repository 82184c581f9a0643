// flashnerd bench (placeholder until its issue lands).
#include "cli/cli_common.h"
#include "core/error.h"

namespace flashnerd::cli {

void register_bench(CLI::App& app) {
  auto* sub = app.add_subcommand("bench", "(bench: not built yet)");
  sub->callback([] { throw Error("'flashnerd bench' is not built yet in this version"); });
}

}  // namespace flashnerd::cli
