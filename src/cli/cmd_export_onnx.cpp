// flashnerd export-onnx: a policy artifact (flashnerd ppo, or flashnerd.export_policy) as an
// ONNX graph with its observation normalization inside, for runtimes outside FlashNeRD.
#include <cstdio>
#include <filesystem>

#include "cli/cli_common.h"
#include "core/output_policy.h"
#include "rl/policy.h"
#include "rl/policy_onnx.h"

namespace flashnerd::cli {

namespace {

struct ExportOnnxArgs {
  CommonOptions common;
  std::string policy, out;
  bool overwrite = false;
};

void run_export_onnx(const ExportOnnxArgs& a) {
  const OutputLock lock(a.out, "--out");
  const rl::Policy policy = rl::export_policy_onnx(a.policy, a.out, a.overwrite);
  const rl::PolicyInfo& info = policy.info();
  print_summary(a.common, "flashnerd export-onnx: " + a.out,
                {{"policy", a.policy}, {"task", info.task}, {"observation_dim", info.observation_dim},
                 {"action_dim", info.action_dim}, {"hidden", info.hidden}, {"activation", rl::policy_activation_name(info.activation)},
                 {"bytes", std::filesystem::file_size(a.out)}, {"out", a.out}});
}

}  // namespace

void register_export_onnx(CLI::App& app) {
  auto [sub, a] = add_command<ExportOnnxArgs>(
      app, "export-onnx",
      "A policy as an ONNX graph (input 'observation' (batch, obs), output 'action' (batch, act): the mean "
      "action, normalization included)",
      run_export_onnx);
  sub.add_option("--policy", a.policy, "Policy directory (policy.json + policy.safetensors)")->required();
  sub.add_option("--out", a.out, "ONNX file to write (written to a temporary name, then renamed)")->required();
  sub.add_flag("--overwrite", a.overwrite, "Replace --out if it exists");
}

}  // namespace flashnerd::cli
