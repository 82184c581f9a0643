#include "cli/option_values.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

// The numbers a value holds: the whole value, or its parts between ',', ';', '=', ':' and spaces.
std::vector<std::string> number_parts(const std::string& value) {
  std::vector<std::string> parts;
  std::string part;
  for (char c : value + ',') {
    if (c == ',' || c == ';' || c == '=' || c == ':' || c == ' ') {
      if (!part.empty()) parts.push_back(part);
      part.clear();
    } else {
      part += c;
    }
  }
  return parts;
}

// The text as a number when it is one, whole ("nan", "-inf" and "1e400" count: strtod reads
// them, which is why they are refused).
bool reads_as_number(const std::string& text, double& x) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  x = std::strtod(begin, &end);
  if (end == begin || *end != '\0') return false;
  if (errno == ERANGE && std::abs(x) > 1) x = std::copysign(HUGE_VAL, x);  // overflow, not underflow
  return true;
}

CLI::Validator finite_numbers() {
  return CLI::Validator(
      [](std::string& in) -> std::string {
        double x = 0;
        for (const std::string& part : number_parts(in))
          if (reads_as_number(part, x) && !std::isfinite(x))
            return std::string(part == in ? "must be a finite number" : "must hold only finite numbers") + ", got " + in;
        return {};
      },
      "");
}

CLI::Validator seed_value() {
  return CLI::Validator(
      [](std::string& in) -> std::string {
        const bool digits = !in.empty() && in.find_first_not_of("0123456789") == std::string::npos;
        errno = 0;
        if (digits) std::strtoull(in.c_str(), nullptr, 10);
        if (digits && errno != ERANGE) return {};
        return "a seed is an integer in 0..18446744073709551615 (2^64-1), got " + in;
      },
      "");
}

bool is_seed_option(const CLI::Option& opt) {
  const std::string name = opt.get_name(false, true);
  return name == "--seed" || (name.size() > 5 && name.compare(name.size() - 5, 5, "-seed") == 0);
}

}  // namespace

void check_every_value(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({})) {
    for (CLI::Option* opt : sub->get_options()) {
      if (opt->get_type_size_max() == 0 || opt->get_name().empty()) continue;  // flags and help
      if (is_seed_option(*opt)) opt->check(seed_value());
      opt->check(finite_numbers());
    }
    check_every_value(*sub);
  }
}

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
