// flashnerd eval (placeholder until its issue lands).
#include "cli/cli_common.h"
#include "core/error.h"

namespace flashnerd::cli {

void register_eval(CLI::App& app) {
  auto* sub = app.add_subcommand("eval", "(eval: not built yet)");
  sub->callback([] { throw Error("'flashnerd eval' is not built yet in this version"); });
}

}  // namespace flashnerd::cli
