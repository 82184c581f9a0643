#include "core/safetensors.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/json_int.h"

namespace flashnerd {

namespace {
std::string shape_string(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}
int64_t product(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}
}  // namespace

int64_t TensorView::numel() const { return product(shape); }

std::string safetensors_serialize(const std::vector<NamedTensor>& tensors,
                                  const std::map<std::string, std::string>& metadata) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  int64_t offset = 0;
  for (const auto& t : tensors) {
    int64_t bytes = product(t.shape) * int64_t(sizeof(float));
    header[t.name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string h = header.dump();
  while ((8 + h.size()) % 64 != 0) h.push_back(' ');  // data starts 64-byte aligned
  std::string out;
  out.reserve(8 + h.size() + size_t(offset));
  uint64_t n = h.size();
  for (int i = 0; i < 8; ++i) out.push_back(char((n >> (8 * i)) & 0xff));
  out += h;
  for (const auto& t : tensors) {
    out.append(reinterpret_cast<const char*>(t.data), size_t(product(t.shape)) * sizeof(float));
  }
  return out;
}

SafetensorsFile SafetensorsFile::parse(const std::string& bytes, const std::string& origin) {
  SafetensorsFile f;
  f.origin_ = origin;
  FN_CHECK(bytes.size() >= 8, origin, ": file is ", bytes.size(),
           " bytes, too short for a safetensors header (truncated?)");
  uint64_t header_len = 0;
  for (int i = 0; i < 8; ++i) header_len |= uint64_t(uint8_t(bytes[size_t(i)])) << (8 * i);
  FN_CHECK(header_len <= bytes.size() - 8, origin, ": header length ", header_len,
           " exceeds the file size ", bytes.size(), " (truncated or not a safetensors file)");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.substr(8, header_len));
  } catch (const std::exception& e) {
    throw Error(str_cat(origin, ": header is not valid JSON (corrupted file?): ", e.what()));
  }
  FN_CHECK(header.is_object(), origin, ": header must be a JSON object");
  const int64_t data_bytes = int64_t(bytes.size() - 8 - header_len);
  FN_CHECK(data_bytes % 4 == 0, origin, ": data section of ", data_bytes,
           " bytes is not a whole number of float32 values (truncated?)");
  f.block_floats_ = data_bytes / 4;
  size_t alloc = size_t((data_bytes + 63) / 64 * 64);
  f.block_.reset(static_cast<float*>(std::aligned_alloc(64, alloc ? alloc : 64)), std::free);
  if (data_bytes) std::memcpy(f.block_.get(), bytes.data() + 8 + header_len, size_t(data_bytes));
  std::vector<std::pair<int64_t, int64_t>> spans;  // (begin, end) in bytes, to find overlaps
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const auto& e = it.value();
    std::vector<int64_t> shape, offs;
    try {
      if (name == "__metadata__") {
        for (auto m = e.begin(); m != e.end(); ++m) f.metadata_[m.key()] = m->get<std::string>();
        continue;
      }
      FN_CHECK(e.is_object(), origin, ": header entry '", name, "' must be an object with dtype, shape, data_offsets");
      FN_CHECK(e.value("dtype", "") == "F32", origin, ": tensor '", name, "' has dtype ", e.value("dtype", "?"),
               "; FlashNeRD stores float32 (F32) only");
      // json_int_list: a float or huge value must not be cast (fuzz)
      const std::string entry = str_cat(origin, ": header entry '", name, "' is malformed: field ");
      shape = json_int_list<int64_t>(e.at("shape"), entry + "'shape'");
      offs = json_int_list<int64_t>(e.at("data_offsets"), entry + "'data_offsets'");
    } catch (const nlohmann::json::exception& x) {
      throw Error(str_cat(origin, ": header entry '", name, "' is malformed (", x.what(),
                          "); it needs \"shape\": [ints] and \"data_offsets\": [begin, end]"));
    }
    double numel = 1;  // in double: a corrupt shape must not overflow the byte count
    for (int64_t d : shape) numel *= double(d);
    FN_CHECK(std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d >= 0; }) && numel * 4 <= double(data_bytes),
             origin, ": tensor '", name, "' has shape ", shape_string(shape), ", more than the file's ", data_bytes,
             " data bytes hold (corrupted header?)");
    FN_CHECK(offs.size() == 2 && offs[0] >= 0 && offs[1] >= offs[0] && offs[1] <= data_bytes,
             origin, ": tensor '", name, "' has data offsets outside the file's ", data_bytes,
             " data bytes (truncated file?)");
    FN_CHECK(offs[0] % 4 == 0, origin, ": tensor '", name, "' starts at data byte ", offs[0],
             ", not a multiple of 4: float32 tensors must be 4-byte aligned (the file was written wrongly)");
    FN_CHECK(offs[1] - offs[0] == product(shape) * 4, origin, ": tensor '", name, "' spans ", offs[1] - offs[0],
             " bytes but its shape ", shape_string(shape), " needs ", product(shape) * 4);
    f.tensors_[name] = Entry{offs[0] / 4, shape};
    spans.emplace_back(offs[0], offs[1]);
  }
  std::sort(spans.begin(), spans.end());
  int64_t covered = 0;  // end of the bytes claimed so far
  for (const auto& [begin, end] : spans) {
    FN_CHECK(begin >= covered || begin == end, origin, ": two tensors share data bytes ", begin, "..",
             std::min(end, covered), " (overlapping data_offsets); each tensor needs its own bytes: the file is corrupted");
    covered = std::max(covered, end);
  }
  return f;
}

SafetensorsFile SafetensorsFile::load(const std::string& path) { return parse(read_file(path), path); }

TensorView SafetensorsFile::view(const std::string& name) const {
  auto it = tensors_.find(name);
  FN_CHECK(it != tensors_.end(), origin_, ": tensor '", name,
           "' is missing; the file does not match its config.json");
  return TensorView{block_.get() + it->second.offset_floats, it->second.shape};
}

TensorView SafetensorsFile::get(const std::string& name, const std::vector<int64_t>& expected) const {
  TensorView v = view(name);
  FN_CHECK(v.shape == expected, origin_, ": tensor '", name, "' has shape ",
           shape_string(v.shape), " but the config expects ", shape_string(expected));
  return v;
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> n;
  for (const auto& kv : tensors_) n.push_back(kv.first);
  return n;
}

}  // namespace flashnerd
