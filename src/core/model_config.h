// The model contract shared by training (train/, libtorch) and inference (engine/, no
// libtorch): architecture hyper-parameters, robot layout, normalization, and the exact list
// of weight tensors with their shapes. config.json stores a ModelConfig; weights.safetensors
// stores the tensors named by model_tensors(). docs/FORMAT.md documents both.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/enum_names.h"
#include "core/state_layout.h"

namespace flashnerd {

enum class Arch { FlashNeRD, NeRD };
// The gate's activation in the gated FFN act(x W_gate) ⊙ (x W_up): SiLU, GELU (erf), ReLU,
// sigmoid (the original GLU) and Mish (x · tanh(softplus x)).
enum class FfnActivation { SwiGLU, GEGLU, ReGLU, GLU, MishGLU };
constexpr FfnActivation kAllActivations[] = {FfnActivation::SwiGLU, FfnActivation::GEGLU, FfnActivation::ReGLU,
                                             FfnActivation::GLU, FfnActivation::MishGLU};
enum class NormKind { RMSNorm, LayerNorm };
// What a model predicts: the codec's one-step increment (contacts included), or the robot's
// pre-constraint velocity increment qacc_smooth·dt (two-way coupling, docs/DESIGN.md §5).
enum class PredictionTarget { Increment, FreeVelocity };
inline constexpr EnumName<PredictionTarget> kPredictionTargetNames[] = {
    {PredictionTarget::Increment, "increment"}, {PredictionTarget::FreeVelocity, "free_velocity"}};
inline const char* target_name(PredictionTarget t) { return enum_name(kPredictionTargetNames, t); }

const char* arch_name(Arch a);
Arch parse_arch(const std::string& s);  // "flashnerd" | "nerd"; throws with the choices
const char* activation_name(FfnActivation a);
FfnActivation parse_activation(const std::string& s);
const char* norm_name(NormKind n);
NormKind parse_norm(const std::string& s);

// config.json's "version": 2 added NeRD's published head (NerdConfig); 1 still loads.
constexpr int kModelFormatVersion = 2;
constexpr double kNormEpsilon = 1e-5;  // RMSNorm / LayerNorm epsilon, both architectures

// FlashNeRD (docs/DESIGN.md §2): parallel blocks, multi-query attention, lag bias, spans.
struct FlashConfig {
  int d_model = 128;
  int n_layers = 4;
  int n_heads = 2;            // query heads; one shared key/value head
  int head_dim = 64;
  std::vector<int> spans = {4, 3, 3, 3};  // per block, current frame included
  int ffn_hidden = 320;       // gated FFN inner width f
  FfnActivation activation = FfnActivation::SwiGLU;
  NormKind norm = NormKind::RMSNorm;
  int readout_hidden = 128;   // r: readout width before the increment head

  int receptive_field() const;  // 1 + Σ(S_ℓ − 1)
  int qkv_dim() const { return (n_heads + 2) * head_dim; }
};

// Optimized NeRD baseline (docs/DESIGN.md §3): GPT over a window of frames.
struct NerdConfig {
  int d_model = 120;
  int n_layers = 4;
  int n_heads = 12;
  int window = 10;            // frames re-encoded every step (= learned positions)
  int mlp_hidden = 480;       // 4 d
  int head_hidden = 64;       // MLP head [64] on the last position
  // The published NeRD (NVlabs/neural-robot-dynamics): a bias on the input embedding, a
  // bias-free d×d lm_head after LN_f, and a ReLU head. Artifacts of format version 1 predate
  // it (no bias, no lm_head, GELU head) and load with these false.
  bool embed_bias = true;
  bool lm_head = true;
  bool head_relu = true;
  int head_dim() const { return d_model / n_heads; }
};

// Variable-contact set encoder (docs/DESIGN.md §4), FlashNeRD only. Each frame carries up to
// `capacity` contact rows (kContactRowDim features + a robot link index); a shared per-row MLP
// φ maps [standardized row, link embedding] to `row_width` features, `slots` learned queries
// pool the valid rows by masked attention, and the flattened pool p (slots · row_width)
// enters through three gated, bias-free maps G_e, G_r, G_Δ. capacity 0: no contact input.
struct ContactEncoderConfig {
  int capacity = 0;     // K rows per frame; 0 = the model reads no contact rows
  int slots = 16;       // M pooling queries
  int link_count = 0;   // robot links (rows of the learned link embedding)
  int link_embed = 8;   // E: link embedding width
  int row_hidden = 64;  // φ hidden width
  int row_width = 16;   // e: φ output width = width of one slot
  bool enabled() const { return capacity > 0; }
  int pooled_dim() const { return slots * row_width; }
};

// NeRD normalization: x̂ = (x − mean) / std with std = sqrt(var + 1e-5), fitted on the
// training split. Stored per feature.
struct Normalization {
  std::vector<float> input_mean, input_std;    // (input_dim)
  std::vector<float> target_mean, target_std;  // (output_dim)
  std::vector<double> channel_std;             // (channel_dim) state channel stds for NRMSE
  std::vector<float> contact_mean, contact_std;  // (kContactRowDim) over valid rows, when enabled
};

struct ModelConfig {
  Arch arch = Arch::FlashNeRD;
  std::string preset;
  // robot
  std::string robot;           // robot name ("cartpole", or the MJCF file stem)
  std::string mjcf_hash;       // hash of the MJCF the data came from
  std::string actuator_model;  // "motor" | "position_pd" | ...
  double timestep = 0;         // seconds per model step (one control frame)
  StateLayout layout;
  // per-frame input  = [state features (codec), command (nu), probe features (probe_dim)]
  int state_dim = 0;
  int probe_dim = 0;
  int input_dim = 0;
  int output_dim = 0;          // increment_dim of the codec, or nv for free_velocity
  PredictionTarget target = PredictionTarget::Increment;
  FlashConfig flash;
  NerdConfig nerd;
  ContactEncoderConfig contact;  // FlashNeRD with variable contacts (capacity > 0)
  Normalization norm;
  nlohmann::json training = nlohmann::json::object();  // settings, dataset hash, updates

  // Frames of history the model uses: receptive field (FlashNeRD) or window (NeRD).
  int history() const;
  // Throws flashnerd::Error naming the inconsistent field.
  void validate() const;
};

void to_json(nlohmann::json& j, const ModelConfig& c);
void from_json(const nlohmann::json& j, ModelConfig& c);

struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;
  int64_t numel() const;
};
// Every weight tensor of the model, in a fixed order (see docs/FORMAT.md).
std::vector<TensorSpec> model_tensors(const ModelConfig& c);
int64_t parameter_count(const ModelConfig& c);
// The three gated contact maps of a variable-contact FlashNeRD in tensor order, each with its
// output width: contact_embed (d_model), contact_readout (readout_hidden), contact_head (output_dim).
std::vector<std::pair<std::string, int>> contact_gates(const ModelConfig& c);
// Multiply-adds ×2 per transition of one streaming step (FlashNeRD: one new frame; NeRD:
// the full window re-encoded).
double flops_per_transition(const ModelConfig& c);

// Parameter-matched presets: the same name for both architectures. apply_preset fills c.flash /
// c.nerd and records the preset's name in c.preset; input/output widths must already be set
// (they come from the robot).
enum class ModelPreset { Tiny, Small, PaperCartpole, PaperFranka, PaperG1, PaperAnymal };
inline constexpr EnumName<ModelPreset> kModelPresetNames[] = {
    {ModelPreset::Tiny, "tiny"},           {ModelPreset::Small, "small"},
    {ModelPreset::PaperCartpole, "paper-cartpole"}, {ModelPreset::PaperFranka, "paper-franka"},
    {ModelPreset::PaperG1, "paper-g1"},    {ModelPreset::PaperAnymal, "paper-anymal"}};
inline const char* preset_name(ModelPreset p) { return enum_name(kModelPresetNames, p); }
void apply_preset(ModelPreset preset, ModelConfig& c);
// The preset a config records (config.json's "preset"); none for a config of other sizes.
std::optional<ModelPreset> recorded_preset(const ModelConfig& c);

}  // namespace flashnerd
