// Files whose corruption is found before use (training and PPO checkpoints): the payload is
// written after a one-line seal "FNSEAL1 <fnv1a64 of the payload, 16 hex> <payload bytes>\n",
// atomically; reading checks the length and the hash and names the file when they differ,
// instead of loading flipped bytes as data.
#pragma once

#include <string>

namespace flashnerd {

void write_sealed_file_atomic(const std::string& path, const std::string& payload);

// The payload of a sealed file. A file that starts with `unsealed_magic` (non-empty) is an
// older, unsealed one of the same kind and is returned whole; anything else throws
// flashnerd::Error naming `path` and what differs.
std::string read_sealed_file(const std::string& path, const std::string& unsealed_magic = "");
// The same on a file's bytes; `origin` names it in errors.
std::string unseal(std::string bytes, const std::string& origin, const std::string& unsealed_magic = "");

}  // namespace flashnerd
