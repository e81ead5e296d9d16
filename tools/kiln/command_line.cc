#include "command_line.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace kiln::cli {

namespace {

// A decimal int64, or nullopt when `s` is not one (overflow included).
std::optional<int64_t> parse_decimal(const std::string& s) {
  if (s.empty()) return std::nullopt;
  try {
    size_t used = 0;
    const long long v = std::stoll(s, &used, 10);
    if (used != s.size()) return std::nullopt;
    return v;
  } catch (...) {
    return std::nullopt;
  }
}

// "a,b" split at commas; "" gives no items.
std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  size_t start = 0;
  while (true) {
    const size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// "a non-negative integer", "an integer in [17, 18]": what an option with this range needs.
std::string range_text(const char* kind, double min, double max, bool unbounded_min, bool unbounded_max) {
  const std::string article = kind[0] == 'i' ? "an " : "a ";
  auto text = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return std::string(buf);
  };
  if (unbounded_min && unbounded_max) return article + kind;
  if (min == 0 && unbounded_max) return std::string("a non-negative ") + kind;
  if (unbounded_max) return article + kind + " >= " + text(min);
  if (unbounded_min) return article + kind + " <= " + text(max);
  return article + kind + " in [" + text(min) + ", " + text(max) + "]";
}

}  // namespace

CommandLine::CommandLine(std::string command, std::string usage)
    : command_(std::move(command)), usage_(std::move(usage)) {}

CommandLine& CommandLine::flag(const std::string& name) {
  flags_.insert(name);
  return *this;
}

CommandLine& CommandLine::option(const std::string& name, const std::string& what) {
  options_[name] = what;
  return *this;
}

CommandLine& CommandLine::files(size_t min, size_t max, std::string names) {
  min_files_ = min;
  max_files_ = max;
  file_names_ = std::move(names);
  return *this;
}

std::optional<int> CommandLine::parse(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(usage_.c_str(), stdout);
      return 0;
    }
    if (a.size() < 2 || a[0] != '-') {
      if (positionals_.size() == max_files_) {
        if (max_files_ == 0) return usage_error("takes no arguments ('" + a + "' given)");
        if (max_files_ == 1) return usage_error("more than one FILE ('" + positionals_[0] + "', '" + a + "')");
        return usage_error("too many arguments at '" + a + "' (it takes " + file_names_ + ")");
      }
      positionals_.push_back(a);
      continue;
    }
    const size_t eq = a.rfind("--", 0) == 0 ? a.find('=') : std::string::npos;
    const std::string name = a.substr(0, eq);
    if (flags_.count(name)) {
      if (eq != std::string::npos) return usage_error(name + " takes no value");
      given_[name].push_back("");
    } else if (options_.count(name)) {
      if (eq != std::string::npos) {
        given_[name].push_back(a.substr(eq + 1));
      } else if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) {
        given_[name].push_back(args[++i]);
      } else {
        return usage_error(name + " needs " + options_[name]);
      }
    } else {
      return usage_error("unknown option '" + name + "'");
    }
  }
  if (positionals_.size() < min_files_)
    return usage_error(positionals_.empty() && min_files_ == 1 ? "no FILE given" : "it takes " + file_names_);
  return std::nullopt;
}

bool CommandLine::has(const std::string& name) const { return given_.count(name) > 0; }

std::optional<std::string> CommandLine::value(const std::string& name) const {
  auto it = given_.find(name);
  if (it == given_.end()) return std::nullopt;
  return it->second.back();
}

std::optional<std::string> CommandLine::nonempty(const std::string& name) {
  std::optional<std::string> v = value(name);
  if (v && v->empty()) {
    usage_error(name + " needs " + options_[name]);
    return std::nullopt;
  }
  return v;
}

std::vector<std::string> CommandLine::values(const std::string& name) const {
  auto it = given_.find(name);
  return it == given_.end() ? std::vector<std::string>{} : it->second;
}

std::optional<int64_t> CommandLine::integer(const std::string& name, int64_t min, int64_t max) {
  const std::optional<std::string> v = value(name);
  if (!v) return std::nullopt;
  const std::optional<int64_t> n = parse_decimal(*v);
  if (n && *n >= min && *n <= max) return n;
  constexpr int64_t kLowest = std::numeric_limits<int64_t>::min(), kHighest = std::numeric_limits<int64_t>::max();
  usage_error(
      name + " needs " +
      range_text("integer", static_cast<double>(min), static_cast<double>(max), min == kLowest, max == kHighest) +
      ", not '" + *v + "'");
  return std::nullopt;
}

std::optional<double> CommandLine::number(const std::string& name, double min, double max) {
  const std::optional<std::string> v = value(name);
  if (!v) return std::nullopt;
  char* end = nullptr;
  const double n = v->empty() ? NAN : std::strtod(v->c_str(), &end);
  if (end == v->c_str() + v->size() && std::isfinite(n) && n >= min && n <= max) return n;
  usage_error(name + " needs " + range_text("number", min, max, std::isinf(min), std::isinf(max)) + ", not '" + *v +
              "'");
  return std::nullopt;
}

std::vector<std::string> CommandLine::list(const std::string& name) {
  std::vector<std::string> out;
  for (const std::string& v : values(name)) {
    for (std::string& item : split_list(v)) {
      if (item.empty()) {
        usage_error("empty name in " + name + " '" + v + "'");
        return {};
      }
      out.push_back(std::move(item));
    }
  }
  return out;
}

std::map<std::string, int64_t> CommandLine::dims(const std::string& name) {
  std::map<std::string, int64_t> out;
  for (const std::string& v : values(name)) {
    for (const std::string& binding : split_list(v)) {
      const size_t eq = binding.find('=');
      const std::optional<int64_t> size =
          eq == std::string::npos ? std::nullopt : parse_decimal(binding.substr(eq + 1));
      if (eq == 0 || !size || *size < 0) {
        usage_error(name + " takes NAME=SIZE, not '" + binding + "'");
        return {};
      }
      out[binding.substr(0, eq)] = *size;
    }
  }
  return out;
}

int CommandLine::usage_error(const std::string& why) {
  if (!failed_) std::fprintf(stderr, "kiln %s: %s\n%s", command_.c_str(), why.c_str(), usage_.c_str());
  failed_ = true;
  return 2;
}

}  // namespace kiln::cli
