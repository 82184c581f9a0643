// Model: load/random/from_tensors, then pack() re-lays the weights for the kernels
// (engine.h documents the packed views; norm weights and biases are folded into the GEMM
// that follows the norm, so a FlashNeRD block is two GEMMs: [qkv; gate_up] and [out | down]).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>

#include "core/ensemble_manifest.h"
#include "core/error.h"
#include "core/model_artifact.h"
#include "core/rng.h"
#include "engine/cpu/bf16.h"
#include "engine/engine.h"

namespace flashnerd::engine {

namespace {
size_t round16(size_t n) { return (n + 15) / 16 * 16; }
}  // namespace

const char* gemm_backend_name(GemmBackend b) {
  switch (b) {
    case GemmBackend::Auto: return "auto";
    case GemmBackend::OpenBLAS: return "openblas";
    case GemmBackend::Eigen: return "eigen";
    case GemmBackend::Naive: return "naive";
    case GemmBackend::RowInvariant: return "row-invariant";
  }
  return "?";
}

GemmBackend parse_gemm_backend(const std::string& s) {
  if (s == "auto") return GemmBackend::Auto;
  if (s == "openblas") return GemmBackend::OpenBLAS;
  if (s == "eigen") return GemmBackend::Eigen;
  if (s == "naive") return GemmBackend::Naive;
  if (s == "row-invariant") return GemmBackend::RowInvariant;
  throw Error("unknown GEMM backend '" + s + "': expected auto, openblas, eigen, naive or row-invariant");
}

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::Auto: return "auto";
    case Precision::FP32: return "fp32";
    case Precision::BF16: return "bf16";
  }
  return "?";
}

Precision parse_precision(const std::string& s) {
  if (s == "auto") return Precision::Auto;
  if (s == "fp32") return Precision::FP32;
  if (s == "bf16") return Precision::BF16;
  throw Error("unknown precision '" + s + "': expected auto, fp32 or bf16");
}

Precision resolve_precision(Precision requested) {
  const CpuFeatures& cpu = cpu_features();
  if (requested == Precision::Auto) return cpu.native_bf16() ? Precision::BF16 : Precision::FP32;
  if (requested == Precision::BF16)
    FN_CHECK(cpu.native_bf16(), "bf16 precision needs a CPU with AVX-512-BF16 or AMX; this one (",
             cpu.model.empty() ? cpu.vendor : cpu.model, ", kernels up to ", isa_name(cpu.best),
             ") has neither: use --precision fp32 (or auto, which picks fp32 here)");
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
  m->original_ = AlignedBuffer(total);
  size_t off = 0;
  for (const auto& s : specs) {
    auto it = by_name.find(s.name);
    FN_CHECK(it != by_name.end(), "model: tensor '", s.name, "' is missing");
    FN_CHECK(it->second->shape == s.shape, "model: tensor '", s.name,
             "' has the wrong shape for this config (see model_tensors())");
    float* dst = m->original_.data() + off;
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
  m->pack();
  return m;
}

void Model::pack() {
  const ModelConfig& c = config_;
  // Lay out the views first (sizes in floats, each rounded to 64 bytes), then fill them.
  std::vector<std::pair<const float**, size_t>> views;
  auto reserve = [&](const float** view, size_t n) { views.push_back({view, n}); };
  std::vector<GemmWeight*> gemms;  // the network products (bf16 in a bf16 model)
  auto reserve_gemm = [&](GemmWeight& g, size_t N, size_t K) {
    g.N = int(N);
    g.K = int(K);
    reserve(&g.f32, N * K);
    gemms.push_back(&g);
  };
  const int din = c.input_dim, dout = c.output_dim;
  if (c.arch == Arch::FlashNeRD) {
    const FlashConfig& f = c.flash;
    const size_t d = size_t(f.d_model), n1 = size_t(f.qkv_dim() + 2 * f.ffn_hidden);
    const size_t u = size_t(f.n_heads * f.head_dim + f.ffn_hidden);
    const bool ln = f.norm == NormKind::LayerNorm;
    flash_.blocks.resize(size_t(f.n_layers));
    reserve_gemm(flash_.embed_w, d, size_t(din));
    reserve(&flash_.embed_b, d);
    for (int l = 0; l < f.n_layers; ++l) {
      FlashBlockWeights& b = flash_.blocks[size_t(l)];
      b.span = f.spans[size_t(l)];
      reserve_gemm(b.w1, n1, d);
      if (ln) reserve(&b.b1, n1);
      reserve(&b.lag_bias, size_t(f.n_heads * b.span));
      reserve_gemm(b.w2, d, u);
    }
    reserve_gemm(flash_.readout_w, size_t(f.readout_hidden), d);
    reserve(&flash_.readout_b, size_t(f.readout_hidden));
    reserve_gemm(flash_.head_w, size_t(dout), size_t(f.readout_hidden));
    reserve(&flash_.head_b, size_t(dout));
    if (c.contact.enabled()) {
      const ContactEncoderConfig& k = c.contact;
      ContactWeights& cw = flash_.contact;
      reserve(&cw.row_w, size_t(k.row_hidden) * kContactRowDim);
      reserve(&cw.link_table, size_t(k.link_count) * size_t(k.row_hidden));
      reserve(&cw.fc2_w, size_t(k.row_width) * size_t(k.row_hidden));
      reserve(&cw.fc2_b, size_t(k.row_width));
      reserve(&cw.queries, size_t(k.slots) * size_t(k.row_width));
      reserve(&cw.gates, 2 * (d + size_t(f.readout_hidden) + size_t(dout)) * size_t(k.pooled_dim()));
    }
  } else {
    const NerdConfig& n = c.nerd;
    const size_t d = size_t(n.d_model), hid = size_t(n.mlp_hidden);
    nerd_.blocks.resize(size_t(n.n_layers));
    reserve_gemm(nerd_.embed_w, d, size_t(din));
    reserve(&nerd_.pos, size_t(n.window) * d);
    for (auto& b : nerd_.blocks) {
      reserve_gemm(b.qkv, 3 * d, d);
      reserve_gemm(b.out, d, d);
      reserve_gemm(b.fc, hid, d);
      reserve_gemm(b.proj, d, hid);
    }
    reserve_gemm(nerd_.fc1, size_t(n.head_hidden), d);
    reserve(&nerd_.fc1_b, size_t(n.head_hidden));
    reserve_gemm(nerd_.fc2, size_t(dout), size_t(n.head_hidden));
    reserve(&nerd_.fc2_b, size_t(dout));
  }
  size_t total = 0;
  for (auto& v : views) total += round16(v.second);
  packed_ = AlignedBuffer(total);
  size_t off = 0;
  for (auto& v : views) {
    *v.first = packed_.data() + off;
    off += round16(v.second);
  }
  auto out = [](const float* view) { return const_cast<float*>(view); };  // our own block
  auto copy = [&](const float* view, const std::string& name, size_t n) {
    std::memcpy(out(view), tensor(name), n * sizeof(float));
  };
  // dst rows (rows, cols) at row offset = src rows scaled column-wise by w; bias += src · b.
  auto fold = [&](float* dst, const float* src, size_t rows, size_t cols, const float* w,
                  const float* b, float* bias) {
    for (size_t r = 0; r < rows; ++r) {
      double acc = 0;
      for (size_t k = 0; k < cols; ++k) {
        dst[r * cols + k] = src[r * cols + k] * w[k];
        if (b) acc += double(src[r * cols + k]) * b[k];
      }
      if (bias) bias[r] = float(double(bias[r]) + acc);
    }
  };
  if (c.arch == Arch::FlashNeRD) {
    const FlashConfig& f = c.flash;
    const size_t d = size_t(f.d_model), qkv = size_t(f.qkv_dim()), gu = 2 * size_t(f.ffn_hidden);
    const size_t o = size_t(f.n_heads * f.head_dim), ff = size_t(f.ffn_hidden);
    const bool ln = f.norm == NormKind::LayerNorm;
    copy(flash_.embed_w.f32, "embed.weight", d * size_t(din));
    copy(flash_.embed_b, "embed.bias", d);
    for (int l = 0; l < f.n_layers; ++l) {
      const FlashBlockWeights& b = flash_.blocks[size_t(l)];
      const std::string p = "blocks." + std::to_string(l) + ".";
      const float* w = tensor(p + "norm.weight");
      const float* nb = ln ? tensor(p + "norm.bias") : nullptr;
      fold(out(b.w1.f32), tensor(p + "attn.qkv.weight"), qkv, d, w, nb, ln ? out(b.b1) : nullptr);
      fold(out(b.w1.f32) + qkv * d, tensor(p + "ffn.gate_up.weight"), gu, d, w, nb,
           ln ? out(b.b1) + qkv : nullptr);
      copy(b.lag_bias, p + "attn.lag_bias", size_t(f.n_heads * b.span));
      const float* wo = tensor(p + "attn.out.weight");
      const float* wd = tensor(p + "ffn.down.weight");
      for (size_t r = 0; r < d; ++r) {
        std::memcpy(out(b.w2.f32) + r * (o + ff), wo + r * o, o * sizeof(float));
        std::memcpy(out(b.w2.f32) + r * (o + ff) + o, wd + r * ff, ff * sizeof(float));
      }
    }
    const size_t rh = size_t(f.readout_hidden);
    copy(flash_.readout_b, "readout.fc.bias", rh);
    fold(out(flash_.readout_w.f32), tensor("readout.fc.weight"), rh, d, tensor("readout.norm.weight"),
         ln ? tensor("readout.norm.bias") : nullptr, out(flash_.readout_b));
    copy(flash_.head_w.f32, "head.weight", size_t(dout) * rh);
    copy(flash_.head_b, "head.bias", size_t(dout));
    if (c.contact.enabled()) pack_contact();
  } else {
    const NerdConfig& n = c.nerd;
    const size_t d = size_t(n.d_model), hid = size_t(n.mlp_hidden), hh = size_t(n.head_hidden);
    copy(nerd_.embed_w.f32, "embed.weight", d * size_t(din));
    copy(nerd_.pos, "pos_embed", size_t(n.window) * d);
    if (n.embed_bias)  // every token gets x̂ Eᵀ + b + pos: fold b into the positions
      for (size_t p = 0; p < size_t(n.window); ++p)
        for (size_t k = 0; k < d; ++k) out(nerd_.pos)[p * d + k] += tensor("embed.bias")[k];
    for (int l = 0; l < n.n_layers; ++l) {
      const NerdBlockWeights& b = nerd_.blocks[size_t(l)];
      const std::string p = "blocks." + std::to_string(l) + ".";
      fold(out(b.qkv.f32), tensor(p + "attn.qkv.weight"), 3 * d, d, tensor(p + "ln1.weight"), nullptr, nullptr);
      copy(b.out.f32, p + "attn.out.weight", d * d);
      fold(out(b.fc.f32), tensor(p + "mlp.fc.weight"), hid, d, tensor(p + "ln2.weight"), nullptr, nullptr);
      copy(b.proj.f32, p + "mlp.proj.weight", d * hid);
    }
    if (n.lm_head) {  // no bias or activation between them: fc1 · lm_head is one (hh, d) product
      std::vector<float> w1(hh * d);
      const float* a = tensor("head.fc1.weight");
      const float* b = tensor("lm_head.weight");
      for (size_t r = 0; r < hh; ++r)
        for (size_t k = 0; k < d; ++k) {
          double acc = 0;
          for (size_t j = 0; j < d; ++j) acc += double(a[r * d + j]) * b[j * d + k];
          w1[r * d + k] = float(acc);
        }
      fold(out(nerd_.fc1.f32), w1.data(), hh, d, tensor("ln_f.weight"), nullptr, nullptr);
    } else {
      fold(out(nerd_.fc1.f32), tensor("head.fc1.weight"), hh, d, tensor("ln_f.weight"), nullptr, nullptr);
    }
    copy(nerd_.fc1_b, "head.fc1.bias", hh);
    copy(nerd_.fc2.f32, "head.fc2.weight", size_t(dout) * hh);
    copy(nerd_.fc2_b, "head.fc2.bias", size_t(dout));
  }
  for (const GemmWeight* g : gemms) max_gemm_k_ = std::max(max_gemm_k_, g->K);
  if (precision_ == Precision::BF16) pack_bf16(gemms);
}

void Model::pack_bf16(const std::vector<GemmWeight*>& weights) {
  // every packed weight starts on a 64-byte boundary (its size is a multiple of 32·32 elements)
  size_t elems = 0;
  for (const GemmWeight* g : weights) elems += cpu::bf16_packed_elems(g->N, g->K);
  bf16_ = AlignedBuffer((elems + 1) / 2);
  auto* dst = reinterpret_cast<uint16_t*>(bf16_.data());
  for (GemmWeight* g : weights) {
    cpu::pack_bf16(g->N, g->K, g->f32, g->K, dst);
    g->bf16 = dst;
    dst += cpu::bf16_packed_elems(g->N, g->K);
  }
}

void Model::pack_contact() {
  // fold the row standardization and the link embedding into fc1 (engine.h, ContactWeights)
  const ModelConfig& c = config_;
  const ContactEncoderConfig& k = c.contact;
  ContactWeights& cw = flash_.contact;
  auto out = [](const float* view) { return const_cast<float*>(view); };
  const int in1 = kContactRowDim + k.link_embed, H = k.row_hidden, e = k.row_width;
  const float* w1 = tensor("contact.row.fc1.weight");
  const float* b1 = tensor("contact.row.fc1.bias");
  const float* embed = tensor("contact.link_embed");
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
  std::memcpy(out(cw.fc2_w), tensor("contact.row.fc2.weight"), sizeof(float) * size_t(e) * size_t(H));
  std::memcpy(out(cw.fc2_b), tensor("contact.row.fc2.bias"), sizeof(float) * size_t(e));
  const float* q = tensor("contact.pool.queries");
  const float scale = 1.f / std::sqrt(float(e));
  for (int i = 0; i < k.slots * e; ++i) out(cw.queries)[i] = q[i] * scale;
  const size_t P = size_t(k.pooled_dim());
  float* g = out(cw.gates);
  for (const auto& [name, width] : contact_gates(c)) {
    for (const char* part : {".value.weight", ".gate.weight"}) {
      std::memcpy(g, tensor(name + part), sizeof(float) * size_t(width) * P);
      g += size_t(width) * P;
    }
  }
  FN_ASSERT(g == cw.gates + 2 * (size_t(c.flash.d_model) + size_t(c.flash.readout_hidden) + size_t(c.output_dim)) * P);
}

ModelConfig synthetic_config(Arch arch, const std::string& preset, int input_dim, int output_dim) {
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
