// flashnerd rollout (placeholder until its issue lands).
#include "cli/cli_common.h"
#include "core/error.h"

namespace flashnerd::cli {

void register_rollout(CLI::App& app) {
  auto* sub = app.add_subcommand("rollout", "(rollout: not built yet)");
  sub->callback([] { throw Error("'flashnerd rollout' is not built yet in this version"); });
}

}  // namespace flashnerd::cli
