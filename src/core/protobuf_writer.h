// A protocol-buffers message written field by field (the wire format only, no schema): what
// an ONNX file needs without linking protobuf. Fields are appended in the order written;
// nested messages are written into their own ProtoWriter and added as bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace flashnerd {

class ProtoWriter {
 public:
  // int32, int64, enum and bool fields (wire type 0); negative values as 10-byte varints.
  ProtoWriter& varint(int field, int64_t value) {
    tag(field, 0);
    put_varint(uint64_t(value));
    return *this;
  }
  // float fields (wire type 5, little-endian IEEE 754).
  ProtoWriter& fixed32(int field, float value) {
    tag(field, 5);
    char b[4];
    std::memcpy(b, &value, 4);
    out_.append(b, 4);
    return *this;
  }
  // string, bytes and packed repeated fields (wire type 2).
  ProtoWriter& bytes(int field, const std::string& value) {
    tag(field, 2);
    put_varint(value.size());
    out_ += value;
    return *this;
  }
  ProtoWriter& message(int field, const ProtoWriter& m) { return bytes(field, m.out_); }

  const std::string& data() const { return out_; }

 private:
  void tag(int field, int wire_type) { put_varint((uint64_t(field) << 3) | uint64_t(wire_type)); }
  void put_varint(uint64_t v) {
    while (v >= 0x80) {
      out_ += char((v & 0x7f) | 0x80);
      v >>= 7;
    }
    out_ += char(v);
  }
  std::string out_;
};

}  // namespace flashnerd
