// Model: load/random/from_tensors, then pack_weights() re-lays the weights for the kernels
// (engine_impl.h documents the packed views; norm weights and biases are folded into the GEMM
// that follows the norm, so a FlashNeRD block is two GEMMs: [qkv; gate_up] and [out | down]).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>

#include "core/ensemble_manifest.h"
#include "core/enum_names.h"
#include "core/error.h"
#include "core/model_artifact.h"
#include "core/option_error.h"
#include "core/rng.h"
#include "engine/cpu/bf16.h"
#include "engine/cpu/cpu_features.h"
#include "engine/engine_impl.h"

namespace flashnerd::engine {

namespace {

size_t round16(size_t n) { return (n + 15) / 16 * 16; }
void pack_weights(const Model& m, ModelWeights& w);  // below from_tensors

}  // namespace

const EnumName<GemmBackend> kGemmBackendNames[5] = {
    {GemmBackend::Auto, "auto"},   {GemmBackend::OpenBLAS, "openblas"},
    {GemmBackend::Eigen, "eigen"}, {GemmBackend::Naive, "naive"},
    {GemmBackend::RowInvariant, "row-invariant"}};
const EnumName<Precision> kPrecisionNames[3] = {
    {Precision::Auto, "auto"}, {Precision::FP32, "fp32"}, {Precision::BF16, "bf16"}};

const char* gemm_backend_name(GemmBackend b) { return enum_name(kGemmBackendNames, b); }
GemmBackend parse_gemm_backend(const std::string& s) { return parse_enum(kGemmBackendNames, s, "GEMM backend"); }

const char* precision_name(Precision p) { return enum_name(kPrecisionNames, p); }
Precision parse_precision(const std::string& s) { return parse_enum(kPrecisionNames, s, "precision"); }

Precision resolve_precision(Precision requested) {
  const CpuFeatures& cpu = cpu_features();
  if (requested == Precision::Auto) return cpu.native_bf16() ? Precision::BF16 : Precision::FP32;
  if (requested == Precision::BF16)
    FN_CHECK_OPTION(cpu.native_bf16(), "precision", "bf16 needs a CPU with AVX-512-BF16 or AMX; this one (",
                    cpu.model.empty() ? cpu.vendor : cpu.model, ", kernels up to ", isa_name(cpu.best),
                    ") has neither: use fp32 (or auto, which picks fp32 here)");
  return requested;
}

AlignedBuffer::AlignedBuffer(size_t floats) : size_(floats) {
  const size_t bytes = std::max<size_t>(64, round16(floats) * sizeof(float));
  float* p = static_cast<float*>(std::aligned_alloc(64, bytes));
  FN_CHECK(p != nullptr, "engine: out of memory allocating ", bytes, " bytes");
  std::memset(p, 0, bytes);
  data_.reset(p);
}

void AlignedBuffer::Free::operator()(float* p) const { std::free(p); }

Model::Model() = default;
Model::~Model() = default;

size_t Model::packed_bytes() const { return (weights_->packed.size() + weights_->bf16.size()) * sizeof(float); }

const float* Model::tensor(const std::string& name) const {
  for (const auto& t : tensors_)
    if (t.name == name) return t.data;
  throw Error("model: no tensor named '" + name + "' in a " + arch_name(config_.arch) + " model");
}

std::shared_ptr<const Model> Model::load(const std::string& dir, const ModelOptions& options) {
  ModelArtifact artifact = ModelArtifact::load(dir);
  std::vector<NamedTensor> tensors;
  for (const auto& spec : model_tensors(artifact.config)) {
    TensorView v = artifact.weights.get(spec.name, spec.shape);
    tensors.push_back({spec.name, spec.shape, v.data});
  }
  try {
    return from_tensors(artifact.config, tensors, options);
  } catch (const Error& e) {
    throw Error(str_cat(dir, ": ", e.what()));
  }
}

std::vector<std::shared_ptr<const Model>> Model::load_members(const std::string& dir, const ModelOptions& options) {
  const std::vector<std::string> dirs = model_member_dirs(dir);
  std::vector<std::shared_ptr<const Model>> members;
  std::vector<ModelConfig> configs;
  for (const auto& d : dirs) {
    members.push_back(load(d, options));
    configs.push_back(members.back()->config());
  }
  check_ensemble_members(configs, dirs);
  return members;
}

std::shared_ptr<const Model> Model::random(const ModelConfig& config, uint64_t seed,
                                          const ModelOptions& options) {
  ModelConfig c = config;
  if (c.norm.input_mean.empty()) c.norm.input_mean.assign(size_t(c.input_dim), 0.f);
  if (c.norm.input_std.empty()) c.norm.input_std.assign(size_t(c.input_dim), 1.f);
  if (c.norm.target_mean.empty()) c.norm.target_mean.assign(size_t(c.output_dim), 0.f);
  if (c.norm.target_std.empty()) c.norm.target_std.assign(size_t(c.output_dim), 1.f);
  if (c.contact.enabled() && c.norm.contact_mean.empty()) c.norm.contact_mean.assign(kContactRowDim, 0.f);
  if (c.contact.enabled() && c.norm.contact_std.empty()) c.norm.contact_std.assign(kContactRowDim, 1.f);
  c.validate();
  Rng rng(seed);
  std::vector<std::vector<float>> storage;
  std::vector<NamedTensor> tensors;
  for (const auto& spec : model_tensors(c)) {
    std::vector<float> v(size_t(spec.numel()));
    const std::string& n = spec.name;
    auto ends = [&](const char* suffix) {
      size_t l = std::strlen(suffix);
      return n.size() >= l && n.compare(n.size() - l, l, suffix) == 0;
    };
    const bool norm_weight = n.find("norm") != std::string::npos || n.find("ln") != std::string::npos;
    if (norm_weight && ends(".weight")) {
      for (auto& x : v) x = float(1.0 + rng.uniform(-0.2, 0.2));
    } else if (norm_weight && ends(".bias")) {
      for (auto& x : v) x = float(rng.uniform(-0.1, 0.1));
    } else if (ends("lag_bias")) {
      for (auto& x : v) x = float(rng.uniform(-1.0, 1.0));
    } else if (ends("pos_embed")) {
      for (auto& x : v) x = float(rng.normal(0.0, 0.1));
    } else {
      // Linear: PyTorch's default U(−1/√fan_in, 1/√fan_in) for weight and bias.
      const double fan_in = spec.shape.size() == 2 ? double(spec.shape[1]) : double(c.input_dim);
      const double bound = 1.0 / std::sqrt(fan_in);
      for (auto& x : v) x = float(rng.uniform(-bound, bound));
    }
    storage.push_back(std::move(v));
    tensors.push_back({spec.name, spec.shape, storage.back().data()});
  }
  return from_tensors(c, tensors, options);
}

std::shared_ptr<const Model> Model::from_tensors(const ModelConfig& config,
                                                 const std::vector<NamedTensor>& tensors,
                                                 const ModelOptions& options) {
  config.validate();
  const Precision precision = resolve_precision(options.precision);
  FN_CHECK(!config.norm.input_mean.empty() && !config.norm.input_std.empty() &&
               !config.norm.target_mean.empty() && !config.norm.target_std.empty(),
           "model: the config has no normalization (input/target mean and std); a trained model "
           "always has one, Model::random fills mean 0 / std 1");
  for (int i = 0; i < config.input_dim; ++i)
    FN_CHECK(std::isfinite(config.norm.input_mean[size_t(i)]) &&
                 std::isfinite(config.norm.input_std[size_t(i)]) && config.norm.input_std[size_t(i)] > 0,
             "model: normalization input feature ", i, " has mean ", config.norm.input_mean[size_t(i)],
             " std ", config.norm.input_std[size_t(i)], "; stds must be finite and positive");
  for (int i = 0; i < config.output_dim; ++i)
    FN_CHECK(std::isfinite(config.norm.target_mean[size_t(i)]) &&
                 std::isfinite(config.norm.target_std[size_t(i)]),
             "model: normalization target feature ", i, " is not finite");
  if (config.contact.enabled()) {
    FN_CHECK(config.norm.contact_mean.size() == size_t(kContactRowDim) && config.norm.contact_std.size() == size_t(kContactRowDim),
             "model: a model with variable contacts needs normalization.contact_mean and contact_std (",
             kContactRowDim, " each)");
    for (int i = 0; i < kContactRowDim; ++i)
      FN_CHECK(std::isfinite(config.norm.contact_mean[size_t(i)]) && config.norm.contact_std[size_t(i)] > 0,
               "model: normalization contact feature ", i, " has mean ", config.norm.contact_mean[size_t(i)],
               " std ", config.norm.contact_std[size_t(i)], "; stds must be finite and positive");
  }

  std::shared_ptr<Model> m(new Model());
  m->config_ = config;
  m->precision_ = precision;
  const auto specs = model_tensors(config);
  std::map<std::string, const NamedTensor*> by_name;
  for (const auto& t : tensors) by_name[t.name] = &t;
  FN_CHECK(tensors.size() == specs.size(), "model: ", tensors.size(), " tensors given, a ",
           arch_name(config.arch), " model of this config has ", specs.size());
  size_t total = 0;
  for (const auto& s : specs) total += round16(size_t(s.numel()));
  m->weights_ = std::make_unique<ModelWeights>();
  m->weights_->original = AlignedBuffer(total);
  size_t off = 0;
  for (const auto& s : specs) {
    auto it = by_name.find(s.name);
    FN_CHECK(it != by_name.end(), "model: tensor '", s.name, "' is missing");
    FN_CHECK(it->second->shape == s.shape, "model: tensor '", s.name,
             "' has the wrong shape for this config (see model_tensors())");
    float* dst = m->weights_->original.data() + off;
    std::memcpy(dst, it->second->data, size_t(s.numel()) * sizeof(float));
    for (int64_t i = 0; i < s.numel(); ++i)
      FN_CHECK(std::isfinite(dst[i]), "model: tensor '", s.name, "' element ", i,
               " is not finite (", dst[i], "); the weights are corrupted or training diverged");
    m->tensors_.push_back({s.name, s.shape, dst});
    off += round16(size_t(s.numel()));
  }
  m->input_mean_ = config.norm.input_mean;
  m->input_std_ = config.norm.input_std;
  m->target_mean_ = config.norm.target_mean;
  m->target_std_ = config.norm.target_std;
  pack_weights(*m, *m->weights_);
  return m;
}

namespace {

// Kernel-layout views before their block exists: reserve() records each view and its size
// in floats, allocate() makes one block and points every view into it (each view starting on
// 64 bytes). The network GEMM operands are listed for bf16 packing and the largest K.
struct PackedLayout {
  std::vector<std::pair<const float**, size_t>> views;
  std::vector<GemmWeight*> gemms;  // the network products (bf16 in a bf16 model)

  void reserve(const float** view, size_t n) { views.push_back({view, n}); }
  void reserve_gemm(GemmWeight& g, size_t N, size_t K) {
    g.N = int(N);
    g.K = int(K);
    reserve(&g.f32, N * K);
    gemms.push_back(&g);
  }
  AlignedBuffer allocate() const {
    size_t total = 0;
    for (const auto& v : views) total += round16(v.second);
    AlignedBuffer block(total);
    size_t off = 0;
    for (const auto& v : views) {
      *v.first = block.data() + off;
      off += round16(v.second);
    }
    return block;
  }
};

void reserve_flash(const ModelConfig& c, FlashWeights& fw, PackedLayout& layout) {
  const FlashConfig& f = c.flash;
  const size_t d = size_t(f.d_model), n1 = size_t(f.qkv_dim() + 2 * f.ffn_hidden);
  const size_t u = size_t(f.n_heads * f.head_dim + f.ffn_hidden), dout = size_t(c.output_dim);
  const bool ln = f.norm == NormKind::LayerNorm;
  fw.blocks.resize(size_t(f.n_layers));
  layout.reserve_gemm(fw.embed_w, d, size_t(c.input_dim));
  layout.reserve(&fw.embed_b, d);
  for (int l = 0; l < f.n_layers; ++l) {
    FlashBlockWeights& b = fw.blocks[size_t(l)];
    b.span = f.spans[size_t(l)];
    layout.reserve_gemm(b.w1, n1, d);
    if (ln) layout.reserve(&b.b1, n1);
    layout.reserve(&b.lag_bias, size_t(f.n_heads * b.span));
    layout.reserve_gemm(b.w2, d, u);
  }
  layout.reserve_gemm(fw.readout_w, size_t(f.readout_hidden), d);
  layout.reserve(&fw.readout_b, size_t(f.readout_hidden));
  layout.reserve_gemm(fw.head_w, dout, size_t(f.readout_hidden));
  layout.reserve(&fw.head_b, dout);
  if (c.contact.enabled()) {
    const ContactEncoderConfig& k = c.contact;
    ContactWeights& cw = fw.contact;
    layout.reserve(&cw.row_w, size_t(k.row_hidden) * kContactRowDim);
    layout.reserve(&cw.link_table, size_t(k.link_count) * size_t(k.row_hidden));
    layout.reserve(&cw.fc2_w, size_t(k.row_width) * size_t(k.row_hidden));
    layout.reserve(&cw.fc2_b, size_t(k.row_width));
    layout.reserve(&cw.queries, size_t(k.slots) * size_t(k.row_width));
    layout.reserve(&cw.gates, 2 * (d + size_t(f.readout_hidden) + dout) * size_t(k.pooled_dim()));
  }
}

void reserve_nerd(const ModelConfig& c, NerdWeights& nw, PackedLayout& layout) {
  const NerdConfig& n = c.nerd;
  const size_t d = size_t(n.d_model), hid = size_t(n.mlp_hidden);
  nw.blocks.resize(size_t(n.n_layers));
  layout.reserve_gemm(nw.embed_w, d, size_t(c.input_dim));
  layout.reserve(&nw.pos, size_t(n.window) * d);
  for (auto& b : nw.blocks) {
    layout.reserve_gemm(b.qkv, 3 * d, d);
    layout.reserve_gemm(b.out, d, d);
    layout.reserve_gemm(b.fc, hid, d);
    layout.reserve_gemm(b.proj, d, hid);
  }
  layout.reserve_gemm(nw.fc1, size_t(n.head_hidden), d);
  layout.reserve(&nw.fc1_b, size_t(n.head_hidden));
  layout.reserve_gemm(nw.fc2, size_t(c.output_dim), size_t(n.head_hidden));
  layout.reserve(&nw.fc2_b, size_t(c.output_dim));
}

// The views point into the model's own packed block: filling them writes through.
float* out(const float* view) { return const_cast<float*>(view); }

void copy_tensor(const Model& m, const float* view, const std::string& name, size_t n) {
  std::memcpy(out(view), m.tensor(name), n * sizeof(float));
}

// dst rows (rows, cols) = src rows scaled column-wise by w; bias += src · b.
void fold(float* dst, const float* src, size_t rows, size_t cols, const float* w, const float* b,
          float* bias) {
  for (size_t r = 0; r < rows; ++r) {
    double acc = 0;
    for (size_t k = 0; k < cols; ++k) {
      dst[r * cols + k] = src[r * cols + k] * w[k];
      if (b) acc += double(src[r * cols + k]) * b[k];
    }
    if (bias) bias[r] = float(double(bias[r]) + acc);
  }
}

// Block l: the norm folded into w1 = [qkv; gate_up] (and its bias into b1 for LayerNorm),
// w2 = [out | down] side by side.
void fill_flash_block(const Model& m, int l, const FlashBlockWeights& b) {
  const FlashConfig& f = m.config().flash;
  const size_t d = size_t(f.d_model), qkv = size_t(f.qkv_dim()), gu = 2 * size_t(f.ffn_hidden);
  const size_t o = size_t(f.n_heads * f.head_dim), ff = size_t(f.ffn_hidden);
  const bool ln = f.norm == NormKind::LayerNorm;
  const std::string p = "blocks." + std::to_string(l) + ".";
  const float* w = m.tensor(p + "norm.weight");
  const float* nb = ln ? m.tensor(p + "norm.bias") : nullptr;
  fold(out(b.w1.f32), m.tensor(p + "attn.qkv.weight"), qkv, d, w, nb, ln ? out(b.b1) : nullptr);
  fold(out(b.w1.f32) + qkv * d, m.tensor(p + "ffn.gate_up.weight"), gu, d, w, nb,
       ln ? out(b.b1) + qkv : nullptr);
  copy_tensor(m, b.lag_bias, p + "attn.lag_bias", size_t(f.n_heads * b.span));
  const float* wo = m.tensor(p + "attn.out.weight");
  const float* wd = m.tensor(p + "ffn.down.weight");
  for (size_t r = 0; r < d; ++r) {
    std::memcpy(out(b.w2.f32) + r * (o + ff), wo + r * o, o * sizeof(float));
    std::memcpy(out(b.w2.f32) + r * (o + ff) + o, wd + r * ff, ff * sizeof(float));
  }
}

// Fold the row standardization and the link embedding into fc1 (engine_impl.h, ContactWeights).
void fill_contact(const Model& m, const ContactWeights& cw) {
  const ModelConfig& c = m.config();
  const ContactEncoderConfig& k = c.contact;
  const int in1 = kContactRowDim + k.link_embed, H = k.row_hidden, e = k.row_width;
  const float* w1 = m.tensor("contact.row.fc1.weight");
  const float* b1 = m.tensor("contact.row.fc1.bias");
  const float* embed = m.tensor("contact.link_embed");
  const float* mean = c.norm.contact_mean.data();
  const float* sd = c.norm.contact_std.data();
  std::vector<double> shift(size_t(H), 0.0);  // b1 − Σ_c W_c mean_c / std_c
  for (int h = 0; h < H; ++h) {
    double acc = b1[h];
    for (int f = 0; f < kContactRowDim; ++f) {
      out(cw.row_w)[h * kContactRowDim + f] = w1[h * in1 + f] / sd[f];
      acc -= double(w1[h * in1 + f]) * mean[f] / sd[f];
    }
    shift[size_t(h)] = acc;
  }
  for (int l = 0; l < k.link_count; ++l)
    for (int h = 0; h < H; ++h) {
      double acc = shift[size_t(h)];
      for (int j = 0; j < k.link_embed; ++j) acc += double(w1[h * in1 + kContactRowDim + j]) * embed[l * k.link_embed + j];
      out(cw.link_table)[l * H + h] = float(acc);
    }
  copy_tensor(m, cw.fc2_w, "contact.row.fc2.weight", size_t(e) * size_t(H));
  copy_tensor(m, cw.fc2_b, "contact.row.fc2.bias", size_t(e));
  const float* q = m.tensor("contact.pool.queries");
  const float scale = 1.f / std::sqrt(float(e));
  for (int i = 0; i < k.slots * e; ++i) out(cw.queries)[i] = q[i] * scale;
  const size_t P = size_t(k.pooled_dim());
  float* g = out(cw.gates);
  for (const auto& [name, width] : contact_gates(c)) {
    for (const char* part : {".value.weight", ".gate.weight"}) {
      std::memcpy(g, m.tensor(name + part), sizeof(float) * size_t(width) * P);
      g += size_t(width) * P;
    }
  }
  FN_ASSERT(g == cw.gates + 2 * (size_t(c.flash.d_model) + size_t(c.flash.readout_hidden) + size_t(c.output_dim)) * P);
}

void fill_flash(const Model& m, const FlashWeights& fw) {
  const ModelConfig& c = m.config();
  const FlashConfig& f = c.flash;
  const size_t d = size_t(f.d_model), rh = size_t(f.readout_hidden), dout = size_t(c.output_dim);
  copy_tensor(m, fw.embed_w.f32, "embed.weight", d * size_t(c.input_dim));
  copy_tensor(m, fw.embed_b, "embed.bias", d);
  for (int l = 0; l < f.n_layers; ++l) fill_flash_block(m, l, fw.blocks[size_t(l)]);
  copy_tensor(m, fw.readout_b, "readout.fc.bias", rh);
  fold(out(fw.readout_w.f32), m.tensor("readout.fc.weight"), rh, d, m.tensor("readout.norm.weight"),
       f.norm == NormKind::LayerNorm ? m.tensor("readout.norm.bias") : nullptr, out(fw.readout_b));
  copy_tensor(m, fw.head_w.f32, "head.weight", dout * rh);
  copy_tensor(m, fw.head_b, "head.bias", dout);
  if (c.contact.enabled()) fill_contact(m, fw.contact);
}

// head.fc1 with LN_f folded in; with an lm_head, fc1 · lm_head first (no bias or activation
// between them: one (hh, d) product).
void fill_nerd_head(const Model& m, const NerdWeights& nw) {
  const NerdConfig& n = m.config().nerd;
  const size_t d = size_t(n.d_model), hh = size_t(n.head_hidden);
  const float* fc1 = m.tensor("head.fc1.weight");
  std::vector<float> w1;
  if (n.lm_head) {
    w1.resize(hh * d);
    const float* b = m.tensor("lm_head.weight");
    for (size_t r = 0; r < hh; ++r)
      for (size_t k = 0; k < d; ++k) {
        double acc = 0;
        for (size_t j = 0; j < d; ++j) acc += double(fc1[r * d + j]) * b[j * d + k];
        w1[r * d + k] = float(acc);
      }
    fc1 = w1.data();
  }
  fold(out(nw.fc1.f32), fc1, hh, d, m.tensor("ln_f.weight"), nullptr, nullptr);
  copy_tensor(m, nw.fc1_b, "head.fc1.bias", hh);
  copy_tensor(m, nw.fc2.f32, "head.fc2.weight", size_t(m.output_dim()) * hh);
  copy_tensor(m, nw.fc2_b, "head.fc2.bias", size_t(m.output_dim()));
}

void fill_nerd(const Model& m, const NerdWeights& nw) {
  const NerdConfig& n = m.config().nerd;
  const size_t d = size_t(n.d_model), hid = size_t(n.mlp_hidden);
  copy_tensor(m, nw.embed_w.f32, "embed.weight", d * size_t(m.input_dim()));
  copy_tensor(m, nw.pos, "pos_embed", size_t(n.window) * d);
  if (n.embed_bias)  // every token gets x̂ Eᵀ + b + pos: fold b into the positions
    for (size_t p = 0; p < size_t(n.window); ++p)
      for (size_t k = 0; k < d; ++k) out(nw.pos)[p * d + k] += m.tensor("embed.bias")[k];
  for (int l = 0; l < n.n_layers; ++l) {
    const NerdBlockWeights& b = nw.blocks[size_t(l)];
    const std::string p = "blocks." + std::to_string(l) + ".";
    fold(out(b.qkv.f32), m.tensor(p + "attn.qkv.weight"), 3 * d, d, m.tensor(p + "ln1.weight"), nullptr, nullptr);
    copy_tensor(m, b.out.f32, p + "attn.out.weight", d * d);
    fold(out(b.fc.f32), m.tensor(p + "mlp.fc.weight"), hid, d, m.tensor(p + "ln2.weight"), nullptr, nullptr);
    copy_tensor(m, b.proj.f32, p + "mlp.proj.weight", d * hid);
  }
  fill_nerd_head(m, nw);
}

// Every GEMM operand packed in bf16 panels, one block; each starts on a 64-byte boundary (its
// size is a multiple of 32·32 elements).
void pack_bf16(const std::vector<GemmWeight*>& gemms, AlignedBuffer& block) {
  size_t elems = 0;
  for (const GemmWeight* g : gemms) elems += cpu::bf16_packed_elems(g->N, g->K);
  block = AlignedBuffer((elems + 1) / 2);
  auto* dst = reinterpret_cast<uint16_t*>(block.data());
  for (GemmWeight* g : gemms) {
    cpu::pack_bf16(g->N, g->K, g->f32, g->K, dst);
    g->bf16 = dst;
    dst += cpu::bf16_packed_elems(g->N, g->K);
  }
}

// The kernel layout of m's stored tensors into w: the views are laid out first, then filled.
void pack_weights(const Model& m, ModelWeights& w) {
  PackedLayout layout;
  if (m.arch() == Arch::FlashNeRD)
    reserve_flash(m.config(), w.flash, layout);
  else
    reserve_nerd(m.config(), w.nerd, layout);
  w.packed = layout.allocate();
  if (m.arch() == Arch::FlashNeRD)
    fill_flash(m, w.flash);
  else
    fill_nerd(m, w.nerd);
  for (const GemmWeight* g : layout.gemms) w.max_gemm_k = std::max(w.max_gemm_k, g->K);
  if (m.precision() == Precision::BF16) pack_bf16(layout.gemms, w.bf16);
}

}  // namespace

ModelConfig synthetic_config(Arch arch, ModelPreset preset, int input_dim, int output_dim) {
  FN_CHECK(input_dim > 0 && output_dim > 0, "synthetic model: input_dim=", input_dim,
           " and output_dim=", output_dim, " must be positive");
  ModelConfig c;
  c.arch = arch;
  c.robot = "synthetic";
  c.timestep = 0.01;
  c.layout.nq = c.layout.nv = 1;
  c.layout.nu = 0;
  c.layout.joint_wrapped = {0};
  c.state_dim = input_dim;
  c.input_dim = input_dim;
  c.output_dim = output_dim;
  apply_preset(preset, c);
  c.validate();
  return c;
}

}  // namespace flashnerd::engine
