// The engine's compute backends, as ggml's backends are: a backend makes the part of a
// Context that computes and holds the histories (a BackendContext); the public entry points
// (engine.h) check every argument and then call it. The CPU backend (engine/cpu/: the
// kernels, tiles and threads) is the default; the reference backend (reference_backend.cpp)
// steps the reference forward pass of reference.h over each history, slowly, to check the
// others. A new backend implements these two classes and joins the table in
// compute_backend.cpp; ContextOptions::backend names it. Internal: not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/blob.h"
#include "engine/engine.h"

namespace flashnerd::engine {

// The job of one step/prime call: one frame of environments [0, batch).
struct Job {
  int batch = 0;
  const float* inputs = nullptr;           // (batch, input_dim)
  bool normalized = false;                 // inputs already x̂
  float* outputs = nullptr;                // (batch, output_dim) or nullptr
  const ContactBatch* contacts = nullptr;  // when the model reads variable contacts
};

// A backend's part of a Context: reserved for max_batch environments when it is made; run()
// never allocates. Every backend keeps the frame counts and divergence flags here, in the
// same form, so the Context's queries read them inline.
class BackendContext {
 public:
  BackendContext(const Model& model, int max_batch);
  virtual ~BackendContext() = default;
  BackendContext(const BackendContext&) = delete;
  BackendContext& operator=(const BackendContext&) = delete;

  // One frame of every environment of the job: appended to its history, the prediction after
  // it written to job.outputs (when given); a non-finite input or output sets the
  // environment's diverged flag; its frame count grows by one.
  virtual void run(const Job& job) = 0;
  // Environment dst of `to` (a context of the same backend and model) takes a copy of
  // environment src's cache (frames and flags are the Context's to copy).
  virtual void copy_cache(int src, BackendContext& to, int dst) const = 0;
  // The histories' caches as bytes, and back (frames and flags are the Context's to write).
  virtual void save_cache(BlobWriter& w) const = 0;
  virtual void load_cache(BlobReader& r) = 0;

  virtual const char* backend_name() const = 0;
  virtual std::string kernel_summary() const = 0;
  virtual int threads() const = 0;
  virtual int tile_rows() const = 0;  // rows per unit of work (GEMM rows of a CPU tile)
  virtual size_t cache_bytes_per_env() const = 0;
  virtual size_t activation_bytes_per_env() const = 0;
  virtual size_t bytes() const = 0;  // everything held, the frame counts and flags included

  const Model& model;
  const int max_batch;
  std::vector<int64_t> frames;    // (max_batch) frames since reset
  std::vector<uint8_t> diverged;  // (max_batch)
};

class ComputeBackend {
 public:
  virtual ~ComputeBackend() = default;
  virtual const char* name() const = 0;
  // A context for `model` with these options; throws naming what the backend cannot do.
  virtual std::unique_ptr<BackendContext> make_context(const Model& model, const ContextOptions& options) const = 0;
};

// The backends this build has (the CPU backend first), and the one of a name (throws naming
// them all).
const std::vector<const ComputeBackend*>& compute_backends();
const ComputeBackend& find_compute_backend(const std::string& name);

const ComputeBackend& cpu_backend();
const ComputeBackend& reference_backend();

}  // namespace flashnerd::engine
