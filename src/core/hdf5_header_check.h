// A guard run before libhdf5 decodes an object's attributes. libhdf5 1.10 trusts the size
// fields inside attribute messages and reads past the message when one is corrupt: a one-byte
// flip in a dataset crashed H5Aexists with SIGSEGV. This reads the object header's
// raw bytes itself and checks every attribute message's name, datatype, dataspace and value
// sizes against the message, so a corrupt file is refused with an error instead.
// Version-1 object headers (what flashnerd and h5py write by default) have no checksum and are
// checked; version-2 headers carry a checksum that libhdf5 verifies, so they are left to it.
#pragma once

#include <hdf5.h>

#include <string>

namespace flashnerd {

// Throws flashnerd::Error naming `path` and the message when an attribute message of the
// object `obj` (in the open file `file`) does not fit in its header.
void check_attribute_messages(hid_t file, hid_t obj, const std::string& path);

// Run before H5Fopen: reads the superblock (versions 0-3) and the root group's object header
// prefix from the raw bytes and refuses a header whose first chunk claims more bytes than the
// file holds. libhdf5 allocates that claimed size before reading it (a 4 GB request from a
// one-field corruption, found by fuzz/dataset_fuzz.cpp).
void check_root_object_header(const std::string& path);
// The same for the object the hard link `name` points to, before H5Dopen2.
void check_linked_object_header(hid_t file, const char* name, const std::string& path);

}  // namespace flashnerd
