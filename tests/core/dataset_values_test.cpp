// A transition marked valid whose states or command hold NaN (a corrupted or hand-made file)
// is refused on load, naming the trajectory, the step and the array; invalid transitions may
// hold anything (the generator keeps blown-up states there).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "core/dataset.h"
#include "core/error.h"
#include "h5_edit.h"

namespace flashnerd {
namespace {

TEST(DatasetValues, NanInValidTransitionIsRefused) {
  Dataset d = testing::small_contact_dataset();  // 3 trajectories of 4 steps, nq = nv = 2
  d.valid[2 * 4 + 2] = d.valid[2 * 4 + 3] = 0;  // trajectory 2: frame 3 belongs to invalid steps only
  const std::string path = ::testing::TempDir() + "values_nan.h5";
  save_dataset(path, d);
  testing::h5_set<double>(path, "qvel", (2 * 5 + 3) * 2 + 1, std::nan(""));
  EXPECT_NO_THROW(load_dataset(path));
  testing::h5_set<double>(path, "qpos", (1 * 5 + 0) * 2 + 0, std::nan(""));
  const std::string e = testing::dataset_load_error(path);
  EXPECT_NE(e.find(path + ": trajectory 1, step 0 is marked valid but 'qpos' holds NaN"), std::string::npos) << e;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace flashnerd
