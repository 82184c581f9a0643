#include "core/blob.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace flashnerd {
namespace {

// An object with one field list for saving and loading, as tasks, backends and VecEnv have.
struct Fields {
  std::vector<double> values = std::vector<double>(3);
  int count = 0;
  std::string nested;
  void io_state(StateIo& io) {
    io.io(values);
    io.io(count);
    io.io(nested);
  }
};

TEST(StateIo, OneFieldListSavesAndLoadsTheSameBits) {
  Fields a;
  a.values = {1.5, -2.0, 1e-300};
  a.count = 7;
  a.nested = std::string("a\0b", 3);
  BlobWriter w;
  StateIo saving(w);
  a.io_state(saving);

  Fields b;
  BlobReader r(w.bytes(), "fields");
  StateIo loading(r);
  b.io_state(loading);
  r.expect_end();
  EXPECT_EQ(b.values, a.values);
  EXPECT_EQ(b.count, a.count);
  EXPECT_EQ(b.nested, a.nested);
}

TEST(StateIo, RefusesABlobOfAnotherConfiguration) {
  Fields a;
  BlobWriter w;
  StateIo saving(w);
  a.io_state(saving);

  Fields wider;
  wider.values.resize(4);
  BlobReader r(w.bytes(), "fields");
  StateIo loading(r);
  try {
    wider.io_state(loading);
    FAIL() << "a blob of 3 values loaded into 4";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fields: saved state does not match"), std::string::npos) << e.what();
  }
  const std::string truncated = w.bytes().substr(0, w.bytes().size() - 1);
  Fields c;
  BlobReader short_reader(truncated, "fields");
  StateIo short_loading(short_reader);
  EXPECT_THROW(c.io_state(short_loading), Error);
}

}  // namespace
}  // namespace flashnerd
