// The safetensors reader refuses malformed headers with the file, the tensor and the real
// problem: misaligned offsets, overlapping tensors, impossible shapes, fields of the wrong type.
#include "core/safetensors.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

namespace flashnerd {
namespace {

// A file with this JSON header and `data_bytes` zero bytes of data.
std::string file_with(const std::string& header, size_t data_bytes) {
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(char((uint64_t(header.size()) >> (8 * i)) & 0xff));
  return out + header + std::string(data_bytes, '\0');
}

std::string parse_error(const std::string& bytes) {
  try {
    SafetensorsFile::parse(bytes, "w.safetensors");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Safetensors, RoundTrip) {
  const float a[6] = {1, 2, 3, 4, 5, 6}, b[2] = {7, 8};
  auto f = SafetensorsFile::parse(safetensors_serialize({{"a", {2, 3}, a}, {"b", {2}, b}}), "mem");
  EXPECT_EQ(f.get("a", {2, 3}).data[5], 6.f);
  EXPECT_EQ(f.get("b", {2}).data[1], 8.f);
}

TEST(Safetensors, MisalignedTensorIsNamedAsSuch) {
  const std::string e = parse_error(file_with(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[2,10]}})", 12));
  EXPECT_NE(e.find("w.safetensors: tensor 'a' starts at data byte 2, not a multiple of 4"), std::string::npos) << e;
}

TEST(Safetensors, OverlappingTensorsAreRefused) {
  const std::string e = parse_error(file_with(
      R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})", 16));
  EXPECT_NE(e.find("overlapping data_offsets"), std::string::npos) << e;
  // a tensor inside a longer earlier one, not adjacent to the last one checked
  const std::string e2 = parse_error(file_with(
      R"({"a":{"dtype":"F32","shape":[8],"data_offsets":[0,32]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]},)"
      R"("c":{"dtype":"F32","shape":[1],"data_offsets":[12,16]}})", 32));
  EXPECT_NE(e2.find("overlapping"), std::string::npos) << e2;
}

TEST(Safetensors, MalformedFieldsNameTheTensor) {
  std::string e = parse_error(file_with(R"({"a":{"dtype":"F32","shape":"two","data_offsets":[0,8]}})", 8));
  EXPECT_NE(e.find("w.safetensors: header entry 'a' is malformed"), std::string::npos) << e;
  e = parse_error(file_with(R"({"a":{"dtype":"F32","shape":[2]}})", 8));
  EXPECT_NE(e.find("header entry 'a' is malformed"), std::string::npos) << e;
  e = parse_error(file_with(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}})", 8));
  EXPECT_NE(e.find("tensor 'a' has shape"), std::string::npos) << e;
  e = parse_error(file_with(R"({"__metadata__":{"format":3}})", 0));
  EXPECT_NE(e.find("header entry '__metadata__' is malformed"), std::string::npos) << e;
}

// A float where an integer belongs was cast to int64, undefined behaviour out of range (fuzz).
TEST(Safetensors, NonIntegerShapesAndOffsetsAreRefused) {
  std::string e = parse_error(file_with(R"({"a":{"dtype":"F32","shape":[3.9e19],"data_offsets":[0,8]}})", 8));
  EXPECT_NE(e.find("header entry 'a' is malformed: field 'shape'[0] has the wrong type: expected an integer"),
            std::string::npos) << e;
  e = parse_error(file_with(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,1e30]}})", 8));
  EXPECT_NE(e.find("field 'data_offsets'[1] has the wrong type"), std::string::npos) << e;
  e = parse_error(file_with(R"({"a":{"dtype":"F32","shape":[2.5],"data_offsets":[0,8]}})", 8));
  EXPECT_NE(e.find("got 2.5"), std::string::npos) << e;
}

}  // namespace
}  // namespace flashnerd
