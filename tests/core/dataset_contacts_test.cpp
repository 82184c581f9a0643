// Contact arrays are validated on load: a count beyond the capacity or a link index out of
// range (a corrupted file) is refused with the file, the trajectory, the step and the fix,
// instead of indexing past the rows later (train --variable-contacts crashed on them).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "core/dataset.h"
#include "core/error.h"
#include "h5_edit.h"

namespace flashnerd {
namespace {

std::string saved_dataset(const char* name) {
  const std::string path = ::testing::TempDir() + name;
  save_dataset(path, testing::small_contact_dataset());
  return path;
}

TEST(DatasetContacts, IntactFileLoads) {
  const std::string path = saved_dataset("contacts_ok.h5");
  Dataset d = load_dataset(path);
  EXPECT_EQ(d.contact_capacity, 4);
  EXPECT_EQ(d.contact_count, testing::small_contact_dataset().contact_count);
  std::remove(path.c_str());
}

TEST(DatasetContacts, CountAboveCapacityIsRefused) {
  const std::string path = saved_dataset("contacts_count.h5");
  // trajectory 1, step 2 of 5 frames per trajectory
  testing::h5_set<int32_t>(path, "contact/count", 1 * 5 + 2, 1000);
  const std::string e = testing::dataset_load_error(path);
  EXPECT_NE(e.find(path), std::string::npos) << e;
  EXPECT_NE(e.find("trajectory 1, step 2: contact/count is 1000, outside 0..4"), std::string::npos) << e;
  EXPECT_NE(e.find("regenerate"), std::string::npos) << e;
  testing::h5_set<int32_t>(path, "contact/count", 1 * 5 + 2, -3);
  EXPECT_NE(testing::dataset_load_error(path).find("contact/count is -3"), std::string::npos);
  std::remove(path.c_str());
}

TEST(DatasetContacts, LinkOutOfRangeIsRefused) {
  const std::string path = saved_dataset("contacts_link.h5");
  // frame 2 of trajectory 0 holds 2 valid rows (2 % 3); its row 1 gets link 7 (link_count 3)
  testing::h5_set<int32_t>(path, "contact/link", 2 * 4 + 1, 7);
  const std::string e = testing::dataset_load_error(path);
  EXPECT_NE(e.find("trajectory 0, step 2: contact/link of row 1 is 7, outside 0..2"), std::string::npos) << e;
  // padding rows (beyond the count) are not links
  testing::h5_set<int32_t>(path, "contact/link", 2 * 4 + 1, 1);
  testing::h5_set<int32_t>(path, "contact/link", 2 * 4 + 3, 99);
  EXPECT_EQ(testing::dataset_load_error(path), "");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace flashnerd
