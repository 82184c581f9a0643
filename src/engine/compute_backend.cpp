#include "engine/compute_backend.h"

#include "core/error.h"

namespace flashnerd::engine {

BackendContext::BackendContext(const Model& model, int max_batch)
    : model(model), max_batch(max_batch), frames(size_t(max_batch), 0), diverged(size_t(max_batch), 0) {}

const std::vector<const ComputeBackend*>& compute_backends() {
  static const std::vector<const ComputeBackend*> table{&cpu_backend(), &reference_backend()};
  return table;
}

const ComputeBackend& find_compute_backend(const std::string& name) {
  std::string names;
  for (const ComputeBackend* b : compute_backends()) {
    if (name == b->name()) return *b;
    names += str_cat(names.empty() ? "" : ", ", b->name());
  }
  throw Error(str_cat("engine context: no compute backend '", name, "'; this build has ", names));
}

}  // namespace flashnerd::engine
