#include "core/hdf5_chunks.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/error.h"

namespace flashnerd {

namespace {

const char* kRegenerate = " (corrupted file?); regenerate it with 'flashnerd gen'";

std::string coords(const std::vector<hsize_t>& offset) {
  std::string s = "(";
  for (size_t i = 0; i < offset.size(); ++i) s += (i ? ", " : "") + std::to_string(offset[i]);
  return s + ")";
}

// RAII for the handles this file opens.
struct Handle {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Handle() {
    if (id >= 0) close(id);
  }
};

// Copies the part of a chunk at `offset` (shape `chunk`, row-major, `elem` bytes per value)
// that lies inside the array of shape `dims` into `out`; edge chunks stick out of the array.
void scatter(const uint8_t* chunk_data, const std::vector<hsize_t>& chunk, const std::vector<hsize_t>& offset,
             const std::vector<hsize_t>& dims, size_t elem, uint8_t* out) {
  const size_t rank = dims.size(), last = rank - 1;
  const hsize_t row = std::min(chunk[last], dims[last] - offset[last]);  // values copied per row
  std::vector<hsize_t> at(rank, 0);  // position inside the chunk; the last index stays 0
  while (true) {
    bool inside = true;
    hsize_t src = 0, dst = 0;
    for (size_t i = 0; i < rank; ++i) {
      inside = inside && offset[i] + at[i] < dims[i];
      src = src * chunk[i] + at[i];
      dst = dst * dims[i] + offset[i] + at[i];
    }
    if (inside) std::memcpy(out + dst * elem, chunk_data + src * elem, row * elem);
    size_t i = last;  // next row: advance the indices before the last one
    while (i > 0 && ++at[i - 1] == chunk[i - 1]) at[--i] = 0;
    if (i == 0) return;
  }
}

}  // namespace

void read_chunked_array(hid_t ds, hid_t mem_type, const std::vector<hsize_t>& dims, void* out,
                        const std::string& what) {
  const size_t rank = dims.size();
  FN_CHECK(rank > 0, what, ": a chunked array needs a rank of at least 1", kRegenerate);
  if (std::find(dims.begin(), dims.end(), hsize_t(0)) != dims.end()) return;  // no values
  Handle dcpl{H5Dget_create_plist(ds), H5Pclose};
  Handle file_type{H5Dget_type(ds), H5Tclose};
  FN_CHECK(dcpl.id >= 0 && file_type.id >= 0, what, ": cannot read its storage properties", kRegenerate);

  // chunk shape and filters: none, or deflate alone
  std::vector<hsize_t> chunk(rank);
  FN_CHECK(H5Pget_chunk(dcpl.id, int(rank), chunk.data()) == int(rank), what, ": its chunks do not have the rank ",
           rank, " of the array", kRegenerate);
  const int filters = H5Pget_nfilters(dcpl.id);
  FN_CHECK(filters == 0 || filters == 1, what, " is stored with ", filters,
           " filters; flashnerd reads arrays without compression or with deflate (gzip) only");
  if (filters == 1) {
    unsigned flags = 0, config = 0;
    size_t values = 0;
    const H5Z_filter_t id = H5Pget_filter2(dcpl.id, 0, &flags, &values, nullptr, 0, nullptr, &config);
    FN_CHECK(id == H5Z_FILTER_DEFLATE, what, " is compressed with HDF5 filter ", id,
             "; flashnerd reads arrays without compression or with deflate (gzip) only");
  }
  // sizes from the file are trusted only up to what the file's bytes can hold
  hsize_t file_size = 0;
  {
    Handle file{H5Iget_file_id(ds), H5Fclose};
    FN_CHECK(file.id >= 0 && H5Fget_filesize(file.id, &file_size) >= 0, what, ": cannot read the file's size");
  }
  const size_t file_elem = H5Tget_size(file_type.id), mem_elem = H5Tget_size(mem_type);
  double values = 1;  // in double: a corrupt chunk shape must not overflow
  for (hsize_t c : chunk) values *= double(c);
  const double max_bytes = kMaxDeflateRatio * double(file_size) + kMaxBytesFromNothing;
  FN_CHECK(values >= 1 && values * double(std::max(file_elem, mem_elem)) <= max_bytes, what, ": chunks of ", values,
           " values cannot come out of a file of ", file_size, " bytes", kRegenerate);
  const size_t chunk_values = size_t(values), chunk_bytes = chunk_values * file_elem;
  const bool convert = H5Tequal(file_type.id, mem_type) <= 0;

  std::vector<uint8_t> raw, data(chunk_values * std::max(file_elem, mem_elem));
  std::vector<hsize_t> offset(rank, 0);
  while (true) {
    // one chunk: stored size, raw bytes, inflated and checked, converted, copied into place
    hsize_t stored = 0;
    FN_CHECK(H5Dget_chunk_storage_size(ds, offset.data(), &stored) >= 0 && stored > 0, what, ": the chunk at ",
             coords(offset), " is missing", kRegenerate);
    FN_CHECK(stored <= file_size, what, ": the chunk at ", coords(offset), " claims ", stored,
             " stored bytes, more than the file's ", file_size, kRegenerate);
    // an unfiltered chunk is read whole whatever its index claims: the claim must be its size
    FN_CHECK(filters == 1 || stored == chunk_bytes, what, ": the chunk at ", coords(offset), " claims ", stored,
             " stored bytes instead of its ", chunk_bytes, kRegenerate);
    // H5Dread_chunk takes its size from the chunk index, which a corrupt file can make
    // disagree with the storage size above (seen: 12 bytes read for 4 claimed); the slack
    // keeps such reads inside our buffer. (Asking the index with H5Dget_chunk_info_by_coord
    // corrupted HDF5's heap on fuzzed files, so it is not called.)
    raw.resize(std::max(size_t(stored), chunk_bytes) + 4096);
    uint32_t mask = 0;
    FN_CHECK(H5Dread_chunk(ds, H5P_DEFAULT, offset.data(), &mask, raw.data()) >= 0, what,
             ": reading the chunk at ", coords(offset), " failed", kRegenerate);
    if (filters == 1 && (mask & 1) == 0) {
      uLongf inflated = uLongf(chunk_bytes);
      const int z = uncompress(data.data(), &inflated, raw.data(), uLong(stored));
      FN_CHECK(z == Z_OK && inflated == chunk_bytes, what, ": the chunk at ", coords(offset),
               " does not inflate to its ", chunk_bytes, " bytes", kRegenerate);
    } else {
      FN_CHECK(size_t(stored) == chunk_bytes, what, ": the chunk at ", coords(offset), " holds ", stored,
               " bytes instead of ", chunk_bytes, kRegenerate);
      std::memcpy(data.data(), raw.data(), chunk_bytes);
    }
    if (convert)
      FN_CHECK(H5Tconvert(file_type.id, mem_type, chunk_values, data.data(), nullptr, H5P_DEFAULT) >= 0, what,
               ": its stored values cannot be converted", kRegenerate);
    scatter(data.data(), chunk, offset, dims, mem_elem, static_cast<uint8_t*>(out));
    // next chunk, last dimension fastest
    size_t i = rank;
    while (i > 0 && (offset[i - 1] += chunk[i - 1]) >= dims[i - 1]) offset[--i] = 0;
    if (i == 0) return;
  }
}

}  // namespace flashnerd
