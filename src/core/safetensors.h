// safetensors files (8-byte little-endian header length, JSON header, raw little-endian
// tensors), float32 only. The reader loads the whole data section into one 64-byte-aligned
// block and hands out named views; every offset and shape is checked against the file size
// and, by the model loader, against the config.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace flashnerd {

struct TensorView {
  const float* data = nullptr;
  std::vector<int64_t> shape;
  int64_t numel() const;
};

struct NamedTensor {
  std::string name;
  std::vector<int64_t> shape;
  const float* data;  // numel floats, not owned
};

// Serializes tensors (in the given order) with optional string metadata.
std::string safetensors_serialize(const std::vector<NamedTensor>& tensors,
                                  const std::map<std::string, std::string>& metadata = {});

class SafetensorsFile {
 public:
  // Parses `bytes` (the whole file); `origin` names the file in error messages.
  static SafetensorsFile parse(const std::string& bytes, const std::string& origin);
  static SafetensorsFile load(const std::string& path);

  bool has(const std::string& name) const { return tensors_.count(name) != 0; }
  // Throws flashnerd::Error naming the tensor when it is missing or has another shape.
  TensorView get(const std::string& name, const std::vector<int64_t>& expected_shape) const;
  // The tensor with its stored shape, unchecked against a config; throws when it is missing.
  TensorView view(const std::string& name) const;
  std::vector<std::string> names() const;
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  // The aligned block holding every tensor.
  const float* block() const { return block_.get(); }
  int64_t block_floats() const { return block_floats_; }

 private:
  struct Entry {
    int64_t offset_floats;
    std::vector<int64_t> shape;
  };
  std::string origin_;
  std::map<std::string, Entry> tensors_;
  std::map<std::string, std::string> metadata_;
  std::shared_ptr<float> block_;
  int64_t block_floats_ = 0;
};

}  // namespace flashnerd
