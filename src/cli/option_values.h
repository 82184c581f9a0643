// Typed option values: range checks as CLI11 validators and enum options through one name
// table. CLI11 runs a validator on each value given on the command line (not on the default)
// and prefixes its message with the flag: "--steps: must be >= 1, got 0".
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/enum_names.h"

namespace flashnerd::cli {

// A finite number in [lo, hi] ("must be in [lo, hi], got X").
CLI::Validator in_range(double lo, double hi);
// A finite number in [lo, hi) ("must be in [lo, hi), got X").
CLI::Validator in_range_below(double lo, double hi);
// A finite number >= lo ("must be >= lo, got X").
CLI::Validator at_least(double lo);
// A finite number > 0 ("must be positive, got X").
CLI::Validator positive();

// Adds to every option of every subcommand of `app` the checks no option may skip: each number
// in a value (alone, or in a list "0.5,0,1" / "1,0,0;0,1,0" / "alive=2") finite, written in range ("1e400" is
// refused, not read as infinity), and seeds (options named --seed or --*-seed) integers in
// 0..2^64-1 ("-1" is refused, not wrapped). Call once, after every command is registered.
void check_every_value(CLI::App& app);

// An enum's names, one entry per value; the table the option parses with and prints from.
template <class E>
using NameTable = std::vector<std::pair<std::string, E>>;

// A table from one of the library's (core/enum_names.h).
template <class E, size_t N>
NameTable<E> names_of(const EnumName<E> (&table)[N]) {
  NameTable<E> t;
  for (const auto& e : table) t.push_back({e.name, e.value});
  return t;
}
// A table of `values` named by the library's name function.
template <class E>
NameTable<E> names_of(std::initializer_list<E> values, const char* (*name)(E)) {
  NameTable<E> t;
  for (E v : values) t.push_back({name(v), v});
  return t;
}
// The same for the library's list of every value (e.g. kAllActivations).
template <class E, size_t N>
NameTable<E> names_of(const E (&values)[N], const char* (*name)(E)) {
  NameTable<E> t;
  for (E v : values) t.push_back({name(v), v});
  return t;
}

// "a, b or c": the names of a table, as an error message offers them.
template <class E>
std::string table_choices(const NameTable<E>& table) {
  std::string s;
  for (size_t i = 0; i < table.size(); ++i)
    s += (i == 0 ? "" : i + 1 == table.size() ? " or " : ", ") + table[i].first;
  return s;
}

// on | off: a bool option's names.
const NameTable<bool>& on_off();

// Turns a table's names into its values (other names are refused with the choices), for
// CLI11's transform.
template <class E>
CLI::Validator by_name(const NameTable<E>& table) {
  const std::string choices = table_choices(table);
  std::string names;  // the help's "{a,b,c}", as CLI11's IsMember shows a set
  for (const auto& entry : table) names += (names.empty() ? "" : ",") + entry.first;
  return CLI::Validator(
      [table, choices](std::string& in) -> std::string {
        for (const auto& [name, v] : table)
          if (in == name) {
            in = std::to_string(static_cast<long long>(v));
            return {};
          }
        return "must be one of " + choices + ", got '" + in + "'";
      },
      "{" + names + "}");
}

// Binds `value` to `flag` by name; the help shows the default's name.
template <class E>
CLI::Option* add_enum_option(CLI::App& sub, const std::string& flag, E& value, const NameTable<E>& table,
                             const std::string& help) {
  CLI::Option* opt = sub.add_option(flag, value, help)->transform(by_name(table));
  for (const auto& [name, v] : table)
    if (v == value) opt->default_str(name);
  return opt;
}

// Binds an optional `value` to `flag` by name: unset unless the flag is given.
template <class E>
CLI::Option* add_enum_option(CLI::App& sub, const std::string& flag, std::optional<E>& value,
                             const NameTable<E>& table, const std::string& help) {
  return sub.add_option(flag, value, help)->transform(by_name(table));
}

}  // namespace flashnerd::cli
