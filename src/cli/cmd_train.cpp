// flashnerd train (placeholder until its issue lands).
#include "cli/cli_common.h"
#include "core/error.h"

namespace flashnerd::cli {

void register_train(CLI::App& app) {
  auto* sub = app.add_subcommand("train", "(train: not built yet)");
  sub->callback([] { throw Error("'flashnerd train' is not built yet in this version"); });
}

}  // namespace flashnerd::cli
