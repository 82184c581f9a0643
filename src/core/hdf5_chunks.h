// Reads a chunked HDF5 array chunk by chunk (H5Dread_chunk, then zlib), checking what
// libhdf5 1.10's own H5Dread trusts: every chunk is present, its stored size fits in the file
// and it inflates to exactly the chunk's size. H5Dread copied a chunk whose index entry was
// corrupt past the end of its buffer (found by fuzz/dataset_fuzz.cpp).
// Compression: none or deflate (what flashnerd gen and h5py's compression="gzip" write).
#pragma once

#include <hdf5.h>

#include <string>
#include <vector>

namespace flashnerd {

// deflate compresses at most about 1032:1: more bytes than this many times the file's size
// cannot come out of it (a corrupt shape, chunk size or attribute), plus a little for tiny files
constexpr double kMaxDeflateRatio = 1100;
constexpr double kMaxBytesFromNothing = 65536;

// Reads the whole chunked array `ds` of shape `dims` into `out` as `mem_type` (converted from
// the stored type when they differ). Throws flashnerd::Error naming `what` (the file and the
// array) on a missing, oversized or corrupt chunk or an unsupported filter; allocates at most
// one chunk, bounded by the file's size.
void read_chunked_array(hid_t ds, hid_t mem_type, const std::vector<hsize_t>& dims, void* out,
                        const std::string& what);

}  // namespace flashnerd
