#include "core/dataset.h"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/hdf5_chunks.h"
#include "core/hdf5_header_check.h"
#include "core/system_memory.h"

namespace flashnerd {

void Dataset::allocate(int64_t n, int64_t t, bool with_free_dv) {
  trajectories = n;
  steps = t;
  const size_t nf = size_t(n * (t + 1));
  qpos.assign(nf * size_t(layout.nq), 0.0);
  qvel.assign(nf * size_t(layout.nv), 0.0);
  act.assign(nf * size_t(layout.na), 0.0);
  ctrl.assign(size_t(n * t * layout.nu), 0.0);
  valid.assign(size_t(n * t), 0);
  probes.assign(nf * size_t(probe_count * kProbeFeatureDim), 0.0f);
  contact_rows.assign(nf * size_t(contact_capacity * kContactRowDim), 0.0f);
  contact_link.assign(nf * size_t(contact_capacity), -1);
  contact_count.assign(contact_capacity > 0 ? nf : 0, 0);
  contact_overflow.assign(contact_capacity > 0 ? nf : 0, 0);
  free_dv.assign(with_free_dv ? size_t(n * t * layout.nv) : 0, 0.0);
}

double Dataset::allocation_bytes(int64_t n, int64_t t, bool with_free_dv) const {
  const double frames = double(n) * double(t + 1), steps = double(n) * double(t);
  double per_frame = 8.0 * (layout.nq + layout.nv + layout.na) + 4.0 * probe_count * kProbeFeatureDim;
  if (contact_capacity > 0) per_frame += 4.0 * contact_capacity * (kContactRowDim + 1) + 8.0;
  const double per_step = 8.0 * layout.nu + 1.0 + (with_free_dv ? 8.0 * layout.nv : 0.0);
  return frames * per_frame + steps * per_step;
}

void Dataset::validate() const {
  layout.validate();
  FN_CHECK(trajectories > 0 && steps > 0, "dataset: ", trajectories, " trajectories of ", steps,
           " steps; both must be positive");
  const size_t nf = size_t(trajectories * (steps + 1));
  auto check = [](size_t have, size_t want, const char* name) {
    FN_CHECK(have == want, "dataset: array '", name, "' has ", have, " values, expected ", want);
  };
  check(qpos.size(), nf * size_t(layout.nq), "qpos");
  check(qvel.size(), nf * size_t(layout.nv), "qvel");
  check(act.size(), nf * size_t(layout.na), "act");
  check(ctrl.size(), size_t(trajectories * steps * layout.nu), "ctrl");
  check(valid.size(), size_t(trajectories * steps), "valid");
  check(probes.size(), nf * size_t(probe_count * kProbeFeatureDim), "probes");
  check(contact_rows.size(), nf * size_t(contact_capacity * kContactRowDim), "contact/rows");
  check(contact_link.size(), nf * size_t(contact_capacity), "contact/link");
  if (contact_capacity > 0) {
    check(contact_count.size(), nf, "contact/count");
    check(contact_overflow.size(), nf, "contact/overflow");
  }
  if (!free_dv.empty()) check(free_dv.size(), size_t(trajectories * steps * layout.nv), "free_dv");
}

void check_contact_arrays(const Dataset& d, const std::string& origin) {
  const int K = d.contact_capacity;
  if (K == 0) return;
  const char* fix = "; the file is corrupted or was not written by flashnerd: regenerate it with 'flashnerd gen'";
  FN_CHECK(d.link_count > 0, origin, ": attribute 'link_count' is ", d.link_count, " but contact rows are "
           "recorded (contact_capacity ", K, ")", fix);
  for (int64_t n = 0; n < d.trajectories; ++n)
    for (int64_t t = 0; t < d.frames(); ++t) {
      const int64_t f = n * d.frames() + t;
      const int32_t count = d.contact_count[size_t(f)];
      FN_CHECK(count >= 0 && count <= K, origin, ": trajectory ", n, ", step ", t, ": contact/count is ", count,
               ", outside 0..", K, " (contact_capacity)", fix);
      FN_CHECK(d.contact_overflow[size_t(f)] >= 0, origin, ": trajectory ", n, ", step ", t,
               ": contact/overflow is ", d.contact_overflow[size_t(f)], ", negative", fix);
      for (int r = 0; r < count; ++r) {
        const int32_t link = d.contact_link[size_t(f * K + r)];
        FN_CHECK(link >= 0 && link < d.link_count, origin, ": trajectory ", n, ", step ", t, ": contact/link of row ",
                 r, " is ", link, ", outside 0..", d.link_count - 1, " (link_count ", d.link_count, ")", fix);
      }
    }
}

void check_valid_transitions_finite(const Dataset& d, const std::string& origin) {
  auto finite = [](const double* x, int n) {
    for (int i = 0; i < n; ++i)
      if (!std::isfinite(x[i])) return false;
    return true;
  };
  const StateLayout& l = d.layout;
  for (int64_t n = 0; n < d.trajectories; ++n)
    for (int64_t t = 0; t < d.steps; ++t) {
      if (!d.is_valid(n, t)) continue;
      const char* bad = !finite(d.q(n, t), l.nq) || !finite(d.q(n, t + 1), l.nq)   ? "qpos"
                        : !finite(d.v(n, t), l.nv) || !finite(d.v(n, t + 1), l.nv) ? "qvel"
                        : l.na > 0 && (!finite(d.a(n, t), l.na) || !finite(d.a(n, t + 1), l.na)) ? "act"
                        : !finite(d.u(n, t), l.nu)                                 ? "ctrl"
                                                                                   : nullptr;
      FN_CHECK(bad == nullptr, origin, ": trajectory ", n, ", step ", t, " is marked valid but '", bad,
               "' holds NaN or infinity there; set its 'valid' entry to 0 or regenerate the file with 'flashnerd gen'");
    }
}

namespace {

// RAII for HDF5 handles.
struct H5Handle {
  hid_t id;
  herr_t (*close)(hid_t);
  H5Handle(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  ~H5Handle() {
    if (id >= 0) close(id);
  }
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
};

template <typename T>
hid_t h5_type();
template <>
hid_t h5_type<double>() { return H5T_NATIVE_DOUBLE; }
template <>
hid_t h5_type<float>() { return H5T_NATIVE_FLOAT; }
template <>
hid_t h5_type<int32_t>() { return H5T_NATIVE_INT32; }
template <>
hid_t h5_type<uint8_t>() { return H5T_NATIVE_UINT8; }

template <typename T>
void write_array(hid_t file, const std::string& name, const std::vector<T>& data,
                 const std::vector<hsize_t>& dims, const std::string& path) {
  if (data.empty()) return;
  H5Handle space(H5Screate_simple(int(dims.size()), dims.data(), nullptr), H5Sclose);
  H5Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  // Chunk by trajectory and compress: contact arrays are mostly padding.
  std::vector<hsize_t> chunk = dims;
  chunk[0] = 1;
  H5Pset_chunk(plist.id, int(chunk.size()), chunk.data());
  H5Pset_deflate(plist.id, 1);
  H5Pset_obj_track_times(plist.id, 0);  // same data, same bytes
  H5Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl.id, 1);
  H5Handle ds(H5Dcreate2(file, name.c_str(), h5_type<T>(), space.id, lcpl.id, plist.id, H5P_DEFAULT),
              H5Dclose);
  FN_CHECK(ds.id >= 0, path, ": cannot create dataset '", name, "'");
  FN_CHECK(H5Dwrite(ds.id, h5_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) >= 0, path,
           ": writing '", name, "' failed (disk full?)");
}

// Returns the stored value size of `name`; throws unless its type has the class T reads
// (float for float and double, integer for int32 and uint8) and a size of 1, 2, 4 or 8 bytes:
// libhdf5 1.10 converts a corrupt type size by copying past its buffers (a one-byte flip
// crashed H5Dread).
template <typename T>
size_t check_stored_type(hid_t ds, const std::string& name, const std::string& path) {
  H5Handle type(H5Dget_type(ds), H5Tclose);
  const H5T_class_t have = type.id >= 0 ? H5Tget_class(type.id) : H5T_NO_CLASS;
  const H5T_class_t want = std::is_floating_point<T>::value ? H5T_FLOAT : H5T_INTEGER;
  const size_t bytes = type.id >= 0 ? H5Tget_size(type.id) : 0;
  auto class_name = [](H5T_class_t c) {
    return c == H5T_FLOAT ? "floats" : c == H5T_INTEGER ? "integers" : "neither floats nor integers";
  };
  FN_CHECK(have == want && (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8), path, ": '", name,
           "' is stored as ", class_name(have), " of ", bytes, " bytes, expected ", class_name(want),
           " of 1, 2, 4 or 8 bytes (corrupted file?); regenerate it with 'flashnerd gen'");
  return bytes;
}

template <typename T>
std::vector<T> read_array(hid_t file, const std::string& name, const std::vector<hsize_t>& dims,
                          const std::string& path, bool required = true) {
  if (H5Lexists(file, "/contact", H5P_DEFAULT) <= 0 && name.rfind("contact/", 0) == 0) {
    FN_CHECK(!required, path, ": group 'contact' is missing");
    return {};
  }
  if (H5Lexists(file, name.c_str(), H5P_DEFAULT) <= 0) {
    FN_CHECK(!required, path, ": dataset '", name, "' is missing (not a FlashNeRD dataset?)");
    return {};
  }
  check_linked_object_header(file, name.c_str(), path);
  H5Handle ds(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  FN_CHECK(ds.id >= 0, path, ": cannot open '", name, "'");
  H5Handle space(H5Dget_space(ds.id), H5Sclose);
  int rank = H5Sget_simple_extent_ndims(space.id);
  std::vector<hsize_t> have(size_t(rank > 0 ? rank : 0));
  H5Sget_simple_extent_dims(space.id, have.data(), nullptr);
  FN_CHECK(have == dims, path, ": '", name, "' has an unexpected shape for this dataset's attributes");
  const size_t stored_value = check_stored_type<T>(ds.id, name, path);
  double n = 1;  // in double: a corrupt shape must not overflow
  for (auto d : dims) n *= double(d);
  const hsize_t stored = H5Dget_storage_size(ds.id);  // from the index: at most the file's size
  const double stored_max = std::min(double(stored), double(std::filesystem::file_size(path)));
  // an array claiming more than deflate can make of its stored bytes has a corrupt shape or
  // attribute, and is refused before anything is allocated for it
  FN_CHECK(n * double(sizeof(T)) <= kMaxDeflateRatio * stored_max + kMaxBytesFromNothing, path, ": '", name,
           "' claims ", n, " values but stores only ", stored, " bytes, more than compression allows (corrupted "
           "shape or attribute?); regenerate the file with 'flashnerd gen'");
  std::vector<T> out(static_cast<size_t>(n));
  H5Handle dcpl(H5Dget_create_plist(ds.id), H5Pclose);
  if (H5Pget_layout(dcpl.id) == H5D_CHUNKED) {  // H5Dread trusts the chunk index (hdf5_chunks.h)
    read_chunked_array(ds.id, h5_type<T>(), dims, out.data(), str_cat(path, ": '", name, "'"));
  } else {  // contiguous or compact: H5Dread trusts the stored size too
    const double need = n * double(stored_value);
    FN_CHECK(double(stored) == need, path, ": '", name, "' stores ", stored, " bytes but its shape and type need ",
             need, " (corrupted file?); regenerate it with 'flashnerd gen'");
    FN_CHECK(H5Dread(ds.id, h5_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) >= 0, path,
             ": reading '", name, "' failed (truncated or corrupted file?)");
  }
  return out;
}

void write_attr_string(hid_t obj, const char* name, const std::string& value) {
  H5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.id, value.size() + 1);
  H5Tset_strpad(type.id, H5T_STR_NULLTERM);
  H5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  H5Handle attr(H5Acreate2(obj, name, type.id, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  H5Awrite(attr.id, type.id, value.c_str());
}

template <typename T>
void write_attr_scalar(hid_t obj, const char* name, T value) {
  H5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  hid_t type = std::is_same<T, double>::value ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64;
  H5Handle attr(H5Acreate2(obj, name, type, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  H5Awrite(attr.id, type, &value);
}

// Opens the root attribute `name`; throws naming it when it is missing or unreadable. Not
// H5Aexists, which crashed on a corrupt file (a byte flip), nor H5Aiterate2, which crashed
// releasing its table after a corrupt attribute (fuzz): H5Aopen_by_name stops at the first
// match and fails cleanly, after check_attribute_messages.
hid_t open_attr(hid_t obj, const char* name, const std::string& path) {
  hid_t attr = H5Aopen_by_name(obj, ".", name, H5P_DEFAULT, H5P_DEFAULT);
  FN_CHECK(attr >= 0, path, ": attribute '", name, "' is missing (not a FlashNeRD dataset?) or unreadable "
           "(corrupted file?); regenerate the file with 'flashnerd gen'");
  return attr;
}

// A scalar string attribute, fixed-length (flashnerd gen) or variable-length (h5py's
// default); refuses an empty one: every string attribute of the schema is required.
std::string read_attr_string(hid_t obj, const char* name, const std::string& path) {
  H5Handle attr(open_attr(obj, name, path), H5Aclose);
  H5Handle type(H5Aget_type(attr.id), H5Tclose);
  H5Handle space(H5Aget_space(attr.id), H5Sclose);
  FN_CHECK(H5Tget_class(type.id) == H5T_STRING && H5Sget_simple_extent_npoints(space.id) == 1, path,
           ": attribute '", name, "' must be one string (fixed- or variable-length); rewrite it as a scalar string");
  std::string s;
  if (H5Tis_variable_str(type.id) > 0) {
    H5Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mem.id, H5T_VARIABLE);
    H5Tset_cset(mem.id, H5Tget_cset(type.id));
    char* text = nullptr;
    FN_CHECK(H5Aread(attr.id, mem.id, &text) >= 0, path, ": reading attribute '", name, "' failed (corrupted file?)");
    if (text != nullptr) s = text;
    H5free_memory(text);
  } else {
    s.assign(H5Tget_size(type.id), '\0');
    FN_CHECK(H5Aread(attr.id, type.id, s.data()) >= 0, path, ": reading attribute '", name,
             "' failed (corrupted file?)");
    const char pad = H5Tget_strpad(type.id) == H5T_STR_SPACEPAD ? ' ' : '\0';
    s.resize(std::min(s.size(), s.find('\0')));  // NULLTERM: up to the terminator
    while (!s.empty() && s.back() == pad) s.pop_back();
  }
  FN_CHECK(!s.empty(), path, ": attribute '", name, "' is empty; regenerate the file with 'flashnerd gen'");
  return s;
}

// A JSON string attribute, parsed and converted to T; errors name the file and the attribute.
template <typename T>
T read_attr_json(hid_t obj, const char* name, const std::string& path) {
  const std::string text = read_attr_string(obj, name, path);
  try {
    return nlohmann::json::parse(text).get<T>();
  } catch (const nlohmann::json::exception& e) {
    throw Error(str_cat(path, ": attribute '", name, "' is not the JSON this build expects (", e.what(),
                        "); regenerate the file with 'flashnerd gen'"));
  } catch (const Error& e) {  // from_json names the field
    throw Error(str_cat(path, ": attribute '", name, "': ", e.what(), "; regenerate the file with 'flashnerd gen'"));
  }
}

template <typename T>
T read_attr_scalar(hid_t obj, const char* name, const std::string& path) {
  H5Handle attr(open_attr(obj, name, path), H5Aclose);
  H5Handle type(H5Aget_type(attr.id), H5Tclose);
  H5Handle space(H5Aget_space(attr.id), H5Sclose);
  const H5T_class_t cls = H5Tget_class(type.id);
  FN_CHECK((cls == H5T_INTEGER || cls == H5T_FLOAT) && H5Sget_simple_extent_npoints(space.id) == 1, path,
           ": attribute '", name, "' must be one number; rewrite it as a scalar ",
           std::is_same<T, double>::value ? "float64" : "int64");
  T value{};
  hid_t mem = std::is_same<T, double>::value ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64;
  FN_CHECK(H5Aread(attr.id, mem, &value) >= 0, path, ": reading attribute '", name, "' failed (corrupted file?)");
  return value;
}

// A count attribute (probes, contact rows, links), refused outside [0, kMaxAttributeCount]:
// array sizes are computed from it.
constexpr int64_t kMaxAttributeCount = 1 << 16;
int read_attr_count(hid_t obj, const char* name, const std::string& path) {
  const int64_t count = read_attr_scalar<int64_t>(obj, name, path);
  FN_CHECK(count >= 0 && count <= kMaxAttributeCount, path, ": attribute '", name, "' is ", count, ", outside 0..",
           kMaxAttributeCount, " (corrupted file?); regenerate it with 'flashnerd gen'");
  return int(count);
}

}  // namespace

void save_dataset(const std::string& path, const Dataset& d) {
  d.validate();
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  AtomicFile out(path);
  {
    H5Handle file(H5Fcreate(out.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                  H5Fclose);
    FN_CHECK(file.id >= 0, "cannot create ", out.temp_path(),
             ": check that the directory exists and is writable");
    hid_t f = file.id;
    write_attr_scalar<int64_t>(f, "schema_version", kDatasetSchemaVersion);
    write_attr_string(f, "format", "flashnerd-dataset");
    write_attr_string(f, "robot", d.robot);
    write_attr_string(f, "mjcf_hash", d.mjcf_hash);
    write_attr_string(f, "actuator_model", d.actuator_model);
    write_attr_scalar<double>(f, "timestep", d.timestep);
    write_attr_scalar<int64_t>(f, "seed", int64_t(d.seed));
    write_attr_string(f, "generator", d.generator.dump());
    write_attr_string(f, "layout", nlohmann::json(d.layout).dump());
    write_attr_scalar<int64_t>(f, "probe_count", d.probe_count);
    write_attr_scalar<int64_t>(f, "contact_capacity", d.contact_capacity);
    write_attr_scalar<int64_t>(f, "link_count", d.link_count);
    const hsize_t n = hsize_t(d.trajectories), t = hsize_t(d.steps), nf = t + 1;
    const hsize_t nq = hsize_t(d.layout.nq), nv = hsize_t(d.layout.nv), nu = hsize_t(d.layout.nu);
    write_array(f, "qpos", d.qpos, {n, nf, nq}, path);
    write_array(f, "qvel", d.qvel, {n, nf, nv}, path);
    if (d.layout.na > 0) write_array(f, "act", d.act, {n, nf, hsize_t(d.layout.na)}, path);
    if (nu > 0) write_array(f, "ctrl", d.ctrl, {n, t, nu}, path);
    write_array(f, "valid", d.valid, {n, t}, path);
    if (d.probe_count > 0)
      write_array(f, "probes", d.probes, {n, nf, hsize_t(d.probe_count), hsize_t(kProbeFeatureDim)}, path);
    if (d.contact_capacity > 0) {
      const hsize_t k = hsize_t(d.contact_capacity);
      H5Handle gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
      H5Pset_obj_track_times(gcpl.id, 0);
      H5Handle group(H5Gcreate2(f, "contact", H5P_DEFAULT, gcpl.id, H5P_DEFAULT), H5Gclose);
      write_array(f, "contact/rows", d.contact_rows, {n, nf, k, hsize_t(kContactRowDim)}, path);
      write_array(f, "contact/link", d.contact_link, {n, nf, k}, path);
      write_array(f, "contact/count", d.contact_count, {n, nf}, path);
      write_array(f, "contact/overflow", d.contact_overflow, {n, nf}, path);
    }
    if (!d.free_dv.empty()) write_array(f, "free_dv", d.free_dv, {n, t, nv}, path);
    FN_CHECK(H5Fflush(f, H5F_SCOPE_GLOBAL) >= 0, "flushing ", out.temp_path(), " failed (disk full?)");
  }
  out.commit();
}

Dataset load_dataset(const std::string& path) {
  FN_CHECK(std::filesystem::exists(path), "dataset ", path,
           " does not exist; generate one first ('flashnerd gen' writes datasets)");
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  FN_CHECK(H5Fis_hdf5(path.c_str()) > 0, path, " is not an HDF5 file (truncated or corrupted?)");
  check_root_object_header(path);  // before libhdf5 allocates what the header claims
  H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  FN_CHECK(file.id >= 0, "cannot open ", path, " (truncated or corrupted HDF5 file?)");
  hid_t f = file.id;
  check_attribute_messages(f, f, path);  // before libhdf5 decodes them
  FN_CHECK(read_attr_string(f, "format", path) == "flashnerd-dataset", path,
           ": attribute 'format' is not 'flashnerd-dataset'");
  int64_t version = read_attr_scalar<int64_t>(f, "schema_version", path);
  FN_CHECK(version == kDatasetSchemaVersion, path, ": schema version ", version,
           " but this build reads version ", kDatasetSchemaVersion,
           "; regenerate the dataset with this flashnerd");
  Dataset d;
  d.robot = read_attr_string(f, "robot", path);
  d.mjcf_hash = read_attr_string(f, "mjcf_hash", path);
  d.actuator_model = read_attr_string(f, "actuator_model", path);
  d.timestep = read_attr_scalar<double>(f, "timestep", path);
  d.seed = uint64_t(read_attr_scalar<int64_t>(f, "seed", path));
  d.generator = read_attr_json<nlohmann::json>(f, "generator", path);
  d.layout = read_attr_json<StateLayout>(f, "layout", path);
  d.probe_count = read_attr_count(f, "probe_count", path);
  d.contact_capacity = read_attr_count(f, "contact_capacity", path);
  d.link_count = read_attr_count(f, "link_count", path);
  // trajectory and step counts come from the shape of qpos
  {
    FN_CHECK(H5Lexists(f, "qpos", H5P_DEFAULT) > 0, path, ": dataset 'qpos' is missing");
    check_linked_object_header(f, "qpos", path);
    H5Handle ds(H5Dopen2(f, "qpos", H5P_DEFAULT), H5Dclose);
    H5Handle space(H5Dget_space(ds.id), H5Sclose);
    FN_CHECK(H5Sget_simple_extent_ndims(space.id) == 3, path, ": 'qpos' must have rank 3");
    hsize_t dims[3];
    H5Sget_simple_extent_dims(space.id, dims, nullptr);
    d.trajectories = int64_t(dims[0]);
    d.steps = int64_t(dims[1]) - 1;
  }
  FN_CHECK(d.trajectories > 0 && d.steps > 0, path, ": 'qpos' holds ", d.trajectories, " trajectories of ",
           d.steps + 1, " frames; a dataset needs at least one trajectory of two frames");
  try {
    d.layout.validate();
  } catch (const Error& e) {  // validate() names the field, not the file
    throw Error(str_cat(path, ": attribute 'layout': ", e.what()));
  }
  check_memory_fits(d.allocation_bytes(d.trajectories, d.steps, H5Lexists(f, "free_dv", H5P_DEFAULT) > 0),
                    str_cat("loading ", path), "load it on a machine with more memory");
  const hsize_t n = hsize_t(d.trajectories), t = hsize_t(d.steps), nf = t + 1;
  const hsize_t nq = hsize_t(d.layout.nq), nv = hsize_t(d.layout.nv), nu = hsize_t(d.layout.nu);
  d.qpos = read_array<double>(f, "qpos", {n, nf, nq}, path);
  d.qvel = read_array<double>(f, "qvel", {n, nf, nv}, path);
  if (d.layout.na > 0) d.act = read_array<double>(f, "act", {n, nf, hsize_t(d.layout.na)}, path);
  if (nu > 0) d.ctrl = read_array<double>(f, "ctrl", {n, t, nu}, path);
  d.valid = read_array<uint8_t>(f, "valid", {n, t}, path);
  if (d.probe_count > 0)
    d.probes = read_array<float>(f, "probes", {n, nf, hsize_t(d.probe_count), hsize_t(kProbeFeatureDim)}, path);
  if (d.contact_capacity > 0) {
    const hsize_t k = hsize_t(d.contact_capacity);
    d.contact_rows = read_array<float>(f, "contact/rows", {n, nf, k, hsize_t(kContactRowDim)}, path);
    d.contact_link = read_array<int32_t>(f, "contact/link", {n, nf, k}, path);
    d.contact_count = read_array<int32_t>(f, "contact/count", {n, nf}, path);
    d.contact_overflow = read_array<int32_t>(f, "contact/overflow", {n, nf}, path);
  }
  d.free_dv = read_array<double>(f, "free_dv", {n, t, nv}, path, /*required=*/false);
  d.validate();
  check_contact_arrays(d, path);
  check_valid_transitions_finite(d, path);
  return d;
}

void check_dataset_robot(const Dataset& d, const std::string& robot, const StateLayout& layout,
                         const std::string& what) {
  FN_CHECK(d.robot == robot && d.layout == layout, what, " is for robot '", d.robot, "' (nq=",
           d.layout.nq, ", nv=", d.layout.nv, ", na=", d.layout.na, ", nu=", d.layout.nu,
           ") but the model is for robot '", robot, "' (nq=", layout.nq, ", nv=", layout.nv, ", na=", layout.na,
           ", nu=", layout.nu,
           "); use a dataset generated for the same robot");
}

}  // namespace flashnerd
