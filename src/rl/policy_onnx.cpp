#include "rl/policy_onnx.h"

#include <cstring>
#include <vector>

#include "core/atomic_file.h"
#include "core/output_policy.h"
#include "core/protobuf_writer.h"

namespace flashnerd::rl {

namespace {

// onnx.proto's field numbers and enums used here.
constexpr int kFloat = 1;            // TensorProto.DataType FLOAT
constexpr int kAttributeInt = 2;     // AttributeProto.AttributeType INT
constexpr int kIrVersion = 7;        // ONNX 1.8+ reads it
constexpr int kOpset = 13;

ProtoWriter tensor(const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& values) {
  ProtoWriter t;
  for (int64_t d : dims) t.varint(1, d);  // dims
  t.varint(2, kFloat);                     // data_type
  t.bytes(8, name);                        // name
  std::string raw(values.size() * sizeof(float), '\0');  // raw_data: little-endian floats
  if (!values.empty()) std::memcpy(&raw[0], values.data(), raw.size());
  t.bytes(9, raw);
  return t;
}

ProtoWriter node(const std::string& op, const std::vector<std::string>& inputs, const std::string& output,
                 bool transpose_b = false) {
  ProtoWriter n;
  for (const auto& in : inputs) n.bytes(1, in);
  n.bytes(2, output);
  n.bytes(3, output);  // the node is named after its output
  n.bytes(4, op);
  if (transpose_b) {
    ProtoWriter a;
    a.bytes(1, "transB").varint(3, 1).varint(20, kAttributeInt);
    n.message(5, a);
  }
  return n;
}

// A float tensor (batch, width) with a symbolic batch dimension.
ProtoWriter value_info(const std::string& name, int width) {
  ProtoWriter batch, features, shape, tensor_type, type, info;
  batch.bytes(2, "batch");    // Dimension.dim_param
  features.varint(1, width);  // Dimension.dim_value
  shape.message(1, batch).message(1, features);
  tensor_type.varint(1, kFloat).message(2, shape);
  type.message(1, tensor_type);
  info.bytes(1, name).message(2, type);
  return info;
}

}  // namespace

std::string policy_onnx_bytes(const Policy& policy) {
  const PolicyInfo& info = policy.info();
  const int64_t D = info.observation_dim;
  ProtoWriter graph;
  graph.message(1, node("Sub", {"observation", "obs_mean"}, "centered"));
  graph.message(1, node("Div", {"centered", "obs_denominator"}, "x0"));
  const auto& layers = policy.layers();
  for (size_t l = 0; l < layers.size(); ++l) {
    const std::string x = "x" + std::to_string(l), w = "actor." + std::to_string(l) + ".weight",
                      b = "actor." + std::to_string(l) + ".bias";
    const bool last = l + 1 == layers.size();
    const std::string z = last ? "action" : "z" + std::to_string(l);
    graph.message(1, node("Gemm", {x, w, b}, z, true));
    if (!last) graph.message(1, node(info.activation == PolicyActivation::Tanh ? "Tanh" : "Elu", {z}, "x" + std::to_string(l + 1)));
  }
  graph.bytes(2, "flashnerd_policy_" + info.task);
  graph.message(5, tensor("obs_mean", {D}, policy.observation_mean()));
  graph.message(5, tensor("obs_denominator", {D}, policy.observation_denominator()));
  for (size_t l = 0; l < layers.size(); ++l) {
    const PolicyLayer& L = layers[l];
    graph.message(5, tensor("actor." + std::to_string(l) + ".weight", {L.out, L.in}, L.weight));
    graph.message(5, tensor("actor." + std::to_string(l) + ".bias", {L.out}, L.bias));
  }
  graph.bytes(10, "Mean action of the task " + info.task + "'s policy from raw observations (" +
                      std::to_string(D) + " values), normalization included");
  graph.message(11, value_info("observation", int(D)));
  graph.message(12, value_info("action", info.action_dim));
  ProtoWriter opset, model;
  opset.bytes(1, "").varint(2, kOpset);
  model.varint(1, kIrVersion).bytes(2, "flashnerd").bytes(3, "0.1.0").message(7, graph).message(8, opset);
  return model.data();
}

void export_policy_onnx(const Policy& policy, const std::string& path, bool overwrite) {
  check_output_file(path, "out", overwrite);
  write_file_atomic(path, policy_onnx_bytes(policy));
}

Policy export_policy_onnx(const std::string& policy_dir, const std::string& path, bool overwrite) {
  check_output_not_input(path, "out", {{"policy", policy_dir}});
  Policy policy = Policy::load(policy_dir);
  export_policy_onnx(policy, path, overwrite);
  return policy;
}

}  // namespace flashnerd::rl
