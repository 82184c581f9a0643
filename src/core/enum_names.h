// Name tables of option enums: one table per enum serves its name, its parser
// and the list of choices an error message offers, so the three never disagree.
#pragma once

#include <cstddef>
#include <string>

#include "core/error.h"

namespace flashnerd {

template <class E>
struct EnumName {
  E value;
  const char* name;
};

// The name of value; "?" for a value outside the table.
template <class E, size_t N>
const char* enum_name(const EnumName<E> (&table)[N], E value) {
  for (const auto& t : table)
    if (t.value == value) return t.name;
  return "?";
}

// The entry named s, or nullptr.
template <class E, size_t N>
const EnumName<E>* find_enum(const EnumName<E> (&table)[N], const std::string& s) {
  for (const auto& t : table)
    if (s == t.name) return &t;
  return nullptr;
}

// Every name, as an error message lists them: "a, b or c".
template <class E, size_t N>
std::string enum_choices(const EnumName<E> (&table)[N]) {
  std::string s;
  for (size_t i = 0; i < N; ++i) s += std::string(i == 0 ? "" : i + 1 == N ? " or " : ", ") + table[i].name;
  return s;
}

// The value named s; an unknown name throws "unknown WHAT 'S': expected a, b or c".
template <class E, size_t N>
E parse_enum(const EnumName<E> (&table)[N], const std::string& s, const char* what) {
  if (const auto* e = find_enum(table, s)) return e->value;
  throw Error(str_cat("unknown ", what, " '", s, "': expected ", enum_choices(table)));
}

}  // namespace flashnerd
