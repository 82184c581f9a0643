#include "cli/option_values.h"

#include <cmath>
#include <cstdio>
#include <functional>

namespace flashnerd::cli {

namespace {

// Integers as integers (1048576, not 1.04858e+06), other values by %g.
std::string number_text(double x) {
  char b[64];
  if (std::isfinite(x) && std::abs(x) < 1e15 && x == std::floor(x))
    std::snprintf(b, sizeof b, "%.0f", x);
  else
    std::snprintf(b, sizeof b, "%g", x);
  return b;
}

// A validator accepting the finite numbers for which ok(x) holds; `rule` says which.
CLI::Validator number_check(std::function<bool(double)> ok, const std::string& rule, const std::string& desc) {
  return CLI::Validator(
      [ok, rule](std::string& in) -> std::string {
        double x = 0;
        const bool parsed = CLI::detail::lexical_cast(in, x);
        if (parsed && std::isfinite(x) && ok(x)) return {};
        return "must be " + rule + ", got " + in;
      },
      desc);
}

}  // namespace

const NameTable<bool>& on_off() {
  static const NameTable<bool> names = {{"on", true}, {"off", false}};
  return names;
}

CLI::Validator in_range(double lo, double hi) {
  const std::string r = "[" + number_text(lo) + ", " + number_text(hi) + "]";
  return number_check([lo, hi](double x) { return x >= lo && x <= hi; }, "in " + r, r);
}

CLI::Validator in_range_below(double lo, double hi) {
  const std::string r = "[" + number_text(lo) + ", " + number_text(hi) + ")";
  return number_check([lo, hi](double x) { return x >= lo && x < hi; }, "in " + r, r);
}

CLI::Validator at_least(double lo) {
  const std::string r = ">= " + number_text(lo);
  return number_check([lo](double x) { return x >= lo; }, r, r);
}

CLI::Validator positive() {
  return number_check([](double x) { return x > 0; }, "positive", "> 0");
}

}  // namespace flashnerd::cli
