// FNV-1a, 64 bit: the project's one content hash (MJCF identity, dataset fingerprints,
// checkpoint seals). Not cryptographic: it detects changed and corrupted bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace flashnerd {

class Fnv1a {
 public:
  static constexpr uint64_t kOffset = 0xcbf29ce484222325ull;  // FNV-1a's offset basis
  explicit Fnv1a(uint64_t offset = kOffset) : h_(offset) {}

  void bytes(const void* p, size_t n) {
    const unsigned char* c = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) {
      h_ ^= c[i];
      h_ *= 0x100000001b3ull;
    }
  }
  uint64_t value() const { return h_; }
  std::string hex() const {  // 16 lowercase hex digits
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h_));
    return buf;
  }

 private:
  uint64_t h_;
};

// The MJCF identity every dataset, model and policy records (mjcf_hash). Its offset basis is
// 1469598103934665603, not FNV's: the value it has always had, kept so that recorded hashes
// stay valid.
inline std::string mjcf_hash_hex(const std::string& bytes) {
  Fnv1a f(1469598103934665603ull);
  f.bytes(bytes.data(), bytes.size());
  return f.hex();
}

}  // namespace flashnerd
