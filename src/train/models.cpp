// FlashNeRD and NeRD in libtorch; formulas in docs/FORMAT.md (the engine implements the same).
#include "train/models.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "core/error.h"
#include "core/rng.h"

namespace flashnerd::train {

namespace {

using torch::nn::Linear;
using torch::nn::LinearOptions;

// An empty module used only to give parameters their dotted names ("attn.qkv.weight").
std::shared_ptr<torch::nn::Module> add_container(torch::nn::Module& parent, const std::string& name) {
  return parent.register_module(name, std::make_shared<torch::nn::Module>());
}

Linear add_linear(torch::nn::Module& parent, const std::string& name, int64_t in, int64_t out,
                  bool bias) {
  return parent.register_module(name, Linear(LinearOptions(in, out).bias(bias)));
}

torch::Tensor activation(const torch::Tensor& x, FfnActivation a) {
  switch (a) {
    case FfnActivation::SwiGLU: return torch::silu(x);
    case FfnActivation::GEGLU: return torch::gelu(x);  // erf form
    case FfnActivation::ReGLU: return torch::relu(x);
    case FfnActivation::GLU: return torch::sigmoid(x);
    case FfnActivation::MishGLU: return torch::mish(x);
  }
  return x;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// norm, contact gate

NormImpl::NormImpl(int64_t dim, NormKind kind, bool with_bias) : kind_(kind), dim_(dim) {
  weight = register_parameter("weight", torch::ones({dim}));
  if (with_bias) bias = register_parameter("bias", torch::zeros({dim}));
}

torch::Tensor NormImpl::forward(const torch::Tensor& x) {
  if (kind_ == NormKind::LayerNorm) return torch::layer_norm(x, {dim_}, weight, bias, kNormEpsilon);
  torch::Tensor r = torch::rsqrt(x.pow(2).mean(-1, /*keepdim=*/true) + kNormEpsilon);
  return x * r * weight;
}

ContactGateImpl::ContactGateImpl(int64_t in_dim, int64_t out_dim) {
  value = add_linear(*this, "value", in_dim, out_dim, false);
  gate = add_linear(*this, "gate", in_dim, out_dim, false);
}

torch::Tensor ContactGateImpl::forward(const torch::Tensor& p) {
  return value(p) * torch::sigmoid(gate(p));
}

ContactEncoderImpl::ContactEncoderImpl(const ContactEncoderConfig& c) : c_(c) {
  link_embed_ = register_parameter("link_embed", torch::zeros({c.link_count, c.link_embed}));
  auto row = add_container(*this, "row");
  fc1_ = add_linear(*row, "fc1", kContactRowDim + c.link_embed, c.row_hidden, true);
  fc2_ = add_linear(*row, "fc2", c.row_hidden, c.row_width, true);
  auto pool = add_container(*this, "pool");
  queries_ = pool->register_parameter("queries", torch::zeros({c.slots, c.row_width}));
}

torch::Tensor ContactEncoderImpl::row_features(const ContactWindow& w) {
  FN_CHECK(w.rows.dim() == 4 && w.rows.size(3) == kContactRowDim && w.link.sizes() == w.rows.sizes().slice(0, 3) &&
               w.mask.sizes() == w.link.sizes(),
           "contact encoder: expected rows (B, T, K, ", kContactRowDim, "), link and mask (B, T, K); got ",
           w.rows.sizes(), ", ", w.link.sizes(), ", ", w.mask.sizes());
  std::vector<int64_t> shape = w.link.sizes().vec();
  shape.push_back(c_.link_embed);
  torch::Tensor embedding = link_embed_.index_select(0, w.link.reshape({-1})).view(shape);  // (B, T, K, E)
  return fc2_(torch::silu(fc1_(torch::cat({w.rows, embedding}, -1))));
}

torch::Tensor ContactEncoderImpl::forward(const ContactWindow& w) {
  // padding rows are replaced by zeros before anything reads them, so their content
  // (even non-finite) never reaches the pooled vector or its gradient
  torch::Tensor mask = w.mask.unsqueeze(-1);                                   // (B, T, K, 1)
  ContactWindow clean{torch::where(mask, w.rows, torch::zeros_like(w.rows)),
                      w.link.masked_fill(w.mask.logical_not(), 0), w.mask};
  torch::Tensor phi = row_features(clean);                                     // (B, T, K, e)
  torch::Tensor scores = torch::matmul(phi, queries_.t()) / std::sqrt(double(c_.row_width));  // (B, T, K, M)
  scores = scores.masked_fill(mask.logical_not(), -std::numeric_limits<float>::infinity());
  // a frame without rows would softmax over -inf only: give it zero weights instead
  torch::Tensor any = w.mask.any(-1, /*keepdim=*/true).unsqueeze(-1);        // (B, T, 1, 1)
  torch::Tensor alpha = torch::softmax(scores.masked_fill(any.logical_not(), 0.0), 2) * any * mask;
  torch::Tensor slots = torch::matmul(alpha.transpose(2, 3), phi);             // (B, T, M, e)
  return slots.flatten(2);
}

// ---------------------------------------------------------------------------------------
// FlashNeRD

FlashBlockImpl::FlashBlockImpl(const FlashConfig& f, int span) : f_(f), span_(span) {
  const bool ln = f.norm == NormKind::LayerNorm;
  norm_ = register_module("norm", Norm(f.d_model, f.norm, ln));
  auto attn = add_container(*this, "attn");
  qkv_ = add_linear(*attn, "qkv", f.d_model, f.qkv_dim(), false);
  lag_bias_ = attn->register_parameter("lag_bias", torch::zeros({f.n_heads, span}));
  out_ = add_linear(*attn, "out", int64_t(f.n_heads) * f.head_dim, f.d_model, false);
  auto ffn = add_container(*this, "ffn");
  gate_up_ = add_linear(*ffn, "gate_up", f.d_model, 2 * int64_t(f.ffn_hidden), false);
  down_ = add_linear(*ffn, "down", f.ffn_hidden, f.d_model, false);
}

torch::Tensor FlashBlockImpl::forward(const torch::Tensor& h) {
  const int64_t B = h.size(0), T = h.size(1), nq = f_.n_heads, hd = f_.head_dim;
  torch::Tensor z = norm_(h);
  // multi-query attention: rows of qkv are [q_0 .. q_{nq-1}, k, v], 64 wide each
  torch::Tensor qkv = qkv_(z);                                                   // (B, T, (nq+2) hd)
  // The heads share k and v, so all nq·T queries of a window meet its keys in one product
  // of batch B (broadcasting k over heads would run B·nq tiny products: 2.7x slower, measured)
  // split, not narrow: split's backward concatenates the parts' gradients, where each
  // narrow's backward would zero-fill a full-width gradient and the three would be added
  const std::vector<torch::Tensor> parts = qkv.split_with_sizes({nq * hd, hd, hd}, -1);
  torch::Tensor q = parts[0].view({B, T, nq, hd}).transpose(1, 2);             // (B, nq, T, hd)
  const torch::Tensor& k = parts[1];                                             // (B, T, hd)
  const torch::Tensor& v = parts[2];                                             // (B, T, hd)
  torch::Tensor scores = torch::bmm(q.reshape({B, nq * T, hd}), k.transpose(1, 2)).view({B, nq, T, T}) /
                         std::sqrt(double(hd));
  // banded causal mask with lag bias: query t sees keys j with 0 <= t - j < span
  torch::Tensor idx = torch::arange(T, torch::kLong);
  torch::Tensor lag = idx.unsqueeze(1) - idx.unsqueeze(0);  // (T, T) = t - j
  torch::Tensor inside = (lag >= 0).logical_and(lag < span_);
  torch::Tensor bias = lag_bias_.index_select(1, lag.clamp(0, span_ - 1).reshape({-1}))
                           .view({nq, T, T})
                           .masked_fill(inside.logical_not(), -std::numeric_limits<float>::infinity());
  torch::Tensor att = torch::softmax(scores + bias, -1);  // (B, nq, T, T)
  if (record_attention) last_attention = att.detach();
  torch::Tensor o = torch::bmm(att.reshape({B, nq * T, T}), v).view({B, nq, T, hd}).transpose(1, 2).reshape({B, T, nq * hd});
  torch::Tensor a = out_(o);
  // gated feed-forward from the same normalized input
  torch::Tensor gu = gate_up_(z);
  const int64_t fh = f_.ffn_hidden;
  const std::vector<torch::Tensor> gate_up = gu.split(fh, -1);
  torch::Tensor g = activation(gate_up[0], f_.activation) * gate_up[1];
  if (dropout > 0) return h + torch::dropout(a, dropout, is_training()) + torch::dropout(down_(g), dropout, is_training());
  return h + a + down_(g);
}

FlashNeRDModel::FlashNeRDModel(const ModelConfig& c) : DynamicsModel(c) {
  const FlashConfig& f = c.flash;
  const bool ln = f.norm == NormKind::LayerNorm;
  embed_ = add_linear(*this, "embed", c.input_dim, f.d_model, true);
  auto list = add_container(*this, "blocks");
  for (int l = 0; l < f.n_layers; ++l)
    blocks.push_back(list->register_module(std::to_string(l), FlashBlock(f, f.spans[size_t(l)])));
  auto readout = add_container(*this, "readout");
  readout_norm_ = readout->register_module("norm", Norm(f.d_model, f.norm, ln));
  readout_fc_ = add_linear(*readout, "fc", f.d_model, f.readout_hidden, true);
  head_ = add_linear(*this, "head", f.readout_hidden, c.output_dim, true);
  if (c.contact.enabled()) {
    const int64_t pd = c.contact.pooled_dim();
    contact = register_module("contact", ContactEncoder(c.contact));
    ContactGate* slots[] = {&contact_embed, &contact_readout, &contact_head};
    const auto gates = contact_gates(c);
    for (size_t i = 0; i < gates.size(); ++i)
      *slots[i] = register_module(gates[i].first, ContactGate(pd, gates[i].second));
  }
}

torch::Tensor DynamicsModel::predict(const torch::Tensor& x, const ContactWindow* contacts) {
  FN_CHECK(contacts == nullptr, arch_name(config_.arch), " model without a contact encoder was given contact rows");
  return forward(x);
}

torch::Tensor FlashNeRDModel::predict(const torch::Tensor& x, const ContactWindow* contacts) {
  if (!config_.contact.enabled()) return DynamicsModel::predict(x, contacts);
  FN_CHECK(contacts != nullptr, "this FlashNeRD model reads variable contacts: give the frames' contact rows");
  return forward_with_contacts(x, contact(*contacts));
}

torch::Tensor FlashNeRDModel::forward(const torch::Tensor& x) { return forward_with_contacts(x, {}); }

void FlashNeRDModel::set_dropout(double p) {
  DynamicsModel::set_dropout(p);
  for (auto& b : blocks) b->dropout = p;
}

torch::Tensor FlashNeRDModel::forward_with_contacts(const torch::Tensor& x, const torch::Tensor& pooled) {
  FN_CHECK(x.dim() == 3 && x.size(2) == config_.input_dim, "FlashNeRD forward: expected input (B, T, ",
           config_.input_dim, "), got ", x.sizes());
  const bool contacts = pooled.defined();
  torch::Tensor h = embed_(x);
  if (contacts && contact_embed) h = h + contact_embed(pooled);
  for (auto& b : blocks) h = b(h);
  torch::Tensor r = torch::silu(readout_fc_(readout_norm_(h)));
  if (contacts && contact_readout) r = r + contact_readout(pooled);
  torch::Tensor y = head_(r);
  if (contacts && contact_head) y = y + contact_head(pooled);
  return y;
}

// ---------------------------------------------------------------------------------------
// NeRD

NerdModel::NerdModel(const ModelConfig& c) : DynamicsModel(c) {
  const NerdConfig& n = c.nerd;
  const int64_t d = n.d_model;
  embed_ = add_linear(*this, "embed", c.input_dim, d, n.embed_bias);
  pos_embed_ = register_parameter("pos_embed", torch::zeros({n.window, d}));
  auto list = add_container(*this, "blocks");
  for (int l = 0; l < n.n_layers; ++l) {
    auto b = add_container(*list, std::to_string(l));
    Block blk;
    blk.ln1 = add_container(*b, "ln1")->register_parameter("weight", torch::ones({d}));
    auto attn = add_container(*b, "attn");
    blk.qkv = add_linear(*attn, "qkv", d, 3 * d, false);
    blk.out = add_linear(*attn, "out", d, d, false);
    blk.ln2 = add_container(*b, "ln2")->register_parameter("weight", torch::ones({d}));
    auto mlp = add_container(*b, "mlp");
    blk.fc = add_linear(*mlp, "fc", d, n.mlp_hidden, false);
    blk.proj = add_linear(*mlp, "proj", n.mlp_hidden, d, false);
    blocks_.push_back(blk);
  }
  ln_f_ = add_container(*this, "ln_f")->register_parameter("weight", torch::ones({d}));
  if (n.lm_head) lm_head_ = add_linear(*this, "lm_head", d, d, false);
  auto head = add_container(*this, "head");
  fc1_ = add_linear(*head, "fc1", d, n.head_hidden, true);
  fc2_ = add_linear(*head, "fc2", n.head_hidden, c.output_dim, true);
}

torch::Tensor NerdModel::forward(const torch::Tensor& x) {
  const NerdConfig& n = config_.nerd;
  FN_CHECK(x.dim() == 3 && x.size(2) == config_.input_dim, "NeRD forward: expected input (B, T, ",
           config_.input_dim, "), got ", x.sizes());
  const int64_t B = x.size(0), T = x.size(1), d = n.d_model, nh = n.n_heads, hd = n.head_dim();
  FN_CHECK(T <= n.window, "NeRD forward: window of ", T, " frames exceeds the model's ", n.window,
           " learned positions");
  torch::Tensor h = embed_(x) + pos_embed_.narrow(0, 0, T);
  torch::Tensor causal =
      torch::full({T, T}, -std::numeric_limits<float>::infinity()).triu(1);  // (T, T)
  const double scale = 1.0 / std::sqrt(double(hd));
  for (auto& b : blocks_) {
    torch::Tensor z = torch::layer_norm(h, {d}, b.ln1, {}, kNormEpsilon);
    torch::Tensor qkv = b.qkv(z);  // (B, T, 3d) = [q | k | v]
    const std::vector<torch::Tensor> parts = qkv.split(d, -1);  // split: see FlashBlockImpl::forward
    auto heads = [&](int64_t i) { return parts[size_t(i)].view({B, T, nh, hd}).transpose(1, 2); };
    torch::Tensor att = torch::softmax(torch::matmul(heads(0), heads(1).transpose(-2, -1)) * scale + causal, -1);
    torch::Tensor o = torch::matmul(att, heads(2)).transpose(1, 2).reshape({B, T, d});
    h = h + drop(b.out(o));
    torch::Tensor z2 = torch::layer_norm(h, {d}, b.ln2, {}, kNormEpsilon);
    h = h + drop(b.proj(torch::gelu(b.fc(z2))));
  }
  h = torch::layer_norm(h, {d}, ln_f_, {}, kNormEpsilon);
  if (n.lm_head) h = lm_head_(h);
  torch::Tensor r = fc1_(h);
  return fc2_(n.head_relu ? torch::relu(r) : torch::gelu(r));
}

// ---------------------------------------------------------------------------------------
// construction, initialization, weights in and out

double training_floats_per_position(const ModelConfig& c) {
  double kept = 2.0 * c.input_dim + 2.0 * c.output_dim;
  if (c.arch == Arch::FlashNeRD) {
    const FlashConfig& f = c.flash;
    int widest_span = 0;
    for (int s : f.spans) widest_span = std::max(widest_span, s);
    // per block: norms and residuals, q/k/v, attention weights, attention out, the gated FFN
    kept += f.n_layers * (6.0 * f.d_model + f.qkv_dim() + double(f.n_heads) * widest_span + 3.0 * f.ffn_hidden);
    kept += 3.0 * f.readout_hidden;
    if (c.contact.enabled())
      kept += double(c.contact.capacity) * (3.0 * c.contact.row_hidden + c.contact.row_width + c.contact.slots) +
              2.0 * c.contact.pooled_dim();
  } else {
    const NerdConfig& n = c.nerd;
    kept += n.n_layers * (8.0 * n.d_model + double(n.n_heads) * n.window + 2.0 * n.mlp_hidden) + 3.0 * n.head_hidden;
  }
  return 2.0 * kept;  // and their gradients during the backward pass
}

std::shared_ptr<DynamicsModel> make_model(const ModelConfig& c, uint64_t seed) {
  c.validate();
  std::shared_ptr<DynamicsModel> m;
  if (c.arch == Arch::FlashNeRD) {
    m = std::make_shared<FlashNeRDModel>(c);
  } else {
    m = std::make_shared<NerdModel>(c);
  }
  init_weights(*m, seed);
  return m;
}

namespace {

std::map<std::string, torch::Tensor> parameters_by_name(DynamicsModel& m) {
  std::map<std::string, torch::Tensor> p;
  for (const auto& kv : m.named_parameters()) p[kv.key()] = kv.value();
  return p;
}

// The module (last dotted component before the parameter name) of a parameter.
std::string owner_of(const std::string& name) {
  size_t last = name.rfind('.');
  if (last == std::string::npos) return "";
  size_t prev = name.rfind('.', last - 1);
  return name.substr(prev == std::string::npos ? 0 : prev + 1, last - (prev == std::string::npos ? 0 : prev + 1));
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

void init_weights(DynamicsModel& m, uint64_t seed) {
  const ModelConfig& c = m.config();
  const int layers = c.arch == Arch::FlashNeRD ? c.flash.n_layers : c.nerd.n_layers;
  const double std_base = 0.02, std_out = 0.02 / std::sqrt(2.0 * layers);
  auto params = parameters_by_name(m);
  Rng rng(seed ^ 0x1A17B0B5ull);
  torch::NoGradGuard no_grad;
  for (const auto& spec : model_tensors(c)) {
    auto it = params.find(spec.name);
    FN_ASSERT(it != params.end());
    torch::Tensor p = it->second;
    const std::string owner = owner_of(spec.name);
    if (owner == "norm" || owner == "ln1" || owner == "ln2" || owner == "ln_f") {
      p.fill_(ends_with(spec.name, ".bias") ? 0.0f : 1.0f);
    } else if (ends_with(spec.name, ".bias") || ends_with(spec.name, "lag_bias")) {
      p.zero_();
    } else {
      const bool out_proj = ends_with(spec.name, "attn.out.weight") ||
                            ends_with(spec.name, "ffn.down.weight") ||
                            ends_with(spec.name, "mlp.proj.weight");
      const double s = ends_with(spec.name, "link_embed") ? 1.0 : out_proj ? std_out : std_base;
      std::vector<float> values(size_t(p.numel()));
      for (auto& v : values) v = float(s * rng.normal());
      p.copy_(torch::from_blob(values.data(), p.sizes(), torch::kFloat32));
    }
  }
}

std::vector<std::pair<std::string, torch::Tensor>> model_weights(DynamicsModel& m) {
  auto params = parameters_by_name(m);
  auto specs = model_tensors(m.config());
  FN_ASSERT(params.size() == specs.size());
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& spec : specs) {
    auto it = params.find(spec.name);
    FN_ASSERT(it != params.end());
    torch::Tensor t = it->second.detach().to(torch::kFloat32).contiguous();
    FN_ASSERT(t.sizes().vec() == spec.shape);
    out.emplace_back(spec.name, t);
  }
  return out;
}

void load_weights(DynamicsModel& m, const ModelArtifact& artifact) {
  auto params = parameters_by_name(m);
  torch::NoGradGuard no_grad;
  for (const auto& spec : model_tensors(m.config())) {
    TensorView v = artifact.weights.get(spec.name, spec.shape);
    auto it = params.find(spec.name);
    FN_ASSERT(it != params.end());
    it->second.copy_(torch::from_blob(const_cast<float*>(v.data), spec.shape, torch::kFloat32));
  }
}

std::shared_ptr<DynamicsModel> load_model(const std::string& dir) {
  ModelArtifact a = ModelArtifact::load(dir);
  auto m = make_model(a.config, 0);
  load_weights(*m, a);
  return m;
}

void export_model(DynamicsModel& m, const ModelConfig& config, const std::string& dir) {
  auto weights = model_weights(m);
  std::vector<NamedTensor> tensors;
  for (const auto& [name, t] : weights)
    tensors.push_back({name, t.sizes().vec(), t.data_ptr<float>()});
  save_model_artifact(dir, config, tensors);
}

}  // namespace flashnerd::train
