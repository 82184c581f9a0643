#include "core/ensemble_manifest.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace flashnerd {
namespace {

namespace fs = std::filesystem;

// An ensemble directory with `count` empty member folders (the manifest is what is judged).
fs::path ensemble_with_members(const char* name, int count) {
  const fs::path d = fs::temp_directory_path() / (std::string("fn_ensemble_") + name + std::to_string(::getpid()));
  fs::remove_all(d);
  for (int i = 0; i < count; ++i) fs::create_directories(d / ("member_" + std::to_string(i)));
  return d;
}

void write_manifest(const fs::path& d, const std::string& members) {
  std::ofstream(d / kEnsembleManifest) << R"({"format": "flashnerd-ensemble", "version": 1, "members": )" << members
                                       << "}";
}

std::string refusal(const fs::path& d) {
  try {
    model_member_dirs(d.string());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(EnsembleManifest, ListsItsMembers) {
  const fs::path d = ensemble_with_members("ok", 2);
  write_manifest(d, R"(["member_0", "member_1"])");
  EXPECT_EQ(model_member_dirs(d.string()).size(), 2u);
  fs::remove_all(d);
}

TEST(EnsembleManifest, RefusesAMemberListedTwice) {
  const fs::path d = ensemble_with_members("twice", 2);
  write_manifest(d, R"(["member_0", "member_1", "./member_0/"])");
  EXPECT_NE(refusal(d).find("member ./member_0/ is listed twice"), std::string::npos) << refusal(d);
  fs::remove_all(d);
}

// A member that is a symlink loop is a flashnerd error naming it, not a raw filesystem_error.
TEST(EnsembleManifest, RefusesAMemberThatIsASymlinkLoop) {
  const fs::path d = ensemble_with_members("loop", 1);
  fs::create_symlink("loop", d / "loop");
  write_manifest(d, R"(["member_0", "loop"])");
  const std::string e = refusal(d);
  EXPECT_NE(e.find("ensemble member " + (d / "loop").string() + ": symlink loop"), std::string::npos) << e;
  fs::remove_all(d);
}

// A manifest that is valid JSON but not an object of the right types is refused by name
// (found by fuzz/ensemble_manifest_fuzz.cpp: a number threw nlohmann's type_error).
TEST(EnsembleManifest, RefusesAManifestOfTheWrongShape) {
  const fs::path d = ensemble_with_members("shape", 1);
  for (const char* text : {"9", "[1, 2]", R"({"format": 3, "version": "1", "members": ["member_0"]})"}) {
    std::ofstream(d / kEnsembleManifest) << text;
    EXPECT_NE(refusal(d).find("not a FlashNeRD ensemble manifest of version 1"), std::string::npos) << text;
  }
  fs::remove_all(d);
}

TEST(EnsembleManifest, RefusesMoreMembersThanAnEnsembleHolds) {
  const fs::path d = ensemble_with_members("many", 1);
  std::string members = "[";
  for (int i = 0; i < 5000; ++i) members += std::string(i ? ", " : "") + "\"member_0\"";
  write_manifest(d, members + "]");
  EXPECT_NE(refusal(d).find("5000 members; an ensemble holds at most 64"), std::string::npos) << refusal(d);
  fs::remove_all(d);
}

}  // namespace
}  // namespace flashnerd
