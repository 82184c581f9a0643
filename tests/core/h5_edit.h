// Test helpers for saved datasets: a small dataset with contacts, the error loading one gives,
// and edits in place through the HDF5 C API (no h5py):
// overwrite one element of an array, replace a string attribute with a variable-length one
// (as h5py writes them), delete an attribute. Each throws std::runtime_error on failure.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

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

}  // namespace flashnerd::testing
