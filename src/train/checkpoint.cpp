#include "train/checkpoint.h"

#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"

namespace flashnerd::train {

void save_checkpoint(const std::string& path, DynamicsModel& model, torch::optim::Adam& optimizer,
                     const nlohmann::json& meta) {
  torch::serialize::OutputArchive archive, model_archive, opt_archive;
  model.save(model_archive);
  optimizer.save(opt_archive);
  archive.write("model", model_archive);
  archive.write("optimizer", opt_archive);
  archive.write("meta", c10::IValue(meta.dump()));
  std::ostringstream os;
  archive.save_to(os);
  write_file_atomic(path, os.str());
}

Checkpoint parse_checkpoint(std::string bytes, const std::string& path) {
  Checkpoint ck;
  ck.bytes = std::move(bytes);
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(ck.bytes.data(), ck.bytes.size());
    c10::IValue meta;
    archive.read("meta", meta);
    ck.meta = nlohmann::json::parse(meta.toStringRef());
  } catch (const std::exception& e) {
    throw Error(str_cat(path, ": not a readable FlashNeRD checkpoint (truncated or corrupted?): ",
                        e.what()));
  }
  FN_CHECK(ck.meta.value("format", "") == kCheckpointFormat &&
               ck.meta.value("version", 0) == kCheckpointVersion,
           path, ": not a FlashNeRD checkpoint of version ", kCheckpointVersion);
  return ck;
}

void restore_checkpoint(const Checkpoint& ck, const std::string& path, DynamicsModel& model,
                        torch::optim::Adam& optimizer) {
  try {
    torch::serialize::InputArchive archive, model_archive, opt_archive;
    archive.load_from(ck.bytes.data(), ck.bytes.size());
    archive.read("model", model_archive);
    archive.read("optimizer", opt_archive);
    model.load(model_archive);
    optimizer.load(opt_archive);
  } catch (const c10::Error& e) {
    throw Error(str_cat(path, ": model or optimizer state does not match the model (",
                        e.what_without_backtrace(), ")"));
  }
}

}  // namespace flashnerd::train
