// libtorch modules of the two architectures (docs/DESIGN.md §2 and §3), written so that
// named_parameters() yields exactly the names and shapes of model_tensors(config): the
// trained weights go to the artifact without renaming, and docs/FORMAT.md describes both.
//
// Both modules map a window of standardized frames x̂ (B, T, input_dim) to standardized
// increments ŷ (B, T, output_dim) at every position; position t sees only frames <= t
// (FlashNeRD: frames t−S_ℓ+1..t per block; NeRD: frames 0..t of the window).
//
// This header includes torch: only src/train/*.cpp and tests include it (never core,
// engine or CLI code).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "core/contact_row.h"
#include "core/model_artifact.h"
#include "core/model_config.h"

namespace flashnerd::train {

// Contact rows of a window of frames (docs/DESIGN.md §4), already standardized with the
// model's contact_mean / contact_std: rows (B, T, K, kContactRowDim) float, link (B, T, K)
// int64 (any valid index on padding), mask (B, T, K) bool (true = a detected contact).
// K may be smaller than the model's capacity (trimmed to the largest count of a batch).
struct ContactWindow {
  torch::Tensor rows, link, mask;
};

// Common interface of the trainable models.
class DynamicsModel : public torch::nn::Module {
 public:
  // x̂ (B, T, input_dim) standardized inputs -> ŷ (B, T, output_dim) standardized increments.
  virtual torch::Tensor forward(const torch::Tensor& x) = 0;
  // The same with the frames' contact rows; contacts must be given exactly when the model
  // reads them (config().contact.enabled()).
  virtual torch::Tensor predict(const torch::Tensor& x, const ContactWindow* contacts);
  const ModelConfig& config() const { return config_; }
  // Dropout on every residual branch while training (fine-tuning; 0 = none). Not part of the
  // artifact: inference never drops. eval() turns it off for validation.
  virtual void set_dropout(double p) { dropout_ = p; }
  double dropout() const { return dropout_; }

 protected:
  explicit DynamicsModel(const ModelConfig& c) : config_(c) {}
  torch::Tensor drop(const torch::Tensor& x) { return dropout_ > 0 ? torch::dropout(x, dropout_, is_training()) : x; }
  ModelConfig config_;
  double dropout_ = 0;
};

// RMSNorm (weight) or LayerNorm (weight, optional bias), epsilon kNormEpsilon.
class NormImpl : public torch::nn::Module {
 public:
  NormImpl(int64_t dim, NormKind kind, bool with_bias);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor weight, bias;  // (dim), bias undefined when absent

 private:
  NormKind kind_;
  int64_t dim_;
};
TORCH_MODULE(Norm);

// Gated, bias-free map of a pooled contact vector: G(p) = (A p) ⊙ sigmoid(B p), so G(0) = 0.
// The variable-contact issue instantiates three of them (G_e, G_r, G_Δ); FlashNeRD calls
// them only when a pooled contact vector is given, so "no contacts" contributes exactly zero.
class ContactGateImpl : public torch::nn::Module {
 public:
  ContactGateImpl(int64_t in_dim, int64_t out_dim);
  torch::Tensor forward(const torch::Tensor& p);  // (..., in_dim) -> (..., out_dim)
  torch::nn::Linear value{nullptr}, gate{nullptr};
};
TORCH_MODULE(ContactGate);

// Set encoder of contact rows: per-row MLP φ([row ; link_embed[link]]) -> e features, then
// M learned queries pool the valid rows by masked attention; p = flattened slots, exactly 0
// for a frame without valid rows. Parameters: link_embed, row.fc1, row.fc2, pool.queries.
class ContactEncoderImpl : public torch::nn::Module {
 public:
  explicit ContactEncoderImpl(const ContactEncoderConfig& c);
  torch::Tensor forward(const ContactWindow& w);  // -> p (B, T, M·e)
  // Per-row features φ (B, T, K, e), before pooling (tests, diagnostics).
  torch::Tensor row_features(const ContactWindow& w);

 private:
  ContactEncoderConfig c_;
  torch::Tensor link_embed_, queries_;
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr};
};
TORCH_MODULE(ContactEncoder);

// FlashNeRD block: one norm feeds multi-query banded attention with lag bias and a gated
// FFN; h = h + a + f.
class FlashBlockImpl : public torch::nn::Module {
 public:
  FlashBlockImpl(const FlashConfig& f, int span);
  torch::Tensor forward(const torch::Tensor& h);  // (B, T, d) -> (B, T, d)
  // Attention probabilities of the last forward call when record_attention is set:
  // (B, n_heads, T, T), row t = query frame, column j = key frame.
  bool record_attention = false;
  torch::Tensor last_attention;
  double dropout = 0;  // on the attention and FFN branches while training

 private:
  FlashConfig f_;
  int span_;
  Norm norm_{nullptr};
  torch::nn::Linear qkv_{nullptr}, out_{nullptr}, gate_up_{nullptr}, down_{nullptr};
  torch::Tensor lag_bias_;  // (n_heads, span)
};
TORCH_MODULE(FlashBlock);

class FlashNeRDModel : public DynamicsModel {
 public:
  explicit FlashNeRDModel(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& x) override;
  void set_dropout(double p) override;
  torch::Tensor predict(const torch::Tensor& x, const ContactWindow* contacts) override;
  // With contact terms: pooled contact vectors p (B, T, pooled_dim) or undefined (none).
  torch::Tensor forward_with_contacts(const torch::Tensor& x, const torch::Tensor& pooled);

  std::vector<FlashBlock> blocks;
  // Variable contacts (config.contact.enabled()); null otherwise.
  ContactEncoder contact{nullptr};
  ContactGate contact_embed{nullptr}, contact_readout{nullptr}, contact_head{nullptr};

 private:
  torch::nn::Linear embed_{nullptr}, readout_fc_{nullptr}, head_{nullptr};
  Norm readout_norm_{nullptr};
};

class NerdModel : public DynamicsModel {
 public:
  explicit NerdModel(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& x) override;

 private:
  struct Block {
    torch::Tensor ln1, ln2;                        // (d)
    torch::nn::Linear qkv{nullptr}, out{nullptr};  // (3d, d), (d, d)
    torch::nn::Linear fc{nullptr}, proj{nullptr};  // (m, d), (d, m)
  };
  torch::nn::Linear embed_{nullptr}, lm_head_{nullptr}, fc1_{nullptr}, fc2_{nullptr};
  torch::Tensor pos_embed_, ln_f_;
  std::vector<Block> blocks_;
};

// The module of c.arch, weights initialized (init_weights) from `seed`.
std::shared_ptr<DynamicsModel> make_model(const ModelConfig& c, uint64_t seed);

// Floats a training step holds per window position: the activations autograd keeps for the
// backward pass and their gradients (an upper estimate, for the memory check before a run).
double training_floats_per_position(const ModelConfig& c);
// Deterministic initialization from a flashnerd::Rng: normal(0, 0.02) linear weights and
// positions, zero biases and lag biases, unit norm weights, output projections (attn.out,
// ffn.down, mlp.proj) scaled by 1/sqrt(2L).
void init_weights(DynamicsModel& m, uint64_t seed);
// The parameters in model_tensors() order, names checked (contiguous, float32, CPU).
std::vector<std::pair<std::string, torch::Tensor>> model_weights(DynamicsModel& m);
// Copies the artifact's tensors into the module (shapes checked by name).
void load_weights(DynamicsModel& m, const ModelArtifact& artifact);
// The module of an artifact directory, weights loaded.
std::shared_ptr<DynamicsModel> load_model(const std::string& dir);
// Writes config.json + weights.safetensors for the module's current weights.
void export_model(DynamicsModel& m, const ModelConfig& config, const std::string& dir);

}  // namespace flashnerd::train
