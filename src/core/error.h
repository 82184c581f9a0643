// Errors, three levels (CONTRIBUTING.md, rule 6): argument and file errors at the API throw
// flashnerd::Error with a message naming the thing and the fix; internal invariants use
// FN_ASSERT; numerical divergence in a rollout is data (per-environment flags), never thrown.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

namespace flashnerd {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

namespace detail {
inline void format_into(std::ostringstream&) {}
template <typename T, typename... Rest>
void format_into(std::ostringstream& os, const T& first, const Rest&... rest) {
  os << first;
  format_into(os, rest...);
}
}  // namespace detail

// Concatenates the arguments with operator<< into one string.
template <typename... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream os;
  detail::format_into(os, args...);
  return os.str();
}

}  // namespace flashnerd

// Throw flashnerd::Error with a streamed message when `cond` is false.
#define FN_CHECK(cond, ...)                                             \
  do {                                                                  \
    if (!(cond)) throw ::flashnerd::Error(::flashnerd::str_cat(__VA_ARGS__)); \
  } while (0)

// Internal invariant: a bug in FlashNeRD, not in the caller's input. Kept in release builds.
#define FN_ASSERT(cond)                                                                   \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      std::fprintf(stderr, "flashnerd: internal invariant failed at %s:%d: %s\n", __FILE__, \
                   __LINE__, #cond);                                                      \
      std::abort();                                                                       \
    }                                                                                     \
  } while (0)
