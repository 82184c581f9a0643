// The checked chunk reader agrees with H5Dread on valid arrays (odd chunk shapes, edge chunks,
// deflate or not, a stored type converted) and refuses the corrupt chunks H5Dread copied past
// its buffers (found by fuzz/dataset_fuzz.cpp).
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/hdf5_chunks.h"
#include "h5_edit.h"

namespace flashnerd {
namespace {

// Writes a (5, 7) int32 array in (2, 3) chunks, deflated or not; reads it back both ways.
void expect_same_as_h5dread(bool deflate) {
  const std::string path = ::testing::TempDir() + "chunks_odd.h5";
  const hsize_t dims[2] = {5, 7}, chunk[2] = {2, 3};
  std::vector<int32_t> values(35);
  for (size_t i = 0; i < values.size(); ++i) values[i] = int32_t(i * 7 - 40);
  hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t space = H5Screate_simple(2, dims, nullptr);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 2, chunk);
  if (deflate) H5Pset_deflate(dcpl, 6);
  hid_t ds = H5Dcreate2(file, "a", H5T_STD_I32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  ASSERT_GE(H5Dwrite(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  std::vector<double> reference(35), checked(35, -1.0);
  ASSERT_GE(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, reference.data()), 0);
  read_chunked_array(ds, H5T_NATIVE_DOUBLE, {5, 7}, checked.data(), "a");  // int32 -> double
  EXPECT_EQ(checked, reference);
  EXPECT_EQ(checked[34], 34 * 7 - 40);
  H5Dclose(ds);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Fclose(file);
  std::remove(path.c_str());
}

TEST(Hdf5Chunks, OddChunkShapesReadLikeH5Dread) {
  expect_same_as_h5dread(true);
  expect_same_as_h5dread(false);
}

TEST(Hdf5Chunks, ChunkMarkedUncompressedButShortIsRefused) {
  testing::SavedDataset s("chunks_short.h5");
  // contact/link chunks are (1, 5, 4) int32 = 80 bytes; 5 bytes marked "deflate skipped"
  testing::h5_write_raw_chunk(s.path, "contact/link", {1, 0, 0}, 1, "12345");
  const std::string e = s.load_error();
  EXPECT_NE(e.find(s.path + ": 'contact/link': the chunk at (1, 0, 0) holds 5 bytes instead of 80"),
            std::string::npos) << e;
}

TEST(Hdf5Chunks, ChunkThatDoesNotInflateIsRefused) {
  testing::SavedDataset s("chunks_garbage.h5");
  testing::h5_write_raw_chunk(s.path, "qpos", {2, 0, 0}, 0, "not deflate data");
  const std::string e = s.load_error();
  EXPECT_NE(e.find("'qpos': the chunk at (2, 0, 0) does not inflate to its 80 bytes"), std::string::npos) << e;
}

TEST(Hdf5Chunks, ChunkSizeLargerThanTheFileIsRefused) {
  testing::SavedDataset s("chunks_huge.h5");
  // the chunk index's key of qpos's chunk (2, 0, 0): stored size (4 bytes), filter mask (4),
  // offsets (8 each, rank + 1); a corrupt size of 822 MB was allocated before (fuzz)
  hsize_t stored = 0;
  {
    testing::H5File f(s.path);
    hid_t ds = H5Dopen2(f.id(), "qpos", H5P_DEFAULT);
    const hsize_t at[3] = {2, 0, 0};
    H5Dget_chunk_storage_size(ds, at, &stored);
    H5Dclose(ds);
  }
  std::string key = testing::le_bytes(stored, 4) + testing::le_bytes(0, 4) + testing::le_bytes(2, 8);
  for (int i = 0; i < 3; ++i) key += testing::le_bytes(0, 8);
  testing::file_patch(s.path, testing::file_find(s.path, key), testing::le_bytes(0x31000000, 4));
  const std::string e = s.load_error();
  EXPECT_NE(e.find("'qpos': the chunk at (2, 0, 0) claims 822083584 stored bytes, more than the file's"),
            std::string::npos) << e;
}

}  // namespace
}  // namespace flashnerd
