// A policy as an ONNX graph (opset 13) that needs nothing of FlashNeRD to run: input
// "observation" (batch, observation_dim) float, output "action" (batch, action_dim), the
// mean action of Policy::act with the observation normalization inside:
//   Sub(mean) -> Div(denominator) -> [Gemm -> Elu | Tanh]* -> Gemm.
// For a robot's control computer, or any runtime (onnxruntime, TensorRT, a browser).
#pragma once

#include <string>

#include "rl/policy.h"

namespace flashnerd::rl {

// The ONNX ModelProto's bytes.
std::string policy_onnx_bytes(const Policy& policy);

// Writes the graph to `path` (atomically); an existing file is replaced only when
// `overwrite`.
void export_policy_onnx(const Policy& policy, const std::string& path, bool overwrite);
// The same for the policy artifact in `policy_dir`, refusing a `path` that names the
// directory itself (what the CLI and Python export); returns the policy it wrote.
Policy export_policy_onnx(const std::string& policy_dir, const std::string& path, bool overwrite);

}  // namespace flashnerd::rl
