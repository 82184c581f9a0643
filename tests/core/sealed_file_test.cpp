#include "core/sealed_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/fnv1a.h"
#include "core/option_error.h"

namespace flashnerd {
namespace {

TEST(SealedFile, RoundTripsAndRefusesEveryDamagedByte) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("fn_sealed_" + std::to_string(::getpid()))).string();
  const std::string payload = std::string("PK\x03\x04", 4) + std::string(200, 'x') + "tail";
  write_sealed_file_atomic(path, payload);
  EXPECT_EQ(read_sealed_file(path), payload);
  const std::string sealed = read_file(path);
  for (size_t i = 0; i < sealed.size(); ++i) {
    std::string damaged = sealed;
    damaged[i] = char(damaged[i] ^ 0x20);
    EXPECT_THROW(unseal(damaged, "f", {std::string("PK\x03\x04", 4), true}), Error) << "byte " << i;
  }
  EXPECT_THROW(unseal(sealed.substr(0, sealed.size() - 1), "f"), Error);
  EXPECT_THROW(unseal(sealed + "x", "f"), Error);
  EXPECT_EQ(unseal(payload, "f", {std::string("PK\x03\x04", 4), true}), payload);  // an older, unsealed file
  EXPECT_THROW(unseal(payload, "f"), Error);
  try {  // read only when the user allows it: its damage cannot be seen
    unseal(payload, "f", {std::string("PK\x03\x04", 4), false});
    ADD_FAILURE() << "an unsealed file was read without allow_unsealed";
  } catch (const OptionError& e) {  // names the option that allows it; the CLI shows it as --allow-unsealed
    EXPECT_NE(std::string(e.what()).find("pass allow_unsealed to read it anyway"), std::string::npos) << e.what();
    EXPECT_NE(e.message([](const std::string& f) { return "<" + f + ">"; }).find("pass <allow_unsealed>"),
              std::string::npos);
  }
  std::remove(path.c_str());
}

TEST(Fnv1a, MatchesTheReferenceVectors) {
  Fnv1a empty;
  EXPECT_EQ(empty.hex(), "cbf29ce484222325");
  Fnv1a a;
  a.bytes("a", 1);
  EXPECT_EQ(a.hex(), "af63dc4c8601ec8c");
  // the MJCF identity keeps the offset it has always had, so recorded hashes stay valid
  EXPECT_EQ(mjcf_hash_hex(""), "14650fb0739d0383");
}

}  // namespace
}  // namespace flashnerd
