// Test helpers for saved datasets: a small dataset with contacts, the error loading one gives,
// and edits in place through the HDF5 C API (no h5py):
// overwrite one element of an array, replace a string attribute with a variable-length one
// (as h5py writes them), delete an attribute; and corruptions below the API (raw chunks, an
// array made contiguous, bytes patched in place). Each throws std::runtime_error on failure.
#pragma once

#include <hdf5.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/dataset.h"
#include "core/error.h"

namespace flashnerd::testing {

// A small in-memory dataset (2-joint fixed base, 3 trajectories of 4 steps) with K contact
// rows per frame: frame f has (f % 3) rows on links 0..link_count-1.
inline Dataset small_contact_dataset(int K = 4, int link_count = 3) {
  Dataset d;
  d.robot = "toy";
  d.mjcf_hash = "fnv1a64:0123456789abcdef";
  d.actuator_model = "motor";
  d.timestep = 0.01;
  d.generator = {{"steps", 4}};
  d.layout.nq = d.layout.nv = 2;
  d.layout.nu = 1;
  d.layout.joint_wrapped = {0, 1};
  d.layout.joint_names = {"slide", "hinge"};
  d.contact_capacity = K;
  d.link_count = link_count;
  d.allocate(3, 4, false);
  for (size_t i = 0; i < d.qpos.size(); ++i) d.qpos[i] = 0.01 * double(i);
  for (auto& v : d.valid) v = 1;
  for (size_t f = 0; f < d.contact_count.size(); ++f) {
    const int count = int(f % 3) < K ? int(f % 3) : K;
    d.contact_count[f] = count;
    for (int r = 0; r < count; ++r) d.contact_link[f * size_t(K) + size_t(r)] = r % link_count;
  }
  return d;
}

// The message load_dataset(path) throws, or "" when the file loads.
inline std::string dataset_load_error(const std::string& path) {
  try {
    load_dataset(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// small_contact_dataset() saved under the test temporary directory; removed at the end.
struct SavedDataset {
  std::string path;
  Dataset data = small_contact_dataset();
  explicit SavedDataset(const char* name) : path(::testing::TempDir() + name) { save_dataset(path, data); }
  ~SavedDataset() { std::remove(path.c_str()); }
  std::string load_error() const { return dataset_load_error(path); }
};

class H5File {
 public:
  explicit H5File(const std::string& path) : id_(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT)) {
    if (id_ < 0) throw std::runtime_error("cannot open " + path);
  }
  ~H5File() { H5Fclose(id_); }
  hid_t id() const { return id_; }

 private:
  hid_t id_;
};

// Sets element `index` (flat, row-major) of the array `name` to `value` (int32 or double).
template <typename T>
void h5_set(const std::string& path, const char* name, hsize_t index, T value) {
  static_assert(std::is_same<T, int32_t>::value || std::is_same<T, double>::value, "int32 or double");
  const hid_t native = std::is_same<T, double>::value ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT32;
  H5File f(path);
  hid_t ds = H5Dopen2(f.id(), name, H5P_DEFAULT);
  if (ds < 0) throw std::runtime_error(std::string("no array ") + name);
  hid_t space = H5Dget_space(ds);
  const int rank = H5Sget_simple_extent_ndims(space);
  hsize_t dims[8], coord[8];
  H5Sget_simple_extent_dims(space, dims, nullptr);
  for (int i = rank - 1; i >= 0; --i) {
    coord[i] = index % dims[i];
    index /= dims[i];
  }
  H5Sselect_elements(space, H5S_SELECT_SET, 1, coord);
  hsize_t one = 1;
  hid_t mem = H5Screate_simple(1, &one, nullptr);
  const herr_t ok = H5Dwrite(ds, native, mem, space, H5P_DEFAULT, &value);
  H5Sclose(mem);
  H5Sclose(space);
  H5Dclose(ds);
  if (ok < 0) throw std::runtime_error(std::string("cannot write ") + name);
}

inline void h5_delete_attr(const std::string& path, const char* name) {
  H5File f(path);
  if (H5Adelete(f.id(), name) < 0) throw std::runtime_error(std::string("cannot delete attribute ") + name);
}

// Replaces the root attribute `name` with a scalar variable-length UTF-8 string (h5py's kind).
inline void h5_set_vlen_string_attr(const std::string& path, const char* name, const std::string& value) {
  H5File f(path);
  if (H5Aexists(f.id(), name) > 0) H5Adelete(f.id(), name);
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t attr = H5Acreate2(f.id(), name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  const char* data = value.c_str();
  const herr_t ok = H5Awrite(attr, type, &data);
  H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
  if (ok < 0) throw std::runtime_error(std::string("cannot write attribute ") + name);
}

// Replaces the root attribute `name` with a scalar int64.
inline void h5_set_int_attr(const std::string& path, const char* name, int64_t value) {
  H5File f(path);
  if (H5Aexists(f.id(), name) > 0) H5Adelete(f.id(), name);
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t attr = H5Acreate2(f.id(), name, H5T_NATIVE_INT64, space, H5P_DEFAULT, H5P_DEFAULT);
  const herr_t ok = H5Awrite(attr, H5T_NATIVE_INT64, &value);
  H5Aclose(attr);
  H5Sclose(space);
  if (ok < 0) throw std::runtime_error(std::string("cannot write attribute ") + name);
}

// Stores `bytes` as the raw chunk at `offset` of array `name`; `filters` is the mask of
// filters skipped (1: stored without deflate), whatever the bytes really are.
inline void h5_write_raw_chunk(const std::string& path, const char* name, const std::vector<hsize_t>& offset,
                               uint32_t filters, const std::string& bytes) {
  H5File f(path);
  hid_t ds = H5Dopen2(f.id(), name, H5P_DEFAULT);
  const herr_t ok = H5Dwrite_chunk(ds, H5P_DEFAULT, filters, offset.data(), bytes.size(), bytes.data());
  H5Dclose(ds);
  if (ok < 0) throw std::runtime_error(std::string("cannot write a chunk of ") + name);
}

// Rewrites array `name` (uint8) with contiguous storage, as h5py does without compression.
inline void h5_make_contiguous_uint8(const std::string& path, const char* name) {
  H5File f(path);
  hid_t ds = H5Dopen2(f.id(), name, H5P_DEFAULT);
  hid_t space = H5Dget_space(ds);
  std::vector<uint8_t> values(size_t(H5Sget_simple_extent_npoints(space)));
  H5Dread(ds, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Dclose(ds);
  H5Ldelete(f.id(), name, H5P_DEFAULT);
  ds = H5Dcreate2(f.id(), name, H5T_NATIVE_UINT8, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const herr_t ok = H5Dwrite(ds, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Dclose(ds);
  H5Sclose(space);
  if (ok < 0) throw std::runtime_error(std::string("cannot rewrite ") + name);
}

// File address of the object header of `name` ("." for the root group).
inline uint64_t h5_object_address(const std::string& path, const char* name) {
  H5File f(path);
  H5O_info_t info;
  if (H5Oget_info_by_name2(f.id(), name, &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
    throw std::runtime_error(std::string("no object ") + name);
  return info.addr;
}

// The offset of the first `pattern` at or after `from` in the file.
inline size_t file_find(const std::string& path, const std::string& pattern, size_t from = 0) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = bytes.find(pattern, from);
  if (at == std::string::npos) throw std::runtime_error("pattern not found in " + path);
  return at;
}

// `v` as `bytes` little-endian bytes, as HDF5 stores sizes and addresses.
inline std::string le_bytes(uint64_t v, int bytes) {
  std::string s(size_t(bytes), '\0');
  for (int i = 0; i < bytes; ++i) s[size_t(i)] = char((v >> (8 * i)) & 0xff);
  return s;
}

// Overwrites the bytes at `offset` of the file with `bytes` (a corruption below libhdf5).
inline void file_patch(const std::string& path, size_t offset, const std::string& bytes) {
  std::fstream io(path, std::ios::binary | std::ios::in | std::ios::out);
  io.seekp(std::streamoff(offset));
  io.write(bytes.data(), std::streamsize(bytes.size()));
  if (!io) throw std::runtime_error("cannot patch " + path);
}

}  // namespace flashnerd::testing
