// Errors about one option's value, in the library's own words. An OptionError carries the
// name of the option field it is about ("batch", "refresh.updates", "model"): its what()
// reads "batch: must be divisible by the world size 2". The library never names a
// command-line flag or a Python keyword; each front end maps fields to its own names in one
// table (src/cli/option_fields.cpp, src/python/option_keywords.cpp) and shows the error
// through message(): "--batch: must be ..." on the command line, "batch=: ..." in Python.
// A problem may name other options through option_ref("overwrite"): what() shows the field
// name, message() renames them with the same table. An error about no one field that still
// names options (a run too large for memory: "lower samples or horizon") has an empty field
// and no "field: " prefix.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <utility>

#include "core/error.h"

namespace flashnerd {

// Another option named inside an OptionError's problem; streams as a marked field name
// that OptionError renders (outside an OptionError it would print the marks: don't).
struct OptionRef {
  std::string field;
};
inline OptionRef option_ref(std::string field) { return OptionRef{std::move(field)}; }
constexpr char kOptionRefMark = '\x1f';  // ASCII unit separator: never in a message
inline std::ostream& operator<<(std::ostream& os, const OptionRef& r) {
  return os << kOptionRefMark << r.field << kOptionRefMark;
}

// A row of a front end's table from fields to its own names: {"envs", "--envs"}.
struct OptionName {
  const char* field;  // the library's name
  const char* name;   // the front end's
};
// The name of `field` in `table`; the field itself where the table has none.
template <size_t N>
std::string option_name(const OptionName (&table)[N], const std::string& field) {
  for (const OptionName& row : table)
    if (field == row.field) return row.name;
  return field;
}

class OptionError : public Error {
 public:
  // `problem` is what is wrong with the field and what to do, with option_ref marks.
  OptionError(std::string field, std::string problem)
      : Error(render_message(field, problem, [](const std::string& f) { return f; })),
        field_(std::move(field)),
        problem_(std::move(problem)) {}

  // The option field this error is about, as the library names it; empty for none.
  const std::string& field() const { return field_; }
  // The message with the field and every option_ref named by `name(field) -> string`.
  template <class Namer>
  std::string message(const Namer& name) const {
    return render_message(field_, problem_, name);
  }

 private:
  template <class Namer>
  static std::string render_message(const std::string& field, const std::string& problem, const Namer& name) {
    std::string s = field.empty() ? "" : name(field) + ": ";
    for (size_t i = 0; i < problem.size();) {
      const size_t open = problem.find(kOptionRefMark, i);
      const size_t close = open == std::string::npos ? open : problem.find(kOptionRefMark, open + 1);
      if (close == std::string::npos) {
        s.append(problem, i, std::string::npos);
        break;
      }
      s.append(problem, i, open - i);
      s += name(problem.substr(open + 1, close - open - 1));
      i = close + 1;
    }
    return s;
  }

  std::string field_;
  std::string problem_;
};

}  // namespace flashnerd

// Throw flashnerd::OptionError about `field` with a streamed problem when `cond` is false:
// FN_CHECK_OPTION(batch % world == 0, "batch", "must be divisible by the world size ", world).
#define FN_CHECK_OPTION(cond, field, ...)                                                \
  do {                                                                                   \
    if (!(cond)) throw ::flashnerd::OptionError(field, ::flashnerd::str_cat(__VA_ARGS__)); \
  } while (0)
