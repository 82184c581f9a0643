// What load_dataset checks before it reads an array (found by byte-flip trials and fuzzing):
// the stored type, the stored size of a contiguous array and the count attributes that size
// the arrays. Each corruption below crashed libhdf5 or allocated without bound before.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "core/dataset.h"
#include "h5_edit.h"

namespace flashnerd {
namespace {

std::string le64(uint64_t v) { return testing::le_bytes(v, 8); }

TEST(DatasetStorage, EveryArrayLoadsBitForBit) {  // through the checked chunk reader
  Dataset d = testing::small_contact_dataset();
  d.probe_count = 2;
  d.probes.resize(size_t(d.trajectories * d.frames() * d.probe_count * kProbeFeatureDim));
  d.free_dv.resize(size_t(d.trajectories * d.steps * d.layout.nv));
  for (size_t i = 0; i < d.qvel.size(); ++i) d.qvel[i] = -0.5 * double(i) + 1e-9;
  for (size_t i = 0; i < d.ctrl.size(); ++i) d.ctrl[i] = std::sin(double(i));
  for (size_t i = 0; i < d.probes.size(); ++i) d.probes[i] = float(i) * 0.25f;
  for (size_t i = 0; i < d.contact_rows.size(); ++i) d.contact_rows[i] = float(i % 97) - 3.5f;
  for (size_t i = 0; i < d.free_dv.size(); ++i) d.free_dv[i] = 1.0 / double(i + 1);
  for (size_t i = 0; i < d.contact_overflow.size(); ++i) d.contact_overflow[i] = int32_t(i % 5);
  d.valid[3] = 0;
  const std::string path = ::testing::TempDir() + "storage_roundtrip.h5";
  save_dataset(path, d);
  const Dataset l = load_dataset(path);
  const char* differs = l.qpos != d.qpos                         ? "qpos"
                        : l.qvel != d.qvel                         ? "qvel"
                        : l.ctrl != d.ctrl                         ? "ctrl"
                        : l.valid != d.valid                       ? "valid"
                        : l.probes != d.probes                     ? "probes"
                        : l.contact_rows != d.contact_rows         ? "contact/rows"
                        : l.contact_link != d.contact_link         ? "contact/link"
                        : l.contact_count != d.contact_count       ? "contact/count"
                        : l.contact_overflow != d.contact_overflow ? "contact/overflow"
                        : l.free_dv != d.free_dv                   ? "free_dv"
                                                                   : "";
  EXPECT_STREQ(differs, "") << "this array changed through save and load";
  std::remove(path.c_str());
}

TEST(DatasetStorage, CorruptStoredTypeSizeIsRefused) {
  testing::SavedDataset s("storage_type.h5");
  // qpos's datatype message: float, version 1, little-endian, 8 bytes; a flip made it 26376 bytes
  const size_t header = testing::h5_object_address(s.path, "qpos");
  const size_t type = testing::file_find(s.path, std::string("\x11\x20\x3f\x00\x08\x00\x00\x00", 8), header);
  testing::file_patch(s.path, type + 5, "\x67");
  const std::string e = s.load_error();
  EXPECT_NE(e.find(s.path + ": 'qpos' is stored as floats of 26376 bytes"), std::string::npos) << e;
}

TEST(DatasetStorage, ContiguousArrayWithShortStorageIsRefused) {
  testing::SavedDataset s("storage_contiguous.h5");
  testing::h5_make_contiguous_uint8(s.path, "valid");
  ASSERT_EQ(s.load_error(), "");  // contiguous arrays (h5py without compression) load
  // layout message version 3, contiguous: address (8 bytes), then size (8 bytes): 12 -> 3
  uint64_t data = 0;
  {
    testing::H5File f(s.path);
    hid_t ds = H5Dopen2(f.id(), "valid", H5P_DEFAULT);
    data = H5Dget_offset(ds);
    H5Dclose(ds);
  }
  const size_t layout = testing::file_find(s.path, "\x03\x01" + le64(data), testing::h5_object_address(s.path, "valid"));
  testing::file_patch(s.path, layout + 10, le64(3));
  const std::string e = s.load_error();
  EXPECT_NE(e.find(s.path + ": 'valid' stores 3 bytes but its shape and type need 12"), std::string::npos) << e;
}

TEST(DatasetStorage, CountAttributeOutOfRangeIsRefused) {
  testing::SavedDataset s("storage_count.h5");
  testing::h5_set_int_attr(s.path, "contact_capacity", int64_t(1) << 40);
  std::string e = s.load_error();
  EXPECT_NE(e.find(s.path + ": attribute 'contact_capacity' is 1099511627776, outside 0..65536"), std::string::npos)
      << e;
  testing::h5_set_int_attr(s.path, "contact_capacity", 4);
  testing::h5_set_int_attr(s.path, "probe_count", -2);
  e = s.load_error();
  EXPECT_NE(e.find("attribute 'probe_count' is -2, outside 0..65536"), std::string::npos) << e;
}

}  // namespace
}  // namespace flashnerd
