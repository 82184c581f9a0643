#include "train/checkpoint.h"

#include <sstream>

#include "core/error.h"
#include "core/sealed_file.h"

namespace flashnerd::train {

void CheckpointWriter::module(const std::string& name, const torch::nn::Module& m) {
  torch::serialize::OutputArchive part;
  m.save(part);
  archive_.write(name, part);
}

void CheckpointWriter::optimizer(const std::string& name, const torch::optim::Optimizer& o) {
  torch::serialize::OutputArchive part;
  o.save(part);
  archive_.write(name, part);
}

void CheckpointWriter::blob(const std::string& name, const std::string& bytes) {
  archive_.write(name, torch::from_blob(const_cast<char*>(bytes.data()), {int64_t(bytes.size())}, torch::kUInt8).clone());
}

void CheckpointWriter::commit(const std::string& path, const nlohmann::json& meta) {
  archive_.write("meta", c10::IValue(meta.dump()));
  std::ostringstream os;
  archive_.save_to(os);
  write_sealed_file_atomic(path, os.str());
}

std::string CheckpointReader::read_bytes(const std::string& path, bool allow_unsealed) {
  return read_sealed_file(path, {std::string("PK\x03\x04", 4), allow_unsealed});  // a torch archive is a zip file
}

CheckpointReader::CheckpointReader(std::string bytes, const std::string& path, const std::string& format, int version)
    : bytes_(std::move(bytes)), path_(path) {
  try {  // parsed once; every part is read from this archive
    archive_.load_from(bytes_.data(), bytes_.size());
    c10::IValue meta;
    archive_.read("meta", meta);
    meta_ = nlohmann::json::parse(meta.toStringRef());
  } catch (const std::exception& e) {
    throw Error(str_cat(path, ": not a readable FlashNeRD checkpoint (truncated or corrupted?): ", e.what()));
  }
  FN_CHECK(meta_.value("format", "") == format && meta_.value("version", 0) == version, path, ": not a ", format,
           " of version ", version, " (it is ", meta_.value("format", "?"), " version ", meta_.value("version", 0), ")");
}

void CheckpointReader::read_part(const std::string& name,
                                 const std::function<void(torch::serialize::InputArchive&)>& load) const {
  try {
    torch::serialize::InputArchive part;
    archive_.read(name, part);
    load(part);
  } catch (const c10::Error& e) {
    throw Error(str_cat(path_, ": its ", name, " does not match this run's (", e.what_without_backtrace(), ")"));
  }
}

void CheckpointReader::module(const std::string& name, torch::nn::Module& m) const {
  read_part(name, [&](torch::serialize::InputArchive& part) { m.load(part); });
  check_module_finite(m, str_cat(path_, " (", name, ")"));
}

void CheckpointReader::optimizer(const std::string& name, torch::optim::Optimizer& o) const {
  read_part(name, [&](torch::serialize::InputArchive& part) { o.load(part); });
}

std::string CheckpointReader::blob(const std::string& name) const {
  try {
    torch::Tensor t;
    archive_.read(name, t);
    return std::string(reinterpret_cast<const char*>(t.data_ptr<uint8_t>()), size_t(t.numel()));
  } catch (const c10::Error& e) {
    throw Error(str_cat(path_, ": no readable ", name, " (", e.what_without_backtrace(), ")"));
  }
}

void check_module_finite(const torch::nn::Module& m, const std::string& what) {
  torch::NoGradGuard no_grad;
  for (const auto& p : m.named_parameters())
    FN_CHECK(torch::isfinite(p.value()).all().item<bool>(), what, ": parameter ", p.key(),
             " holds NaN or infinite values");
  for (const auto& b : m.named_buffers())
    FN_CHECK(!b.value().is_floating_point() || torch::isfinite(b.value()).all().item<bool>(), what, ": buffer ",
             b.key(), " holds NaN or infinite values");
}

}  // namespace flashnerd::train
