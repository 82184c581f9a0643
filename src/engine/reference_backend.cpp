// The reference compute backend: every step runs reference_forward (reference.h, double
// arithmetic from the stored tensors) over the environment's last R frames, where R covers
// everything the newest prediction can see (FlashNeRD: Σ(S_l − 1) + 1 frames through the
// banded blocks; NeRD: its window), so it predicts what a streaming backend predicts, to
// rounding. It is slow, and reference_forward allocates inside a step: a yardstick for other
// backends, not a backend to roll out with.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "engine/compute_backend.h"
#include "engine/reference.h"

namespace flashnerd::engine {

namespace {

int receptive_frames(const ModelConfig& c) {
  if (c.arch == Arch::NeRD) return c.nerd.window;
  int frames = 1;
  for (int span : c.flash.spans) frames += span - 1;
  return frames;
}

class ReferenceContext : public BackendContext {
 public:
  ReferenceContext(const Model& model, int max_batch)
      : BackendContext(model, max_batch), window_(receptive_frames(model.config())),
        din_(model.input_dim()), k_(model.config().contact.enabled() ? model.config().contact.capacity : 0),
        frames_in_(size_t(max_batch) * size_t(window_) * size_t(din_)),
        rows_(size_t(max_batch) * size_t(window_) * size_t(k_) * kContactRowDim),
        links_(size_t(max_batch) * size_t(window_) * size_t(k_)), counts_(size_t(max_batch) * size_t(window_)),
        seq_(size_t(window_) * size_t(din_)), seq_rows_(size_t(window_) * size_t(k_) * kContactRowDim),
        seq_links_(size_t(window_) * size_t(k_)), seq_counts_(size_t(window_)) {}

  void run(const Job& job) override {
    for (int e = 0; e < job.batch; ++e) step_env(job, e);
  }

  void copy_cache(int src, BackendContext& to_context, int dst) const override {
    auto& to = dynamic_cast<ReferenceContext&>(to_context);  // the Context checked: same backend and model
    auto copy = [&](const auto& from, auto& into, size_t per_env) {
      std::copy_n(from.begin() + std::ptrdiff_t(size_t(src) * per_env), per_env,
                  into.begin() + std::ptrdiff_t(size_t(dst) * per_env));
    };
    copy(frames_in_, to.frames_in_, size_t(window_) * size_t(din_));
    copy(rows_, to.rows_, size_t(window_) * size_t(k_) * kContactRowDim);
    copy(links_, to.links_, size_t(window_) * size_t(k_));
    copy(counts_, to.counts_, size_t(window_));
  }

  void save_cache(BlobWriter& w) const override {
    w.put(frames_in_);
    w.put(rows_);
    w.put(links_);
    w.put(counts_);
  }
  void load_cache(BlobReader& r) override {
    r.get(frames_in_);
    r.get(rows_);
    r.get(links_);
    r.get(counts_);
  }

  const char* backend_name() const override { return "reference"; }
  std::string kernel_summary() const override {
    return str_cat("reference: double, the last ", window_, " frames of each history re-encoded every step");
  }
  int threads() const override { return 1; }
  int tile_rows() const override { return 1; }
  size_t cache_bytes_per_env() const override {
    return size_t(window_) * (size_t(din_) * sizeof(float) +
                              size_t(k_) * (kContactRowDim * sizeof(float) + sizeof(int32_t)) + sizeof(int32_t));
  }
  size_t activation_bytes_per_env() const override { return 0; }  // reference_forward holds its own
  size_t bytes() const override {
    // the rings, frame counts and flags, and the seq_ buffers (one environment's ring in order)
    return size_t(max_batch) * (cache_bytes_per_env() + sizeof(int64_t) + 1) + cache_bytes_per_env();
  }

 private:
  // Appends job's frame of environment e to its ring, then predicts from the ring's frames in
  // order (the oldest first).
  void step_env(const Job& job, int e) {
    const int64_t t = frames[size_t(e)];
    const size_t slot = size_t(e) * size_t(window_) + size_t(t % window_);
    float* x = frames_in_.data() + slot * size_t(din_);
    const float* in = job.inputs + size_t(e) * size_t(din_);
    bool finite = true;
    for (int i = 0; i < din_; ++i) {
      x[i] = job.normalized ? in[i] * model.input_std()[i] + model.input_mean()[i] : in[i];
      finite = finite && std::isfinite(in[i]);
    }
    if (k_ > 0) {
      const ContactBatch& c = *job.contacts;
      const size_t n = size_t(k_) * kContactRowDim;
      std::memcpy(rows_.data() + slot * n, c.rows + size_t(e) * n, n * sizeof(float));
      std::memcpy(links_.data() + slot * size_t(k_), c.link + size_t(e) * size_t(k_), size_t(k_) * sizeof(int32_t));
      counts_[slot] = c.count[e];
    }
    if (!finite) diverged[size_t(e)] = 1;
    frames[size_t(e)] = t + 1;
    if (job.outputs == nullptr) return;
    const int T = int(std::min<int64_t>(t + 1, window_));
    for (int p = 0; p < T; ++p) {  // frame t − T + 1 + p, in order, into the seq_ buffers
      const size_t s = size_t(e) * size_t(window_) + size_t((t - T + 1 + p) % window_);
      std::copy_n(frames_in_.data() + s * size_t(din_), din_, seq_.data() + size_t(p) * size_t(din_));
      const size_t n = size_t(k_) * kContactRowDim;
      std::copy_n(rows_.data() + s * n, n, seq_rows_.data() + size_t(p) * n);
      std::copy_n(links_.data() + s * size_t(k_), k_, seq_links_.data() + size_t(p) * size_t(k_));
      seq_counts_[size_t(p)] = counts_[s];
    }
    const ContactBatch contacts{seq_rows_.data(), seq_links_.data(), seq_counts_.data()};
    const std::vector<double> y = reference_forward(model, seq_.data(), T, false, k_ > 0 ? &contacts : nullptr);
    const int dout = model.output_dim();
    float* out = job.outputs + size_t(e) * size_t(dout);
    for (int i = 0; i < dout; ++i) {
      out[i] = float(y[size_t(T - 1) * size_t(dout) + size_t(i)]);
      if (!std::isfinite(out[i])) diverged[size_t(e)] = 1;
    }
  }

  const int window_, din_, k_;
  // rings of `window_` frames per environment, slot = frame mod window_
  std::vector<float> frames_in_;  // (max_batch, window, input_dim) raw
  std::vector<float> rows_;       // (max_batch, window, K, kContactRowDim)
  std::vector<int32_t> links_;    // (max_batch, window, K)
  std::vector<int32_t> counts_;   // (max_batch, window)
  // one history in order, as reference_forward reads it: (window, ...) each
  std::vector<float> seq_, seq_rows_;
  std::vector<int32_t> seq_links_, seq_counts_;
};

class ReferenceBackend : public ComputeBackend {
 public:
  const char* name() const override { return "reference"; }
  std::unique_ptr<BackendContext> make_context(const Model& model, const ContextOptions& options) const override {
    return std::make_unique<ReferenceContext>(model, options.max_batch);
  }
};

}  // namespace

const ComputeBackend& reference_backend() {
  static const ReferenceBackend backend;
  return backend;
}

}  // namespace flashnerd::engine
