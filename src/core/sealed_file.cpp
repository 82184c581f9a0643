#include "core/sealed_file.h"

#include <cstdio>
#include <cstring>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/fnv1a.h"
#include "core/option_error.h"

namespace flashnerd {

namespace {
constexpr const char* kSealTag = "FNSEAL1";
}

void write_sealed_file_atomic(const std::string& path, const std::string& payload) {
  Fnv1a h;
  h.bytes(payload.data(), payload.size());
  write_file_atomic(path, str_cat(kSealTag, " ", h.hex(), " ", payload.size(), "\n") + payload);
}

std::string read_sealed_file(const std::string& path, const UnsealedFiles& unsealed) {
  return unseal(read_file(path), path, unsealed);
}

std::string unseal(std::string bytes, const std::string& path, const UnsealedFiles& unsealed) {
  if (!unsealed.magic.empty() && bytes.compare(0, unsealed.magic.size(), unsealed.magic) == 0) {
    FN_CHECK_OPTION(unsealed.allowed, "", path, " was written by an older flashnerd, before files were sealed: "
                    "damage to it cannot be detected; pass ", option_ref("allow_unsealed"),
                    " to read it anyway (weights are still checked finite), or start the run again");
    return bytes;
  }
  const size_t eol = bytes.find('\n');
  char tag[8] = {}, hex[17] = {};
  unsigned long long size = 0;
  FN_CHECK(eol != std::string::npos && eol < 64 &&
               std::sscanf(bytes.substr(0, eol).c_str(), "%7s %16s %llu", tag, hex, &size) == 3 &&
               std::strcmp(tag, kSealTag) == 0,
           path, ": not a sealed FlashNeRD file (its first line is damaged, or it was not written by flashnerd)");
  std::string payload = bytes.substr(eol + 1);
  FN_CHECK(payload.size() == size, path, ": truncated or extended: the seal says ", size, " bytes, the file holds ",
           payload.size(), "; the file is damaged (restore it, or start the run again)");
  Fnv1a h;
  h.bytes(payload.data(), payload.size());
  FN_CHECK(h.hex() == hex, path, ": checksum mismatch (sealed ", hex, ", now ", h.hex(),
           "): the file is damaged (restore it, or start the run again)");
  return payload;
}

}  // namespace flashnerd
