// A library's option-enum name table (core/enum_names.h) checked through the parse and name
// functions it exports: every name parses to its value and back, and an unknown name is refused
// with the message that lists the choices.
#pragma once

#include <cstddef>
#include <string>

#include <gtest/gtest.h>

#include "core/enum_names.h"
#include "core/error.h"

namespace flashnerd::testing {

template <class E, size_t N, class Parse, class Name>
void expect_enum_names(const EnumName<E> (&table)[N], Parse parse, Name name, const std::string& unknown,
                       const std::string& refusal) {
  for (const auto& e : table) {
    EXPECT_EQ(parse(e.name), e.value) << e.name;
    EXPECT_STREQ(name(e.value), e.name);
  }
  try {
    parse(unknown);
    ADD_FAILURE() << "'" << unknown << "' was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.what(), refusal);
  }
}

}  // namespace flashnerd::testing
