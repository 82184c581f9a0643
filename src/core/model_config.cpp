#include "core/model_config.h"

#include <cmath>
#include <cstdint>
#include <numeric>

#include "core/contact_row.h"
#include "core/enum_names.h"
#include "core/error.h"
#include "core/json_int.h"

namespace flashnerd {

namespace {

constexpr EnumName<Arch> kArchNames[] = {{Arch::FlashNeRD, "flashnerd"}, {Arch::NeRD, "nerd"}};
constexpr EnumName<FfnActivation> kActivationNames[] = {{FfnActivation::SwiGLU, "swiglu"},
                                                        {FfnActivation::GEGLU, "geglu"},
                                                        {FfnActivation::ReGLU, "reglu"},
                                                        {FfnActivation::GLU, "glu"},
                                                        {FfnActivation::MishGLU, "mishglu"}};
constexpr EnumName<NormKind> kNormNames[] = {{NormKind::RMSNorm, "rmsnorm"}, {NormKind::LayerNorm, "layernorm"}};

}  // namespace

const char* arch_name(Arch a) { return enum_name(kArchNames, a); }
Arch parse_arch(const std::string& s) { return parse_enum(kArchNames, s, "architecture"); }
const char* activation_name(FfnActivation a) { return enum_name(kActivationNames, a); }
FfnActivation parse_activation(const std::string& s) { return parse_enum(kActivationNames, s, "activation"); }
const char* norm_name(NormKind n) { return enum_name(kNormNames, n); }
NormKind parse_norm(const std::string& s) { return parse_enum(kNormNames, s, "norm"); }

int FlashConfig::receptive_field() const {
  int rf = 1;
  for (int s : spans) rf += s - 1;
  return rf;
}

int ModelConfig::history() const {
  return arch == Arch::FlashNeRD ? flash.receptive_field() : nerd.window;
}

namespace {

// Upper bounds on every size of a config, far above the presets (widths <= 1376, 5 layers):
// a corrupt size must be refused here, not overflow a product of sizes or allocate the
// tensor list and weights of a model no machine holds (found by fuzz/model_config_fuzz.cpp).
constexpr int kMaxWidth = 1 << 16;       // dims, d_model, hidden sizes, spans, window, contact sizes
constexpr int kMaxHeads = 1 << 10;       // n_heads; head_dim too, so qkv_dim fits in an int
constexpr int kMaxLayers = 1 << 10;
constexpr double kMaxParameters = 1ull << 32;  // 16 GB of float32 weights

void check_size(const char* block, const char* name, int value, int max) {
  FN_CHECK(value <= max, "model config: ", block, name, "=", value, " is larger than ", max,
           " (corrupted config.json?); retrain the model or restore the file");
}

void check_sizes(std::initializer_list<std::pair<const char*, int>> sizes, int max) {
  for (const auto& [name, value] : sizes) check_size("", name, value, max);
}

// The integer sizes of a block ("flashnerd", "nerd", "contact"), each named once for to_json,
// from_json and validate: its JSON key, its member, and the largest value a sane config has.
template <class Block>
struct SizeField {
  const char* key;
  int Block::*member;
  int max;
};
const SizeField<FlashConfig> kFlashSizes[] = {
    {"d_model", &FlashConfig::d_model, kMaxWidth},       {"n_layers", &FlashConfig::n_layers, kMaxLayers},
    {"n_heads", &FlashConfig::n_heads, kMaxHeads},       {"head_dim", &FlashConfig::head_dim, kMaxHeads},
    {"ffn_hidden", &FlashConfig::ffn_hidden, kMaxWidth}, {"readout_hidden", &FlashConfig::readout_hidden, kMaxWidth}};
const SizeField<NerdConfig> kNerdSizes[] = {
    {"d_model", &NerdConfig::d_model, kMaxWidth},       {"n_layers", &NerdConfig::n_layers, kMaxLayers},
    {"n_heads", &NerdConfig::n_heads, kMaxHeads},       {"window", &NerdConfig::window, kMaxWidth},
    {"mlp_hidden", &NerdConfig::mlp_hidden, kMaxWidth}, {"head_hidden", &NerdConfig::head_hidden, kMaxWidth}};
const SizeField<ContactEncoderConfig> kContactSizes[] = {
    {"capacity", &ContactEncoderConfig::capacity, kMaxWidth}, {"slots", &ContactEncoderConfig::slots, kMaxWidth},
    {"link_count", &ContactEncoderConfig::link_count, kMaxWidth},
    {"link_embed", &ContactEncoderConfig::link_embed, kMaxWidth},
    {"row_hidden", &ContactEncoderConfig::row_hidden, kMaxWidth},
    {"row_width", &ContactEncoderConfig::row_width, kMaxWidth}};

// Every size of the block positive and within its bound; block is "flashnerd." etc.
template <class Block, size_t N>
void check_block_sizes(const Block& b, const SizeField<Block> (&fields)[N], const char* block) {
  for (const auto& f : fields) {
    FN_CHECK(b.*f.member > 0, "model config: ", block, f.key, "=", b.*f.member, " must be positive");
    check_size(block, f.key, b.*f.member, f.max);
  }
}

template <class Block, size_t N>
void sizes_to_json(const Block& b, const SizeField<Block> (&fields)[N], nlohmann::json& j) {
  for (const auto& f : fields) j[f.key] = b.*f.member;
}

}  // namespace

void ModelConfig::validate() const {
  layout.validate();
  FN_CHECK(state_dim > 0 && output_dim > 0, "model config: state_dim=", state_dim,
           " output_dim=", output_dim, " must be positive");
  check_sizes({{"dims.state", state_dim}, {"dims.probe", probe_dim}, {"dims.input", input_dim},
               {"dims.output", output_dim}, {"robot.layout.nu", layout.nu}}, kMaxWidth);
  FN_CHECK(input_dim == int64_t(state_dim) + layout.nu + probe_dim, "model config: input_dim=", input_dim,
           " but state_dim + nu + probe_dim = ", int64_t(state_dim) + layout.nu + probe_dim);
  FN_CHECK(target != PredictionTarget::FreeVelocity || output_dim == layout.nv, "model config: a free_velocity model "
           "predicts nv=", layout.nv, " values, but output_dim=", output_dim);
  FN_CHECK(timestep > 0, "model config: timestep must be positive, got ", timestep);
  if (arch == Arch::FlashNeRD) {
    const FlashConfig& f = flash;
    check_block_sizes(f, kFlashSizes, "flashnerd.");
    FN_CHECK(int(f.spans.size()) == f.n_layers, "model config: flashnerd has ", f.n_layers,
             " layers but ", f.spans.size(), " spans; give one span per block");
    for (int s : f.spans) FN_CHECK(s >= 1 && s <= kMaxWidth, "model config: every span must be in 1..", kMaxWidth, ", got ", s);
  } else {
    const NerdConfig& n = nerd;
    check_block_sizes(n, kNerdSizes, "nerd.");
    FN_CHECK(n.d_model % n.n_heads == 0, "model config: nerd d_model=", n.d_model,
             " is not divisible by n_heads=", n.n_heads);
  }
  if (contact.enabled()) {
    const ContactEncoderConfig& k = contact;
    FN_CHECK(arch == Arch::FlashNeRD, "model config: variable contacts (contact.capacity=", k.capacity,
             ") exist only for the flashnerd architecture; NeRD reads fixed probes");
    check_block_sizes(k, kContactSizes, "contact.");
    FN_CHECK(int64_t(k.slots) * k.row_width <= kMaxWidth, "model config: contact.slots * contact.row_width = ",
             int64_t(k.slots) * k.row_width, " is larger than ", kMaxWidth,
             " (corrupted config.json?); retrain the model or restore the file");
  }
  auto check_len = [](const auto& v, int n, const char* name) {
    FN_CHECK(v.empty() || int(v.size()) == n, "model config: normalization.", name, " has ",
             v.size(), " entries, expected ", n);
  };
  check_len(norm.input_mean, input_dim, "input_mean");
  check_len(norm.input_std, input_dim, "input_std");
  check_len(norm.target_mean, output_dim, "target_mean");
  check_len(norm.target_std, output_dim, "target_std");
  check_len(norm.contact_mean, contact.enabled() ? kContactRowDim : 0, "contact_mean");
  check_len(norm.contact_std, contact.enabled() ? kContactRowDim : 0, "contact_std");
  // a zero or non-finite std would divide by zero in standardization or in the NRMSE
  auto check_values = [](const auto& v, const char* name, bool is_std) {
    for (size_t i = 0; i < v.size(); ++i)
      FN_CHECK(std::isfinite(double(v[i])) && (!is_std || v[i] > 0), "model config: normalization.", name, "[", i,
               "] is ", v[i], is_std ? "; standard deviations must be finite and positive" : "; means must be finite",
               " (corrupted config.json?); retrain the model");
  };
  check_values(norm.input_mean, "input_mean", false);
  check_values(norm.input_std, "input_std", true);
  check_values(norm.target_mean, "target_mean", false);
  check_values(norm.target_std, "target_std", true);
  check_values(norm.channel_std, "channel_std", true);
  check_values(norm.contact_mean, "contact_mean", false);
  check_values(norm.contact_std, "contact_std", true);
  // the sizes are bounded, so the tensor list is short and its products fit in int64
  double parameters = 0;
  for (const auto& t : model_tensors(*this)) parameters += double(t.numel());
  FN_CHECK(parameters <= kMaxParameters, "model config: ", int64_t(parameters), " parameters, more than ",
           int64_t(kMaxParameters),
           " (corrupted config.json?); retrain the model or restore the file");
}

void to_json(nlohmann::json& j, const ModelConfig& c) {
  j = nlohmann::json::object();
  j["format"] = "flashnerd-model";
  j["version"] = kModelFormatVersion;
  j["arch"] = arch_name(c.arch);
  j["preset"] = c.preset;
  j["robot"] = {{"name", c.robot},
                {"mjcf_hash", c.mjcf_hash},
                {"actuator_model", c.actuator_model},
                {"timestep", c.timestep},
                {"layout", c.layout}};
  j["dims"] = {{"state", c.state_dim},
               {"probe", c.probe_dim},
               {"input", c.input_dim},
               {"output", c.output_dim}};
  j["target"] = target_name(c.target);
  if (c.arch == Arch::FlashNeRD) {
    const FlashConfig& f = c.flash;
    j["flashnerd"] = {{"spans", f.spans}, {"activation", activation_name(f.activation)}, {"norm", norm_name(f.norm)}};
    sizes_to_json(f, kFlashSizes, j["flashnerd"]);
    if (c.contact.enabled()) sizes_to_json(c.contact, kContactSizes, j["contact"]);
  } else {
    const NerdConfig& n = c.nerd;
    j["nerd"] = {{"embed_bias", n.embed_bias}, {"lm_head", n.lm_head}, {"head_activation", n.head_relu ? "relu" : "gelu"}};
    sizes_to_json(n, kNerdSizes, j["nerd"]);
  }
  j["normalization"] = {{"epsilon", kNormEpsilon},
                        {"input_mean", c.norm.input_mean}, {"input_std", c.norm.input_std},
                        {"target_mean", c.norm.target_mean}, {"target_std", c.norm.target_std},
                        {"channel_std", c.norm.channel_std}};
  if (c.contact.enabled()) {
    j["normalization"]["contact_mean"] = c.norm.contact_mean;
    j["normalization"]["contact_std"] = c.norm.contact_std;
  }
  j["training"] = c.training;
}

namespace {

// Field `key` of the object `j` as T; `where` is the object's path ("robot.") for messages.
// Integers go through json_int: a float or out-of-range value must not be cast (fuzz).
template <typename T>
T field(const nlohmann::json& j, const char* where, const char* key) {
  FN_CHECK(j.is_object() && j.contains(key), "field '", where, key, "' is missing");
  const std::string name = str_cat("field '", where, key, "'");
  if constexpr (std::is_integral<T>::value && !std::is_same<T, bool>::value) {
    return json_int<T>(j.at(key), name);
  } else if constexpr (std::is_same<T, std::vector<int>>::value) {
    return json_int_list<int>(j.at(key), name);
  } else {
    try {
      return j.at(key).get<T>();
    } catch (const nlohmann::json::exception& e) {
      throw Error(str_cat(name, " has the wrong type: ", e.what()));
    } catch (const Error& e) {  // a nested from_json (robot.layout) names only its own field
      throw Error(str_cat(name, ": ", e.what()));
    }
  }
}

// The sub-object `key` of `j`, by reference.
template <>
const nlohmann::json& field<const nlohmann::json&>(const nlohmann::json& j, const char* where, const char* key) {
  FN_CHECK(j.is_object() && j.contains(key) && j.at(key).is_object(), "field '", where, key,
           "' is missing or not an object");
  return j.at(key);
}

template <class Block, size_t N>
void read_sizes(const nlohmann::json& j, const SizeField<Block> (&fields)[N], const char* where, Block& b) {
  for (const auto& f : fields) b.*f.member = field<int>(j, where, f.key);
}

}  // namespace

void from_json(const nlohmann::json& j, ModelConfig& c) {
  FN_CHECK(j.value("format", "") == "flashnerd-model",
           "field 'format' must be 'flashnerd-model'; is this a FlashNeRD model directory?");
  const int version = j.contains("version") ? json_int<int>(j.at("version"), "field 'version'") : 0;
  FN_CHECK(version >= 1 && version <= kModelFormatVersion, "unsupported version ", version,
           " (this build reads versions 1 to ", kModelFormatVersion, "; a newer flashnerd wrote it?)");
  c.arch = parse_arch(field<std::string>(j, "", "arch"));
  c.preset = j.value("preset", "");
  const auto& r = field<const nlohmann::json&>(j, "", "robot");
  c.robot = field<std::string>(r, "robot.", "name");
  c.mjcf_hash = r.value("mjcf_hash", "");
  c.actuator_model = r.value("actuator_model", "");
  c.timestep = field<double>(r, "robot.", "timestep");
  c.layout = field<StateLayout>(r, "robot.", "layout");
  const auto& d = field<const nlohmann::json&>(j, "", "dims");
  c.state_dim = field<int>(d, "dims.", "state");
  c.probe_dim = field<int>(d, "dims.", "probe");
  c.input_dim = field<int>(d, "dims.", "input");
  c.output_dim = field<int>(d, "dims.", "output");
  const std::string target = j.value("target", "increment");
  const auto* known = find_enum(kPredictionTargetNames, target);
  FN_CHECK(known, "model config: target '", target, "' is neither 'increment' nor 'free_velocity'");
  c.target = known->value;
  if (c.arch == Arch::FlashNeRD) {
    const auto& f = field<const nlohmann::json&>(j, "", "flashnerd");
    read_sizes(f, kFlashSizes, "flashnerd.", c.flash);
    c.flash.spans = field<std::vector<int>>(f, "flashnerd.", "spans");
    c.flash.activation = parse_activation(field<std::string>(f, "flashnerd.", "activation"));
    c.flash.norm = parse_norm(field<std::string>(f, "flashnerd.", "norm"));
    if (j.contains("contact")) read_sizes(field<const nlohmann::json&>(j, "", "contact"), kContactSizes, "contact.", c.contact);
  } else {
    // NeRD reads contacts through fixed probes only; a contact section would be dropped silently
    FN_CHECK(!j.contains("contact"), "arch 'nerd' with a 'contact' section is refused: variable contacts exist "
             "only for the flashnerd architecture (NeRD reads fixed probes); train a flashnerd model to use "
             "contacts");
    const auto& n = field<const nlohmann::json&>(j, "", "nerd");
    read_sizes(n, kNerdSizes, "nerd.", c.nerd);
    if (version >= 2) {
      c.nerd.embed_bias = field<bool>(n, "nerd.", "embed_bias");
      c.nerd.lm_head = field<bool>(n, "nerd.", "lm_head");
      const std::string act = field<std::string>(n, "nerd.", "head_activation");
      FN_CHECK(act == "relu" || act == "gelu", "field 'nerd.head_activation': expected relu or gelu, got '", act, "'");
      c.nerd.head_relu = act == "relu";
    } else {  // version 1: the layout before the published head
      c.nerd.embed_bias = c.nerd.lm_head = c.nerd.head_relu = false;
    }
  }
  const auto& nm = field<const nlohmann::json&>(j, "", "normalization");
  c.norm.input_mean = field<std::vector<float>>(nm, "normalization.", "input_mean");
  c.norm.input_std = field<std::vector<float>>(nm, "normalization.", "input_std");
  c.norm.target_mean = field<std::vector<float>>(nm, "normalization.", "target_mean");
  c.norm.target_std = field<std::vector<float>>(nm, "normalization.", "target_std");
  c.norm.channel_std = nm.value("channel_std", std::vector<double>{});
  c.norm.contact_mean = nm.value("contact_mean", std::vector<float>{});
  c.norm.contact_std = nm.value("contact_std", std::vector<float>{});
  c.training = j.value("training", nlohmann::json::object());
}

int64_t TensorSpec::numel() const {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<int64_t>());
}

std::vector<TensorSpec> model_tensors(const ModelConfig& c) {
  std::vector<TensorSpec> t;
  auto add = [&](std::string name, std::vector<int64_t> shape) {
    t.push_back({std::move(name), std::move(shape)});
  };
  const int64_t din = c.input_dim, dout = c.output_dim;
  if (c.arch == Arch::FlashNeRD) {
    const FlashConfig& f = c.flash;
    const int64_t d = f.d_model;
    const bool ln = f.norm == NormKind::LayerNorm;
    add("embed.weight", {d, din});
    add("embed.bias", {d});
    for (int l = 0; l < f.n_layers; ++l) {
      std::string p = "blocks." + std::to_string(l) + ".";
      add(p + "norm.weight", {d});
      if (ln) add(p + "norm.bias", {d});
      add(p + "attn.qkv.weight", {int64_t(f.qkv_dim()), d});
      add(p + "attn.lag_bias", {f.n_heads, f.spans[size_t(l)]});
      add(p + "attn.out.weight", {d, int64_t(f.n_heads) * f.head_dim});
      add(p + "ffn.gate_up.weight", {2 * int64_t(f.ffn_hidden), d});
      add(p + "ffn.down.weight", {d, f.ffn_hidden});
    }
    add("readout.norm.weight", {d});
    if (ln) add("readout.norm.bias", {d});
    add("readout.fc.weight", {f.readout_hidden, d});
    add("readout.fc.bias", {f.readout_hidden});
    add("head.weight", {dout, f.readout_hidden});
    add("head.bias", {dout});
    if (c.contact.enabled()) {
      const ContactEncoderConfig& k = c.contact;
      const int64_t pd = k.pooled_dim();
      add("contact.link_embed", {k.link_count, k.link_embed});
      add("contact.row.fc1.weight", {k.row_hidden, kContactRowDim + k.link_embed});
      add("contact.row.fc1.bias", {k.row_hidden});
      add("contact.row.fc2.weight", {k.row_width, k.row_hidden});
      add("contact.row.fc2.bias", {k.row_width});
      add("contact.pool.queries", {k.slots, k.row_width});
      for (const auto& [name, out] : contact_gates(c)) {
        add(name + ".value.weight", {out, pd});
        add(name + ".gate.weight", {out, pd});
      }
    }
  } else {
    const NerdConfig& n = c.nerd;
    const int64_t d = n.d_model;
    add("embed.weight", {d, din});
    if (n.embed_bias) add("embed.bias", {d});
    add("pos_embed", {n.window, d});
    for (int l = 0; l < n.n_layers; ++l) {
      std::string p = "blocks." + std::to_string(l) + ".";
      add(p + "ln1.weight", {d});
      add(p + "attn.qkv.weight", {3 * d, d});
      add(p + "attn.out.weight", {d, d});
      add(p + "ln2.weight", {d});
      add(p + "mlp.fc.weight", {n.mlp_hidden, d});
      add(p + "mlp.proj.weight", {d, n.mlp_hidden});
    }
    add("ln_f.weight", {d});
    if (n.lm_head) add("lm_head.weight", {d, d});
    add("head.fc1.weight", {n.head_hidden, d});
    add("head.fc1.bias", {n.head_hidden});
    add("head.fc2.weight", {dout, n.head_hidden});
    add("head.fc2.bias", {dout});
  }
  return t;
}

std::vector<std::pair<std::string, int>> contact_gates(const ModelConfig& c) {
  return {{"contact_embed", c.flash.d_model}, {"contact_readout", c.flash.readout_hidden}, {"contact_head", c.output_dim}};
}

int64_t parameter_count(const ModelConfig& c) {
  int64_t n = 0;
  for (const auto& t : model_tensors(c)) n += t.numel();
  return n;
}

double flops_per_transition(const ModelConfig& c) {
  const double din = c.input_dim, dout = c.output_dim;
  if (c.arch == Arch::FlashNeRD) {
    const FlashConfig& f = c.flash;
    const double d = f.d_model;
    double mm = d * din;
    for (int l = 0; l < f.n_layers; ++l) {
      double s = f.spans[size_t(l)];
      mm += d * f.qkv_dim() + d * f.n_heads * f.head_dim + 3.0 * d * f.ffn_hidden;
      mm += 2.0 * f.n_heads * f.head_dim * s;  // scores and weighted values
    }
    mm += d * f.readout_hidden + f.readout_hidden * dout;
    if (c.contact.enabled()) {  // every row at capacity (an upper bound), pooling, three gates
      const ContactEncoderConfig& k = c.contact;
      mm += double(k.capacity) * (double(k.row_hidden) * (kContactRowDim + k.link_embed) +
                                  double(k.row_width) * k.row_hidden + 2.0 * k.slots * k.row_width);
      mm += 2.0 * k.pooled_dim() * (d + f.readout_hidden + dout);
    }
    return 2.0 * mm;
  }
  const NerdConfig& n = c.nerd;
  const double d = n.d_model, t = n.window;
  double mm = t * d * din;
  for (int l = 0; l < n.n_layers; ++l) {
    mm += t * (4.0 * d * d + 2.0 * d * n.mlp_hidden);
    mm += 2.0 * d * t * (t + 1) / 2.0;  // causal scores and weighted values
  }
  mm += d * n.head_hidden + n.head_hidden * dout;
  return 2.0 * mm;
}

namespace {

struct PresetPair {
  ModelPreset preset;
  FlashConfig flash;
  NerdConfig nerd;
};

FlashConfig flash_preset(int d, int layers, int heads, std::vector<int> spans, int ffn) {
  FlashConfig f;
  f.d_model = d;
  f.n_layers = layers;
  f.n_heads = heads;
  f.head_dim = 64;
  f.spans = std::move(spans);
  f.ffn_hidden = ffn;
  f.readout_hidden = d;
  return f;
}

NerdConfig nerd_preset(int d, int layers, int heads, int window, int mlp_hidden = 0) {
  NerdConfig n;
  n.d_model = d;
  n.n_layers = layers;
  n.n_heads = heads;
  n.window = window;
  n.mlp_hidden = mlp_hidden > 0 ? mlp_hidden : 4 * d;
  n.head_hidden = 64;
  return n;
}

// Pairs are parameter-matched to within a few percent (tests/core/model_config_test.cpp).
const PresetPair& preset_sizes(ModelPreset preset) {
  static const PresetPair p[] = {
      // tiny: the published head's d×d lm_head is 4% of the model; a narrower MLP pays for it
      {ModelPreset::Tiny, flash_preset(64, 2, 1, {3, 3}, 128), nerd_preset(60, 2, 4, 5, 208)},
      {ModelPreset::Small, flash_preset(128, 4, 2, {4, 3, 3, 3}, 320), nerd_preset(120, 4, 12, 10)},
      {ModelPreset::PaperCartpole, flash_preset(256, 4, 4, {4, 3, 3, 3}, 672), nerd_preset(240, 4, 12, 10)},
      {ModelPreset::PaperFranka, flash_preset(512, 4, 8, {4, 3, 3, 3}, 1376), nerd_preset(480, 4, 12, 10)},
      {ModelPreset::PaperG1, flash_preset(512, 4, 8, {4, 3, 3, 3}, 1376), nerd_preset(480, 4, 12, 10)},
      {ModelPreset::PaperAnymal, flash_preset(512, 4, 8, {4, 4, 4, 4}, 1024), nerd_preset(408, 5, 12, 13)},
  };
  for (const auto& pair : p)
    if (pair.preset == preset) return pair;
  FN_ASSERT(false);  // every preset has its sizes
  return p[0];
}

}  // namespace

void apply_preset(ModelPreset preset, ModelConfig& c) {
  const PresetPair& p = preset_sizes(preset);
  c.preset = preset_name(preset);
  c.flash = p.flash;
  c.nerd = p.nerd;
}

std::optional<ModelPreset> recorded_preset(const ModelConfig& c) {
  if (const auto* p = find_enum(kModelPresetNames, c.preset)) return p->value;
  return std::nullopt;
}

}  // namespace flashnerd
