#include "core/model_config.h"

#include <numeric>

#include "core/contact_row.h"
#include "core/error.h"

namespace flashnerd {

const char* arch_name(Arch a) { return a == Arch::FlashNeRD ? "flashnerd" : "nerd"; }
Arch parse_arch(const std::string& s) {
  if (s == "flashnerd") return Arch::FlashNeRD;
  if (s == "nerd") return Arch::NeRD;
  throw Error("unknown architecture '" + s + "': expected 'flashnerd' or 'nerd'");
}
const char* activation_name(FfnActivation a) {
  switch (a) {
    case FfnActivation::SwiGLU: return "swiglu";
    case FfnActivation::GEGLU: return "geglu";
    case FfnActivation::ReGLU: return "reglu";
  }
  return "?";
}
FfnActivation parse_activation(const std::string& s) {
  if (s == "swiglu") return FfnActivation::SwiGLU;
  if (s == "geglu") return FfnActivation::GEGLU;
  if (s == "reglu") return FfnActivation::ReGLU;
  throw Error("unknown activation '" + s + "': expected swiglu, geglu or reglu");
}
const char* norm_name(NormKind n) { return n == NormKind::RMSNorm ? "rmsnorm" : "layernorm"; }
NormKind parse_norm(const std::string& s) {
  if (s == "rmsnorm") return NormKind::RMSNorm;
  if (s == "layernorm") return NormKind::LayerNorm;
  throw Error("unknown norm '" + s + "': expected rmsnorm or layernorm");
}

int FlashConfig::receptive_field() const {
  int rf = 1;
  for (int s : spans) rf += s - 1;
  return rf;
}

int ModelConfig::history() const {
  return arch == Arch::FlashNeRD ? flash.receptive_field() : nerd.window;
}

void ModelConfig::validate() const {
  layout.validate();
  FN_CHECK(state_dim > 0 && output_dim > 0, "model config: state_dim=", state_dim,
           " output_dim=", output_dim, " must be positive");
  FN_CHECK(input_dim == state_dim + layout.nu + probe_dim, "model config: input_dim=", input_dim,
           " but state_dim + nu + probe_dim = ", state_dim + layout.nu + probe_dim);
  FN_CHECK(target == "increment" || target == "free_velocity", "model config: target '", target,
           "' is neither 'increment' nor 'free_velocity'");
  FN_CHECK(target != "free_velocity" || output_dim == layout.nv, "model config: a free_velocity model "
           "predicts nv=", layout.nv, " values, but output_dim=", output_dim);
  FN_CHECK(timestep > 0, "model config: timestep must be positive, got ", timestep);
  if (arch == Arch::FlashNeRD) {
    const FlashConfig& f = flash;
    FN_CHECK(f.d_model > 0 && f.n_layers > 0 && f.n_heads > 0 && f.head_dim > 0 &&
                 f.ffn_hidden > 0 && f.readout_hidden > 0,
             "model config: flashnerd sizes must be positive");
    FN_CHECK(int(f.spans.size()) == f.n_layers, "model config: flashnerd has ", f.n_layers,
             " layers but ", f.spans.size(), " spans; give one span per block");
    for (int s : f.spans) FN_CHECK(s >= 1, "model config: every span must be >= 1, got ", s);
  } else {
    const NerdConfig& n = nerd;
    FN_CHECK(n.d_model > 0 && n.n_layers > 0 && n.n_heads > 0 && n.window > 0 &&
                 n.mlp_hidden > 0 && n.head_hidden > 0,
             "model config: nerd sizes must be positive");
    FN_CHECK(n.d_model % n.n_heads == 0, "model config: nerd d_model=", n.d_model,
             " is not divisible by n_heads=", n.n_heads);
  }
  if (contact.enabled()) {
    const ContactEncoderConfig& k = contact;
    FN_CHECK(arch == Arch::FlashNeRD, "model config: variable contacts (contact.capacity=", k.capacity,
             ") exist only for the flashnerd architecture; NeRD reads fixed probes");
    FN_CHECK(k.slots > 0 && k.link_count > 0 && k.link_embed > 0 && k.row_hidden > 0 && k.row_width > 0,
             "model config: contact encoder sizes (slots, link_count, link_embed, row_hidden, "
             "row_width) must be positive");
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
}

void to_json(nlohmann::json& j, const ModelConfig& c) {
  j = nlohmann::json::object();
  j["format"] = "flashnerd-model";
  j["version"] = 1;
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
  j["target"] = c.target;
  if (c.arch == Arch::FlashNeRD) {
    const FlashConfig& f = c.flash;
    j["flashnerd"] = {{"d_model", f.d_model},         {"n_layers", f.n_layers},
                      {"n_heads", f.n_heads},         {"head_dim", f.head_dim},
                      {"spans", f.spans},             {"ffn_hidden", f.ffn_hidden},
                      {"activation", activation_name(f.activation)},
                      {"norm", norm_name(f.norm)},    {"readout_hidden", f.readout_hidden}};
    if (c.contact.enabled()) {
      const ContactEncoderConfig& k = c.contact;
      j["contact"] = {{"capacity", k.capacity},     {"slots", k.slots},
                      {"link_count", k.link_count}, {"link_embed", k.link_embed},
                      {"row_hidden", k.row_hidden}, {"row_width", k.row_width}};
    }
  } else {
    const NerdConfig& n = c.nerd;
    j["nerd"] = {{"d_model", n.d_model},       {"n_layers", n.n_layers},
                 {"n_heads", n.n_heads},       {"window", n.window},
                 {"mlp_hidden", n.mlp_hidden}, {"head_hidden", n.head_hidden}};
  }
  j["normalization"] = {{"epsilon", kNormEpsilon},
                        {"input_mean", c.norm.input_mean},
                        {"input_std", c.norm.input_std},
                        {"target_mean", c.norm.target_mean},
                        {"target_std", c.norm.target_std},
                        {"channel_std", c.norm.channel_std}};
  if (c.contact.enabled()) {
    j["normalization"]["contact_mean"] = c.norm.contact_mean;
    j["normalization"]["contact_std"] = c.norm.contact_std;
  }
  j["training"] = c.training;
}

void from_json(const nlohmann::json& j, ModelConfig& c) {
  FN_CHECK(j.value("format", "") == "flashnerd-model",
           "config.json: field 'format' must be 'flashnerd-model'; is this a FlashNeRD model directory?");
  FN_CHECK(j.value("version", 0) == 1, "config.json: unsupported version ", j.value("version", 0),
           " (this build reads version 1)");
  c.arch = parse_arch(j.at("arch").get<std::string>());
  c.preset = j.value("preset", "");
  const auto& r = j.at("robot");
  c.robot = r.at("name").get<std::string>();
  c.mjcf_hash = r.value("mjcf_hash", "");
  c.actuator_model = r.value("actuator_model", "");
  c.timestep = r.at("timestep").get<double>();
  c.layout = r.at("layout").get<StateLayout>();
  const auto& d = j.at("dims");
  c.state_dim = d.at("state").get<int>();
  c.probe_dim = d.at("probe").get<int>();
  c.input_dim = d.at("input").get<int>();
  c.output_dim = d.at("output").get<int>();
  c.target = j.value("target", "increment");
  if (c.arch == Arch::FlashNeRD) {
    const auto& f = j.at("flashnerd");
    c.flash.d_model = f.at("d_model").get<int>();
    c.flash.n_layers = f.at("n_layers").get<int>();
    c.flash.n_heads = f.at("n_heads").get<int>();
    c.flash.head_dim = f.at("head_dim").get<int>();
    c.flash.spans = f.at("spans").get<std::vector<int>>();
    c.flash.ffn_hidden = f.at("ffn_hidden").get<int>();
    c.flash.activation = parse_activation(f.at("activation").get<std::string>());
    c.flash.norm = parse_norm(f.at("norm").get<std::string>());
    c.flash.readout_hidden = f.at("readout_hidden").get<int>();
    if (j.contains("contact")) {
      const auto& k = j.at("contact");
      c.contact.capacity = k.at("capacity").get<int>();
      c.contact.slots = k.at("slots").get<int>();
      c.contact.link_count = k.at("link_count").get<int>();
      c.contact.link_embed = k.at("link_embed").get<int>();
      c.contact.row_hidden = k.at("row_hidden").get<int>();
      c.contact.row_width = k.at("row_width").get<int>();
    }
  } else {
    const auto& n = j.at("nerd");
    c.nerd.d_model = n.at("d_model").get<int>();
    c.nerd.n_layers = n.at("n_layers").get<int>();
    c.nerd.n_heads = n.at("n_heads").get<int>();
    c.nerd.window = n.at("window").get<int>();
    c.nerd.mlp_hidden = n.at("mlp_hidden").get<int>();
    c.nerd.head_hidden = n.at("head_hidden").get<int>();
  }
  const auto& nm = j.at("normalization");
  c.norm.input_mean = nm.at("input_mean").get<std::vector<float>>();
  c.norm.input_std = nm.at("input_std").get<std::vector<float>>();
  c.norm.target_mean = nm.at("target_mean").get<std::vector<float>>();
  c.norm.target_std = nm.at("target_std").get<std::vector<float>>();
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
  const char* name;
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

NerdConfig nerd_preset(int d, int layers, int heads, int window) {
  NerdConfig n;
  n.d_model = d;
  n.n_layers = layers;
  n.n_heads = heads;
  n.window = window;
  n.mlp_hidden = 4 * d;
  n.head_hidden = 64;
  return n;
}

// Pairs are parameter-matched to within a few percent (tests/core/model_config_test.cpp).
const std::vector<PresetPair>& presets() {
  static const std::vector<PresetPair> p = {
      {"tiny", flash_preset(64, 2, 1, {3, 3}, 128), nerd_preset(60, 2, 4, 5)},
      {"small", flash_preset(128, 4, 2, {4, 3, 3, 3}, 320), nerd_preset(120, 4, 12, 10)},
      {"paper-cartpole", flash_preset(256, 4, 4, {4, 3, 3, 3}, 672), nerd_preset(240, 4, 12, 10)},
      {"paper-franka", flash_preset(512, 4, 8, {4, 3, 3, 3}, 1376), nerd_preset(480, 4, 12, 10)},
      {"paper-g1", flash_preset(512, 4, 8, {4, 3, 3, 3}, 1376), nerd_preset(480, 4, 12, 10)},
      {"paper-anymal", flash_preset(512, 4, 8, {4, 4, 4, 4}, 1024), nerd_preset(408, 5, 12, 13)},
  };
  return p;
}

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& p : presets()) names.emplace_back(p.name);
  return names;
}

void apply_preset(const std::string& name, ModelConfig& c) {
  for (const auto& p : presets()) {
    if (name == p.name) {
      c.preset = name;
      c.flash = p.flash;
      c.nerd = p.nerd;
      return;
    }
  }
  std::string choices;
  for (const auto& n : preset_names()) choices += (choices.empty() ? "" : ", ") + n;
  throw Error("unknown preset '" + name + "': choose one of " + choices);
}

}  // namespace flashnerd
