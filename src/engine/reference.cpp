#include "engine/reference.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace flashnerd::engine {

namespace {

using Mat = std::vector<std::vector<double>>;  // (rows, cols)

// y = x Wᵀ (+ b), W (out, in) row-major as stored.
std::vector<double> linear(const std::vector<double>& x, const float* W, const float* b, int out) {
  const int in = int(x.size());
  std::vector<double> y(size_t(out), 0.0);
  for (int o = 0; o < out; ++o) {
    double s = b ? b[o] : 0.0;
    for (int k = 0; k < in; ++k) s += double(W[size_t(o) * in + k]) * x[size_t(k)];
    y[size_t(o)] = s;
  }
  return y;
}

std::vector<double> rms_norm(const std::vector<double>& h, const float* w) {
  double ss = 0;
  for (double v : h) ss += v * v;
  const double r = 1.0 / std::sqrt(ss / double(h.size()) + kNormEpsilon);
  std::vector<double> z(h.size());
  for (size_t k = 0; k < h.size(); ++k) z[k] = h[k] * r * w[k];
  return z;
}

std::vector<double> layer_norm(const std::vector<double>& h, const float* w, const float* b) {
  double mean = 0, var = 0;
  for (double v : h) mean += v;
  mean /= double(h.size());
  for (double v : h) var += (v - mean) * (v - mean);
  var /= double(h.size());
  const double r = 1.0 / std::sqrt(var + kNormEpsilon);
  std::vector<double> z(h.size());
  for (size_t k = 0; k < h.size(); ++k) z[k] = (h[k] - mean) * r * w[k] + (b ? b[k] : 0.0);
  return z;
}

double silu(double x) { return x / (1.0 + std::exp(-x)); }
double gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double activation(FfnActivation a, double x) {
  switch (a) {
    case FfnActivation::SwiGLU: return silu(x);
    case FfnActivation::GEGLU: return gelu(x);
    case FfnActivation::ReGLU: return x > 0 ? x : 0.0;
    case FfnActivation::GLU: return 1.0 / (1.0 + std::exp(-x));
    case FfnActivation::MishGLU: return x * std::tanh(std::log1p(std::exp(x)));
  }
  return x;
}

std::vector<double> normalize_input(const Model& model, const float* in, bool normalized) {
  const int din = model.input_dim();
  std::vector<double> x(static_cast<size_t>(din));
  for (int k = 0; k < din; ++k)
    x[size_t(k)] = normalized ? double(in[k])
                              : (double(in[k]) - model.input_mean()[k]) / double(model.input_std()[k]);
  return x;
}

void denormalize_into(const Model& model, const std::vector<double>& y, double* out) {
  for (int k = 0; k < model.output_dim(); ++k)
    out[k] = y[size_t(k)] * model.target_std()[k] + model.target_mean()[k];
}

// Softmax-weighted sum of values over the given scores.
std::vector<double> attend(const std::vector<double>& scores, const std::vector<const double*>& v,
                           int width) {
  const double mx = *std::max_element(scores.begin(), scores.end());
  double sum = 0;
  std::vector<double> a(scores.size());
  for (size_t j = 0; j < scores.size(); ++j) sum += (a[j] = std::exp(scores[j] - mx));
  std::vector<double> o(size_t(width), 0.0);
  for (size_t j = 0; j < scores.size(); ++j)
    for (int k = 0; k < width; ++k) o[size_t(k)] += a[j] / sum * v[j][k];
  return o;
}

// The three gated contact terms of one frame, [G_e (d) | G_r (r) | G_Δ (out)], from its rows;
// all zero when the frame has none.
std::vector<double> contact_terms(const Model& model, const float* rows, const int32_t* link, int count) {
  const ModelConfig& c = model.config();
  const ContactEncoderConfig& k = c.contact;
  const int e = k.row_width, P = k.pooled_dim();
  std::vector<double> p(size_t(P), 0.0);
  if (count > 0) {
    Mat phi;
    for (int r = 0; r < count; ++r) {
      std::vector<double> x(size_t(kContactRowDim + k.link_embed));
      for (int f = 0; f < kContactRowDim; ++f)
        x[size_t(f)] = (double(rows[r * kContactRowDim + f]) - c.norm.contact_mean[size_t(f)]) / c.norm.contact_std[size_t(f)];
      for (int j = 0; j < k.link_embed; ++j)
        x[size_t(kContactRowDim + j)] = model.tensor("contact.link_embed")[link[r] * k.link_embed + j];
      std::vector<double> a = linear(x, model.tensor("contact.row.fc1.weight"), model.tensor("contact.row.fc1.bias"), k.row_hidden);
      for (double& v : a) v = silu(v);
      phi.push_back(linear(a, model.tensor("contact.row.fc2.weight"), model.tensor("contact.row.fc2.bias"), e));
    }
    const float* queries = model.tensor("contact.pool.queries");
    std::vector<const double*> values;
    for (const auto& v : phi) values.push_back(v.data());
    for (int m = 0; m < k.slots; ++m) {
      std::vector<double> scores;
      for (const auto& v : phi) {
        double s = 0;
        for (int i = 0; i < e; ++i) s += double(queries[m * e + i]) * v[size_t(i)];
        scores.push_back(s / std::sqrt(double(e)));
      }
      std::vector<double> slot = attend(scores, values, e);
      std::copy(slot.begin(), slot.end(), p.begin() + m * e);
    }
  }
  std::vector<double> terms;
  for (const auto& [name, width] : contact_gates(c)) {
    std::vector<double> v = linear(p, model.tensor(name + ".value.weight"), nullptr, width);
    std::vector<double> g = linear(p, model.tensor(name + ".gate.weight"), nullptr, width);
    for (int i = 0; i < width; ++i) terms.push_back(v[size_t(i)] / (1.0 + std::exp(-g[size_t(i)])));
  }
  return terms;
}

void flash_forward(const Model& model, const float* inputs, int T, bool normalized,
                   const ContactBatch* contacts, double* out) {
  const ModelConfig& c = model.config();
  const FlashConfig& f = c.flash;
  const int d = f.d_model, hd = f.head_dim, nq = f.n_heads, ff = f.ffn_hidden;
  const bool ln = f.norm == NormKind::LayerNorm;
  auto norm = [&](const std::vector<double>& h, const std::string& prefix) {
    return ln ? layer_norm(h, model.tensor(prefix + "norm.weight"), model.tensor(prefix + "norm.bias"))
              : rms_norm(h, model.tensor(prefix + "norm.weight"));
  };
  Mat h(static_cast<size_t>(T)), terms(static_cast<size_t>(T));
  const int K = c.contact.capacity, rh = f.readout_hidden;
  for (int t = 0; t < T; ++t) {
    h[size_t(t)] = linear(normalize_input(model, inputs + size_t(t) * c.input_dim, normalized),
                          model.tensor("embed.weight"), model.tensor("embed.bias"), d);
    if (!contacts) continue;
    terms[size_t(t)] = contact_terms(model, contacts->rows + size_t(t) * K * kContactRowDim,
                                     contacts->link + size_t(t) * K, contacts->count[t]);
    for (int i = 0; i < d; ++i) h[size_t(t)][size_t(i)] += terms[size_t(t)][size_t(i)];
  }
  for (int l = 0; l < f.n_layers; ++l) {
    const std::string p = "blocks." + std::to_string(l) + ".";
    const int S = f.spans[size_t(l)];
    const float* lag_bias = model.tensor(p + "attn.lag_bias");
    Mat z(static_cast<size_t>(T)), qkv(static_cast<size_t>(T));
    for (int t = 0; t < T; ++t) {
      z[size_t(t)] = norm(h[size_t(t)], p);
      qkv[size_t(t)] = linear(z[size_t(t)], model.tensor(p + "attn.qkv.weight"), nullptr, f.qkv_dim());
    }
    Mat next(static_cast<size_t>(T));
    for (int t = 0; t < T; ++t) {
      std::vector<double> o;
      for (int i = 0; i < nq; ++i) {
        std::vector<double> scores;
        std::vector<const double*> values;
        for (int j = std::max(0, t - S + 1); j <= t; ++j) {
          double s = 0;
          for (int k = 0; k < hd; ++k) s += qkv[size_t(t)][size_t(i * hd + k)] * qkv[size_t(j)][size_t(nq * hd + k)];
          scores.push_back(s / std::sqrt(double(hd)) + lag_bias[i * S + (t - j)]);
          values.push_back(qkv[size_t(j)].data() + (nq + 1) * hd);
        }
        std::vector<double> oi = attend(scores, values, hd);
        o.insert(o.end(), oi.begin(), oi.end());
      }
      std::vector<double> a = linear(o, model.tensor(p + "attn.out.weight"), nullptr, d);
      std::vector<double> gu = linear(z[size_t(t)], model.tensor(p + "ffn.gate_up.weight"), nullptr, 2 * ff);
      std::vector<double> g(static_cast<size_t>(ff));
      for (int j = 0; j < ff; ++j) g[size_t(j)] = activation(f.activation, gu[size_t(j)]) * gu[size_t(ff + j)];
      std::vector<double> fo = linear(g, model.tensor(p + "ffn.down.weight"), nullptr, d);
      next[size_t(t)] = h[size_t(t)];
      for (int k = 0; k < d; ++k) next[size_t(t)][size_t(k)] += a[size_t(k)] + fo[size_t(k)];
    }
    h = std::move(next);
  }
  for (int t = 0; t < T; ++t) {
    std::vector<double> r = linear(norm(h[size_t(t)], "readout."), model.tensor("readout.fc.weight"),
                                   model.tensor("readout.fc.bias"), f.readout_hidden);
    for (double& v : r) v = silu(v);
    if (contacts)
      for (int i = 0; i < rh; ++i) r[size_t(i)] += terms[size_t(t)][size_t(d + i)];
    std::vector<double> y = linear(r, model.tensor("head.weight"), model.tensor("head.bias"), c.output_dim);
    if (contacts)
      for (int i = 0; i < c.output_dim; ++i) y[size_t(i)] += terms[size_t(t)][size_t(d + rh + i)];
    denormalize_into(model, y, out + size_t(t) * c.output_dim);
  }
}

// NeRD's GPT over one window of n frames; returns the head output of the last position.
std::vector<double> nerd_window(const Model& model, const std::vector<std::vector<double>>& x) {
  const NerdConfig& nc = model.config().nerd;
  const int d = nc.d_model, nh = nc.n_heads, hd = nc.head_dim(), n = int(x.size());
  Mat h(static_cast<size_t>(n));
  const float* pos = model.tensor("pos_embed");
  for (int p = 0; p < n; ++p) {
    h[size_t(p)] = linear(x[size_t(p)], model.tensor("embed.weight"), nc.embed_bias ? model.tensor("embed.bias") : nullptr, d);
    for (int k = 0; k < d; ++k) h[size_t(p)][size_t(k)] += pos[p * d + k];
  }
  for (int l = 0; l < nc.n_layers; ++l) {
    const std::string pre = "blocks." + std::to_string(l) + ".";
    Mat qkv(static_cast<size_t>(n));
    for (int p = 0; p < n; ++p)
      qkv[size_t(p)] = linear(layer_norm(h[size_t(p)], model.tensor(pre + "ln1.weight"), nullptr),
                              model.tensor(pre + "attn.qkv.weight"), nullptr, 3 * d);
    for (int p = 0; p < n; ++p) {
      std::vector<double> o;
      for (int hh = 0; hh < nh; ++hh) {
        std::vector<double> scores;
        std::vector<const double*> values;
        for (int j = 0; j <= p; ++j) {
          double s = 0;
          for (int k = 0; k < hd; ++k) s += qkv[size_t(p)][size_t(hh * hd + k)] * qkv[size_t(j)][size_t(d + hh * hd + k)];
          scores.push_back(s / std::sqrt(double(hd)));
          values.push_back(qkv[size_t(j)].data() + 2 * d + hh * hd);
        }
        std::vector<double> oh = attend(scores, values, hd);
        o.insert(o.end(), oh.begin(), oh.end());
      }
      std::vector<double> a = linear(o, model.tensor(pre + "attn.out.weight"), nullptr, d);
      for (int k = 0; k < d; ++k) h[size_t(p)][size_t(k)] += a[size_t(k)];
    }
    for (int p = 0; p < n; ++p) {
      std::vector<double> m = linear(layer_norm(h[size_t(p)], model.tensor(pre + "ln2.weight"), nullptr),
                                     model.tensor(pre + "mlp.fc.weight"), nullptr, nc.mlp_hidden);
      for (double& v : m) v = gelu(v);
      std::vector<double> pr = linear(m, model.tensor(pre + "mlp.proj.weight"), nullptr, d);
      for (int k = 0; k < d; ++k) h[size_t(p)][size_t(k)] += pr[size_t(k)];
    }
  }
  std::vector<double> z = layer_norm(h[size_t(n - 1)], model.tensor("ln_f.weight"), nullptr);
  if (nc.lm_head) z = linear(z, model.tensor("lm_head.weight"), nullptr, d);
  std::vector<double> r = linear(z, model.tensor("head.fc1.weight"), model.tensor("head.fc1.bias"), nc.head_hidden);
  for (double& v : r) v = nc.head_relu ? std::max(v, 0.0) : gelu(v);
  return linear(r, model.tensor("head.fc2.weight"), model.tensor("head.fc2.bias"), model.output_dim());
}

}  // namespace

std::vector<double> reference_forward(const Model& model, const float* inputs, int T, bool normalized,
                                      const ContactBatch* contacts) {
  FN_CHECK(T >= 1, "reference_forward: the sequence needs at least one frame, got ", T);
  const ModelConfig& c = model.config();
  FN_CHECK(c.contact.enabled() == (contacts != nullptr), "reference_forward: contact rows must be given "
           "exactly when the model reads variable contacts");
  std::vector<double> out(size_t(T) * size_t(c.output_dim));
  if (c.arch == Arch::FlashNeRD) {
    flash_forward(model, inputs, T, normalized, contacts, out.data());
    return out;
  }
  const int W = c.nerd.window;
  for (int t = 0; t < T; ++t) {
    std::vector<std::vector<double>> x;
    for (int j = std::max(0, t - W + 1); j <= t; ++j)
      x.push_back(normalize_input(model, inputs + size_t(j) * c.input_dim, normalized));
    denormalize_into(model, nerd_window(model, x), out.data() + size_t(t) * c.output_dim);
  }
  return out;
}

}  // namespace flashnerd::engine
