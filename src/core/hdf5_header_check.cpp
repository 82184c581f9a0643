#include "core/hdf5_header_check.h"

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <utility>
#include <vector>

#include "core/error.h"

namespace flashnerd {

namespace {

// Layout of the HDF5 file format specification, version 1 object headers (section IV.A).
constexpr uint32_t kMessageAttribute = 0x000C;
constexpr uint32_t kMessageContinuation = 0x0010;
constexpr uint8_t kMessageShared = 0x02;      // message flags: stored elsewhere, only a reference here
constexpr uint8_t kAttributeSharedType = 0x01;  // attribute flags (v2, v3): datatype stored elsewhere
constexpr int kMaxChunks = 64;                  // continuation chunks followed per header
constexpr uint64_t kMaxChunkBytes = 1 << 26;    // headers are small; a larger chunk is corrupt
constexpr int kMaxRank = 32;                    // H5S_MAX_RANK

const char* kRegenerate = "; the file is corrupted: regenerate it with 'flashnerd gen'";

// Bounds-checked little-endian reads from one span; `what` names the span in errors.
class Reader {
 public:
  Reader(const uint8_t* data, uint64_t size, std::string what) : data_(data), size_(size), what_(std::move(what)) {}
  uint64_t left() const { return size_ - pos_; }
  const uint8_t* here() const { return data_ + pos_; }
  void need(uint64_t bytes) const {
    FN_CHECK(bytes <= left(), what_, " needs ", bytes, " more bytes but only ", left(), " are left", kRegenerate);
  }
  uint64_t u(int bytes) {
    need(uint64_t(bytes));
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t(data_[pos_ + uint64_t(i)]) << (8 * i);
    pos_ += uint64_t(bytes);
    return v;
  }
  void rename(std::string what) { what_ = std::move(what); }
  void skip(uint64_t bytes) {
    need(bytes);
    pos_ += bytes;
  }

 private:
  const uint8_t* data_;
  uint64_t size_;
  uint64_t pos_ = 0;
  std::string what_;
};

struct FileSizes {
  int offsets;  // bytes of an address
  int lengths;  // bytes of a length
};

uint64_t align8(uint64_t n) { return (n + 7) / 8 * 8; }

// Element size of a datatype message in the file; 0 when the class has no fixed size we check.
uint64_t datatype_size(const uint8_t* data, uint64_t size, const FileSizes& sizes, const std::string& what) {
  Reader r(data, size, what);
  const uint64_t class_version = r.u(1);
  const uint64_t type_class = class_version & 0x0f, version = class_version >> 4;
  FN_CHECK(version >= 1 && version <= 4 && type_class <= 10, what, " has datatype class ", type_class,
           " version ", version, ", not a valid HDF5 datatype", kRegenerate);
  r.skip(3);  // class bit fields
  const uint64_t element = r.u(4);
  switch (type_class) {
    case 0: r.need(4); return element;   // fixed-point: offset, precision
    case 1: r.need(12); return element;  // floating-point: offset, precision, exponent and mantissa fields
    case 3: return element;              // string: no properties
    case 9:                              // variable-length: its base type follows
      datatype_size(r.here(), r.left(), sizes, what);
      return 4 + uint64_t(sizes.offsets) + 4;  // length + global heap id, as libhdf5 stores it on disk
    default: return 0;
  }
}

// Number of points of a dataspace message.
uint64_t dataspace_points(const uint8_t* data, uint64_t size, const FileSizes& sizes, const std::string& what) {
  Reader r(data, size, what);
  const uint64_t version = r.u(1), rank = r.u(1), flags = r.u(1);
  FN_CHECK((version == 1 || version == 2) && rank <= kMaxRank, what, " has dataspace version ", version, " rank ",
           rank, ", not a valid HDF5 dataspace", kRegenerate);
  uint64_t kind = rank > 0 ? 1 : 0;  // version 1: scalar or simple
  if (version == 1) {
    r.skip(5);
  } else {
    kind = r.u(1);  // 0 scalar, 1 simple, 2 null
  }
  uint64_t points = kind == 2 ? 0 : 1;
  for (uint64_t i = 0; i < rank; ++i) {
    const uint64_t dim = r.u(sizes.lengths);
    points = dim != 0 && points > UINT64_MAX / dim ? UINT64_MAX : points * dim;
  }
  if (flags & 1) r.skip(rank * uint64_t(sizes.lengths));  // maximum dimensions
  return points;
}

// Checks one attribute message (versions 1-3) against its size.
void check_attribute(const uint8_t* data, uint64_t size, const FileSizes& sizes, const std::string& where) {
  Reader r(data, size, where);
  const uint64_t version = r.u(1), flags_byte = r.u(1);
  FN_CHECK(version >= 1 && version <= 3, where, " has version ", version, " (1 to 3 exist)", kRegenerate);
  const uint64_t flags = version >= 2 ? flags_byte : 0;  // reserved in version 1, ignored by libhdf5
  const uint64_t name_size = r.u(2), type_size = r.u(2), space_size = r.u(2);
  if (version == 3) r.skip(1);  // name encoding
  auto field = [&](uint64_t n) { return version == 1 ? align8(n) : n; };  // version 1 pads each field to 8
  // the name, NUL-terminated inside its field
  r.need(name_size);
  const std::string name(reinterpret_cast<const char*>(r.here()), name_size > 0 ? name_size - 1 : 0);
  const std::string what = where + " ('" + name.substr(0, name.find('\0')) + "')";
  r.rename(what);
  // libhdf5 fails on a name whose length differs from the stored one (and crashed in
  // H5Aiterate2 cleaning up after that failure, found by fuzzing)
  FN_CHECK(name_size > 0 && r.here()[name_size - 1] == 0 && name.find('\0') == std::string::npos, what,
           " has a name that is not one NUL-terminated string of ", name_size, " bytes", kRegenerate);
  r.skip(field(name_size));
  r.need(type_size);
  const uint64_t element = (flags & kAttributeSharedType) ? 0 : datatype_size(r.here(), type_size, sizes, what + ": datatype");
  r.skip(field(type_size));
  r.need(space_size);
  const uint64_t points = dataspace_points(r.here(), space_size, sizes, what + ": dataspace");
  r.skip(field(space_size));
  FN_CHECK(element == 0 || points <= r.left() / element, what, " holds ", points, " values of ", element,
           " bytes but its message has ", r.left(), " bytes left for them", kRegenerate);
}

// The raw bytes of the file at relative address `address` (after the user block).
std::vector<uint8_t> read_at(std::ifstream& in, uint64_t file_size, uint64_t base, uint64_t address, uint64_t bytes,
                             const std::string& what) {
  const uint64_t begin = base + address;
  FN_CHECK(begin >= base && bytes <= kMaxChunkBytes && begin <= file_size && bytes <= file_size - begin, what,
           " at byte ", begin, " with ", bytes, " bytes lies outside the file's ", file_size, " bytes",
           kRegenerate);
  std::vector<uint8_t> out(bytes);
  in.seekg(std::streamoff(begin));
  in.read(reinterpret_cast<char*>(out.data()), std::streamsize(bytes));
  FN_CHECK(in.good(), what, ": reading ", bytes, " bytes at byte ", begin, " failed", kRegenerate);
  return out;
}

// The first chunk of the object header at file byte `at` (version 1 or 2) must fit in the file.
void check_header_prefix(std::ifstream& in, uint64_t file_size, uint64_t at, const std::string& what) {
  FN_CHECK(at < file_size && file_size - at >= 16, what, " at byte ", at, " lies outside the file's ", file_size,
           " bytes", kRegenerate);
  uint8_t p[48] = {};
  in.seekg(std::streamoff(at));
  in.read(reinterpret_cast<char*>(p), std::streamsize(std::min<uint64_t>(sizeof p, file_size - at)));
  uint64_t chunk = 0;
  if (std::memcmp(p, "OHDR", 4) == 0) {  // version 2: flags decide the optional fields
    const uint8_t flags = p[5];
    size_t off = 6 + ((flags & 0x20) ? 16 : 0) + ((flags & 0x10) ? 4 : 0);
    const int width = 1 << (flags & 3);
    for (int i = 0; i < width; ++i) chunk |= uint64_t(p[off + size_t(i)]) << (8 * i);
  } else {
    FN_CHECK(p[0] == 1, what, " at byte ", at, " has object header version ", int(p[0]), kRegenerate);
    for (int i = 0; i < 4; ++i) chunk |= uint64_t(p[8 + i]) << (8 * i);
  }
  FN_CHECK(chunk <= kMaxChunkBytes && chunk <= file_size - at, what, " at byte ", at, " claims ", chunk,
           " bytes; the file holds ", file_size - at, " past it", kRegenerate);
}

// Calls on_message(type, flags, data, size, where) for every message of the version-1 object
// header at `addr`, following continuation chunks; each chunk (address, length) must lie in the
// file, since libhdf5 allocates a chunk's claimed length when it loads the header. Version-2
// headers (checksummed, verified by libhdf5) are skipped.
template <class OnMessage>
void walk_v1_header(std::ifstream& in, uint64_t file_size, uint64_t base, uint64_t addr, const FileSizes& sizes,
                    const std::string& what, OnMessage on_message) {
  const std::vector<uint8_t> prefix = read_at(in, file_size, base, addr, 16, what);
  if (std::memcmp(prefix.data(), "OHDR", 4) == 0 || prefix[0] != 1) return;
  Reader p(prefix.data(), prefix.size(), what);
  p.skip(8);  // version, reserved, message count, reference count
  std::vector<std::pair<uint64_t, uint64_t>> chunks = {{addr + 16, p.u(4)}};  // (address, bytes)
  for (size_t c = 0; c < chunks.size(); ++c) {
    FN_CHECK(c < size_t(kMaxChunks), what, " has more than ", kMaxChunks, " continuation chunks", kRegenerate);
    const std::string where = what + ", chunk " + std::to_string(c);
    const std::vector<uint8_t> chunk = read_at(in, file_size, base, chunks[c].first, chunks[c].second, where);
    Reader r(chunk.data(), chunk.size(), where);
    while (r.left() >= 8) {  // message: type (2), size (2), flags (1), reserved (3), data
      const uint64_t type = r.u(2), size = r.u(2), flags = r.u(1);
      r.skip(3);
      r.need(size);
      if (type == kMessageContinuation) {
        Reader m(r.here(), size, where + ": continuation message");
        const uint64_t address = m.u(sizes.offsets);
        chunks.emplace_back(address, m.u(sizes.lengths));
      } else {
        on_message(type, flags, r.here(), size);
      }
      r.skip(size);
    }
  }
}

// The object header at `addr` cannot make libhdf5 allocate more than the file holds.
void check_object_header(std::ifstream& in, uint64_t file_size, uint64_t base, uint64_t addr, const FileSizes& sizes,
                         const std::string& what) {
  check_header_prefix(in, file_size, base + addr, what);  // version 2: chunk 0's size
  walk_v1_header(in, file_size, base, addr, sizes, what, [](uint64_t, uint64_t, const uint8_t*, uint64_t) {});
}

}  // namespace

void check_root_object_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  FN_CHECK(in, path, ": cannot open the file");
  const uint64_t file_size = uint64_t(in.tellg());
  // the superblock is at 0, 512, 1024, ... (after a user block)
  static const uint8_t kSignature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  uint64_t base = 0;
  uint8_t sb[96] = {};
  for (;; base = base ? base * 2 : 512) {
    FN_CHECK(base + 8 <= file_size, path, ": no HDF5 superblock", kRegenerate);
    in.seekg(std::streamoff(base));
    std::memset(sb, 0, sizeof sb);
    in.read(reinterpret_cast<char*>(sb), std::streamsize(std::min<uint64_t>(sizeof sb, file_size - base)));
    if (std::memcmp(sb, kSignature, 8) == 0) break;
  }
  const int version = sb[8];
  FN_CHECK(version <= 3, path, ": superblock version ", version, " is unknown", kRegenerate);
  const int offsets = version <= 1 ? sb[13] : sb[9];
  FN_CHECK(offsets == 4 || offsets == 8, path, ": superblock address size ", offsets, kRegenerate);
  auto address = [&](size_t at) {
    uint64_t v = 0;
    for (int i = 0; i < offsets; ++i) v |= uint64_t(sb[at + size_t(i)]) << (8 * i);
    return v;
  };
  // versions 0/1: fixed fields, 4 addresses, then the root symbol table entry (link name
  // offset, object header address); versions 2/3: base, extension, EOF, root header address
  const size_t fixed = version == 0 ? 24 : version == 1 ? 28 : 12;
  const size_t root_at = version <= 1 ? fixed + 5 * size_t(offsets) : fixed + 3 * size_t(offsets);
  const uint64_t root = address(root_at);
  FN_CHECK(root < file_size, path, ": the root group's header address ", root, " lies outside the file", kRegenerate);
  const std::string what = path + ": the root group's object header";
  const int lengths = version <= 1 ? sb[14] : sb[10];
  FN_CHECK(lengths == 4 || lengths == 8, path, ": superblock length size ", lengths, kRegenerate);
  check_object_header(in, file_size, base, root, FileSizes{offsets, lengths}, what);
}

void check_linked_object_header(hid_t file, const char* name, const std::string& path) {
  H5L_info_t link;
  FN_CHECK(H5Lget_info(file, name, &link, H5P_DEFAULT) >= 0, path, ": cannot read the link '", name, "'", kRegenerate);
  if (link.type != H5L_TYPE_HARD) return;
  hsize_t user_block = 0;
  size_t offsets = 0, lengths = 0;
  const hid_t fcpl = H5Fget_create_plist(file);
  const bool ok = fcpl >= 0 && H5Pget_sizes(fcpl, &offsets, &lengths) >= 0 && H5Pget_userblock(fcpl, &user_block) >= 0;
  if (fcpl >= 0) H5Pclose(fcpl);
  FN_CHECK(ok && (offsets == 4 || offsets == 8) && (lengths == 4 || lengths == 8), path,
           ": cannot read the file's address sizes", kRegenerate);
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  FN_CHECK(in, path, ": cannot open the file");
  check_object_header(in, uint64_t(in.tellg()), user_block, link.u.address, FileSizes{int(offsets), int(lengths)},
                      path + ": the object header of '" + name + "'");
}

void check_attribute_messages(hid_t file, hid_t obj, const std::string& path) {
  H5O_info_t info;
  FN_CHECK(H5Oget_info2(obj, &info, H5O_INFO_BASIC) >= 0, path, ": cannot read an object header", kRegenerate);
  FileSizes sizes{};
  hsize_t user_block = 0;
  {
    const hid_t fcpl = H5Fget_create_plist(file);
    size_t offsets = 0, lengths = 0;
    const bool ok = fcpl >= 0 && H5Pget_sizes(fcpl, &offsets, &lengths) >= 0 &&
                    H5Pget_userblock(fcpl, &user_block) >= 0;
    if (fcpl >= 0) H5Pclose(fcpl);
    FN_CHECK(ok && (offsets == 4 || offsets == 8) && (lengths == 4 || lengths == 8), path,
             ": cannot read the file's address sizes", kRegenerate);
    sizes = FileSizes{int(offsets), int(lengths)};
  }
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  FN_CHECK(in, path, ": cannot open the file to check its headers");
  const uint64_t file_size = uint64_t(in.tellg());
  const std::string header = path + ": object header at byte " + std::to_string(user_block + info.addr);

  int attribute = 0;
  walk_v1_header(in, file_size, user_block, info.addr, sizes, header,
                 [&](uint64_t type, uint64_t flags, const uint8_t* data, uint64_t size) {
                   if (type == kMessageAttribute && !(flags & kMessageShared))
                     check_attribute(data, size, sizes, header + ": attribute message " + std::to_string(attribute++));
                 });
}

}  // namespace flashnerd
