// Files whose corruption is found before use (training and PPO checkpoints): the payload is
// written after a one-line seal "FNSEAL1 <fnv1a64 of the payload, 16 hex> <payload bytes>\n",
// atomically; reading checks the length and the hash and names the file when they differ,
// instead of loading flipped bytes as data.
#pragma once

#include <string>

namespace flashnerd {

void write_sealed_file_atomic(const std::string& path, const std::string& payload);

// What to do with a file of the right kind written before files were sealed: nothing can
// tell its flipped bits from data, so it is read only when the user says so.
struct UnsealedFiles {
  std::string magic;             // how such a file starts; empty: no older format exists
  bool allowed = false;          // read it whole (the user passed --allow-unsealed)
};

// The payload of a sealed file. A file that starts with `unsealed.magic` is an older,
// unsealed one of the same kind: returned whole when `unsealed.allowed`, else refused with
// the flag that allows it; anything else throws flashnerd::Error naming `path` and what differs.
std::string read_sealed_file(const std::string& path, const UnsealedFiles& unsealed = {});
// The same on a file's bytes; `origin` names it in errors.
std::string unseal(std::string bytes, const std::string& origin, const UnsealedFiles& unsealed = {});

}  // namespace flashnerd
