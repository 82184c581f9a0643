// Context: the public entry points of the engine (argument checks, then the context's compute
// backend, engine/compute_backend.h) and what every backend's context answers alike: frame
// counts, divergence flags, the history as bytes.
#include <algorithm>

#include "core/blob.h"
#include "core/error.h"
#include "engine/compute_backend.h"
#include "engine/engine_impl.h"

namespace flashnerd::engine {

namespace {

std::unique_ptr<BackendContext> make_backend_context(const Model& model, const ContextOptions& options) {
  FN_CHECK(options.max_batch >= 1, "engine context: max_batch must be at least 1, got ", options.max_batch);
  FN_CHECK(options.tile_rows >= 0, "engine context: tile_rows must be >= 0 (0 = automatic), got ",
           options.tile_rows);
  return find_compute_backend(options.backend).make_context(model, options);
}

}  // namespace

Context::Context(const Model& model, const ContextOptions& options)
    : state_(make_backend_context(model, options)),
      model_(&model),
      max_batch_(state_->max_batch),
      threads_(state_->threads()),
      tile_rows_(state_->tile_rows()),
      gemm_(options.gemm),
      frames_(state_->frames.data()),
      diverged_(state_->diverged.data()) {}

Context::~Context() = default;

std::string Context::kernel_summary() const { return state_->kernel_summary(); }

int Context::diverged_count(int batch) const {
  int n = 0;
  for (int i = 0; i < std::min(batch, max_batch_); ++i) n += diverged_[i];
  return n;
}

std::string Context::save_history() const {
  BlobWriter w;
  state_->save_cache(w);
  w.put(state_->frames);
  w.put(state_->diverged);
  return w.bytes();
}

void Context::load_history(const std::string& bytes) {
  BlobReader r(bytes, "engine context history");
  state_->load_cache(r);
  r.get(state_->frames);  // in place: frames_ and diverged_ stay valid
  r.get(state_->diverged);
  r.expect_end();
}

size_t Context::history_bytes_per_env(const ModelConfig& c) { return cache_floats_per_env(c) * sizeof(float); }

size_t Context::cache_bytes_per_env() const { return state_->cache_bytes_per_env(); }

size_t Context::activation_bytes_per_env() const { return state_->activation_bytes_per_env(); }

size_t Context::total_bytes() const { return state_->bytes(); }

namespace {

void check_call(const Model& model, const Context& ctx, int batch, const void* inputs,
                const char* what) {
  FN_CHECK(&model == &ctx.model(), "engine ", what, ": this context was created for another model ",
           "(", arch_name(ctx.model().arch()), ", input_dim ", ctx.model().input_dim(),
           "); create one Context per model");
  FN_CHECK(batch >= 1 && batch <= ctx.max_batch(), "engine ", what, ": batch ", batch,
           " is outside [1, ", ctx.max_batch(), "], the context's max_batch; create the Context with ",
           "max_batch >= ", batch);
  FN_CHECK(inputs != nullptr, "engine ", what, ": inputs is null");
}

// Contacts are given exactly when the model reads them; counts and links in range.
void check_contacts(const Model& model, int batch, const ContactBatch* contacts, const char* what) {
  const ContactEncoderConfig& k = model.config().contact;
  if (!k.enabled()) {
    FN_CHECK(contacts == nullptr, "engine ", what, ": contact rows given to a model without a contact encoder");
    return;
  }
  FN_CHECK(contacts != nullptr && contacts->rows && contacts->link && contacts->count, "engine ", what,
           ": this model reads variable contacts; give every environment's contact rows (ContactBatch)");
  for (int e = 0; e < batch; ++e) {
    const int n = contacts->count[e];
    FN_CHECK(n >= 0 && n <= k.capacity, "engine ", what, ": environment ", e, " has ", n,
             " contact rows; the model's capacity is ", k.capacity, " (keep the K smallest gaps, count the rest)");
    for (int r = 0; r < n; ++r) {
      const int link = contacts->link[size_t(e) * size_t(k.capacity) + size_t(r)];
      FN_CHECK(link >= 0 && link < k.link_count, "engine ", what, ": environment ", e, " row ", r,
               " names link ", link, "; the model knows links 0..", k.link_count - 1);
    }
  }
}

}  // namespace

void step(const Model& model, Context& ctx, int batch, const float* inputs, float* outputs) {
  step(model, ctx, batch, inputs, nullptr, outputs);
}

void step(const Model& model, Context& ctx, int batch, const float* inputs,
          const ContactBatch* contacts, float* outputs) {
  check_call(model, ctx, batch, inputs, "step");
  FN_CHECK(outputs != nullptr, "engine step: outputs is null");
  check_contacts(model, batch, contacts, "step");
  EngineInternals::state(ctx).run({batch, inputs, false, outputs, contacts});
}

void step_normalized(const Model& model, Context& ctx, int batch, const float* inputs, float* outputs) {
  check_call(model, ctx, batch, inputs, "step_normalized");
  FN_CHECK(outputs != nullptr, "engine step_normalized: outputs is null");
  check_contacts(model, batch, nullptr, "step_normalized");
  EngineInternals::state(ctx).run({batch, inputs, true, outputs});
}

void prime(const Model& model, Context& ctx, int batch, int frames, const float* inputs,
           float* outputs) {
  prime(model, ctx, batch, frames, inputs, nullptr, outputs);
}

void prime(const Model& model, Context& ctx, int batch, int frames, const float* inputs,
           const ContactBatch* contacts, float* outputs) {
  check_call(model, ctx, batch, inputs, "prime");
  FN_CHECK(frames >= 0, "engine prime: frames must be >= 0, got ", frames);
  const size_t stride = size_t(batch) * size_t(model.input_dim());
  for (int f = 0; f < frames; ++f) {
    const ContactBatch* frame_contacts = contacts ? contacts + f : nullptr;
    check_contacts(model, batch, frame_contacts, "prime");
    EngineInternals::state(ctx).run(
        {batch, inputs + size_t(f) * stride, false, f == frames - 1 ? outputs : nullptr, frame_contacts});
  }
}

void reset_env(Context& ctx, int env) {
  FN_CHECK(env >= 0 && env < ctx.max_batch(), "engine reset_env: environment ", env,
           " is outside [0, ", ctx.max_batch(), ")");
  BackendContext& st = EngineInternals::state(ctx);
  st.frames[size_t(env)] = 0;
  st.diverged[size_t(env)] = 0;
}

void copy_env(Context& ctx, int src, int dst) { copy_env(ctx, src, ctx, dst); }

void copy_env(const Context& from, int src, Context& to, int dst) {
  FN_CHECK(src >= 0 && src < from.max_batch() && dst >= 0 && dst < to.max_batch(), "engine copy_env: environments ",
           src, " (of ", from.max_batch(), ") -> ", dst, " (of ", to.max_batch(), ") out of range");
  FN_CHECK(&from.model() == &to.model(), "engine copy_env: the two contexts step different models");
  const BackendContext& a = EngineInternals::state(from);
  BackendContext& b = EngineInternals::state(to);
  FN_CHECK(std::string(a.backend_name()) == b.backend_name(), "engine copy_env: the two contexts run different ",
           "backends (", a.backend_name(), ", ", b.backend_name(), ")");
  if (&from == &to && src == dst) return;
  a.copy_cache(src, b, dst);
  b.frames[size_t(dst)] = a.frames[size_t(src)];
  b.diverged[size_t(dst)] = a.diverged[size_t(src)];
}

void reset_all(Context& ctx) {
  for (int e = 0; e < ctx.max_batch(); ++e) reset_env(ctx, e);
}

}  // namespace flashnerd::engine
