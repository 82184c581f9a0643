// A corrupt attribute message is refused before libhdf5 decodes it (a one-byte flip
// in a dataset crashed H5Aexists with SIGSEGV in eval, train and rollout).
#include <gtest/gtest.h>

#include <string>

#include "core/dataset.h"
#include "core/error.h"
#include "h5_edit.h"

namespace flashnerd {
namespace {

TEST(Hdf5HeaderCheck, OneByteFlipInAnAttributeMessageIsRefused) {
  testing::SavedDataset s("header_flip.h5");
  // version-1 attribute message: version, reserved, name size (2), datatype size (2), dataspace
  // size (2), then the name; the flip of the reporter's file: datatype size 8 -> 0x7408
  const size_t name = testing::file_find(s.path, std::string("actuator_model\0", 15));
  testing::file_patch(s.path, name - 3, "\x74");
  const std::string e = s.load_error();
  EXPECT_NE(e.find(s.path + ": object header at byte "), std::string::npos) << e;
  EXPECT_NE(e.find("('actuator_model') needs 29704 more bytes"), std::string::npos) << e;
}

TEST(Hdf5HeaderCheck, NameWithoutTerminatorIsRefused) {
  testing::SavedDataset s("header_name.h5");
  const size_t name = testing::file_find(s.path, std::string("mjcf_hash\0", 10));
  testing::file_patch(s.path, name + 9, "x");
  const std::string e = s.load_error();
  EXPECT_NE(e.find("has a name that is not one NUL-terminated string of 10 bytes"), std::string::npos) << e;
}

// The fuzzer's input: "link_count" became "link_cu\0ot"; libhdf5 refused the name's length,
// then crashed in H5Aiterate2 releasing its half-built attribute table.
TEST(Hdf5HeaderCheck, NulInsideANameIsRefused) {
  testing::SavedDataset s("header_nul.h5");
  const size_t name = testing::file_find(s.path, std::string("link_count\0", 11));
  testing::file_patch(s.path, name, std::string("link_cu\0ot\0", 11));
  const std::string e = s.load_error();
  EXPECT_NE(e.find("('link_cu') has a name that is not one NUL-terminated string of 11 bytes"), std::string::npos)
      << e;
}

// The fuzzer's input (kept in fuzz/corpus/dataset/): a continuation message of the root
// group's header claims 4 294 575 000 bytes; libhdf5 allocated that inside H5Fopen before
// finding the file too short. Refused from the raw bytes before H5Fopen.
TEST(Hdf5HeaderCheck, RootHeaderChunkLargerThanTheFileIsRefusedBeforeOpening) {
  const std::string path = std::string(FLASHNERD_SOURCE_DIR) + "/fuzz/corpus/dataset/root_header_claims_4gb";
  std::string e;
  try {
    load_dataset(path);
  } catch (const Error& err) {
    e = err.what();
  }
  EXPECT_NE(e.find("the root group's object header, chunk 1 at byte 800 with 4294575000 bytes lies outside the "
                   "file's 31352 bytes"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace flashnerd
