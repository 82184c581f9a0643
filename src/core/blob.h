// A minimal binary blob for checkpoints of in-memory state (environment states, RNG states,
// histories): length-prefixed arrays of trivially copyable values, read back with every
// length checked, so a blob from another configuration is refused instead of misread.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.h"

namespace flashnerd {

class BlobWriter {
 public:
  template <class T>
  void put(const T* data, size_t count) {
    static_assert(std::is_trivially_copyable_v<T>);
    const uint64_t bytes = uint64_t(count) * sizeof(T);
    bytes_.append(reinterpret_cast<const char*>(&bytes), sizeof bytes);
    bytes_.append(reinterpret_cast<const char*>(data), size_t(bytes));
  }
  template <class T>
  void put(const std::vector<T>& v) { put(v.data(), v.size()); }
  template <class T>
  void put_value(const T& v) { put(&v, 1); }
  // io(): one field list for saving and loading (a vector's contents, or one value).
  template <class T>
  void io(const std::vector<T>& v) { put(v); }
  template <class T>
  std::enable_if_t<std::is_trivially_copyable_v<T>> io(const T& v) { put_value(v); }
  void io(const std::string& s) { put(s.data(), s.size()); }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

class BlobReader {
 public:
  // Reads `bytes` in place: they must outlive the reader (a temporary is refused at compile time).
  BlobReader(const std::string& bytes, std::string what) : bytes_(&bytes), what_(std::move(what)) {}
  BlobReader(std::string&& bytes, std::string what) = delete;
  // Reads exactly `count` values into data; throws naming the blob when the sizes differ.
  template <class T>
  void get(T* data, size_t count) {
    static_assert(std::is_trivially_copyable_v<T>);
    uint64_t bytes = 0;
    FN_CHECK(pos_ + sizeof bytes <= bytes_->size(), what_, ": truncated state");
    std::memcpy(&bytes, bytes_->data() + pos_, sizeof bytes);
    pos_ += sizeof bytes;
    FN_CHECK(bytes == uint64_t(count) * sizeof(T) && pos_ + bytes <= bytes_->size(), what_,
             ": saved state does not match this configuration (", bytes, " bytes where ",
             uint64_t(count) * sizeof(T), " are expected)");
    std::memcpy(static_cast<void*>(data), bytes_->data() + pos_, size_t(bytes));
    pos_ += size_t(bytes);
  }
  template <class T>
  void get(std::vector<T>& v) { get(v.data(), v.size()); }
  template <class T>
  void get_value(T& v) { get(&v, 1); }
  // io(): as BlobWriter::io; a vector must already have its saved size, a string takes the
  // saved one (a nested blob, checked by its own reader).
  template <class T>
  void io(std::vector<T>& v) { get(v); }
  template <class T>
  std::enable_if_t<std::is_trivially_copyable_v<T>> io(T& v) { get_value(v); }
  void io(std::string& s) {
    uint64_t bytes = 0;
    FN_CHECK(pos_ + sizeof bytes <= bytes_->size(), what_, ": truncated state");
    std::memcpy(&bytes, bytes_->data() + pos_, sizeof bytes);
    FN_CHECK(bytes <= bytes_->size() - pos_ - sizeof bytes, what_, ": truncated state");
    s.resize(size_t(bytes));
    get(s.data(), s.size());
  }
  void expect_end() const { FN_CHECK(pos_ == bytes_->size(), what_, ": trailing bytes in saved state"); }

 private:
  const std::string* bytes_;
  std::string what_;
  size_t pos_ = 0;
};

// One field list for saving and loading: an object names its fields once, in a function of a
// StateIo, and that function saves them (over a BlobWriter) or loads them (over a BlobReader).
class StateIo {
 public:
  explicit StateIo(BlobWriter& writer) : writer_(&writer) {}
  explicit StateIo(BlobReader& reader) : reader_(&reader) {}
  template <class T>
  void io(T& value) {
    if (writer_ != nullptr) {
      writer_->io(value);
    } else {
      reader_->io(value);
    }
  }

 private:
  BlobWriter* writer_ = nullptr;
  BlobReader* reader_ = nullptr;
};

}  // namespace flashnerd
