// Checkpoints of the project's two long runs (model training and PPO), one format: a torch
// archive holding a meta JSON string (format tag, version, the settings that fix the run,
// where it stands) and named parts (modules, optimizers, byte blobs). The file is sealed
// (core/sealed_file.h), so flipped or truncated bytes are refused by name instead of
// loading as data, and written atomically, so a killed run resumes from its last checkpoint
// bit for bit. Restored modules are checked finite, parameter by parameter.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace flashnerd::train {

// The trainer's checkpoint: parts "model" and "optimizer".
constexpr const char* kCheckpointFormat = "flashnerd-checkpoint";
constexpr int kCheckpointVersion = 1;

class CheckpointWriter {
 public:
  void module(const std::string& name, const torch::nn::Module& m);
  void optimizer(const std::string& name, const torch::optim::Optimizer& o);
  void blob(const std::string& name, const std::string& bytes);
  // Writes the archive with `meta` (which holds "format" and "version") to `path`, sealed.
  void commit(const std::string& path, const nlohmann::json& meta);

 private:
  torch::serialize::OutputArchive archive_;
};

// A checkpoint read back (rank 0 reads the bytes and broadcasts them to every rank).
class CheckpointReader {
 public:
  // The payload of the sealed file at `path`; an older, unsealed archive is read as it is
  // only when `allow_unsealed`.
  static std::string read_bytes(const std::string& path, bool allow_unsealed);
  // Parses `bytes`; throws naming `path` unless they are an archive of `format` and `version`.
  CheckpointReader(std::string bytes, const std::string& path, const std::string& format, int version);

  const nlohmann::json& meta() const { return meta_; }
  // Each loads the named part; throws naming the checkpoint and the part on a mismatch, and
  // (module) naming the first parameter or buffer that is not finite.
  void module(const std::string& name, torch::nn::Module& m) const;
  void optimizer(const std::string& name, torch::optim::Optimizer& o) const;
  std::string blob(const std::string& name) const;

 private:
  // Reads the named part and hands it to `load`; a mismatch throws naming the checkpoint and part.
  void read_part(const std::string& name, const std::function<void(torch::serialize::InputArchive&)>& load) const;

  std::string bytes_;
  std::string path_;
  mutable torch::serialize::InputArchive archive_;  // read() is not const in libtorch
  nlohmann::json meta_;
};

// Throws naming `what` and the tensor when a parameter or buffer of `m` is NaN or infinite.
void check_module_finite(const torch::nn::Module& m, const std::string& what);

}  // namespace flashnerd::train
