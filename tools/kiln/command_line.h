// One subcommand's command line, parsed against the options the subcommand declares, so that
// every subcommand treats its arguments alike: an option that takes a value accepts
// `--name=V` and `--name V`; an unknown option, a missing value, a value given to a flag, a
// malformed or out-of-range number and a FILE too many are usage errors, printed as
// "kiln CMD: WHY" followed by the subcommand's usage on stderr (exit status 2, commands.h).
// `--help` / `-h` prints the usage on stdout (exit status 0).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kiln::cli {

using Args = std::vector<std::string>;

class CommandLine {
 public:
  // `command` as typed after `kiln` ("run"); `usage` the subcommand's usage text.
  CommandLine(std::string command, std::string usage);

  // Declares `name` ("--check") as an option without a value.
  CommandLine& flag(const std::string& name);
  // Declares `name` ("--seed", "-o") as an option with a value; it may be repeated. `what`
  // names the value in the error when it is missing ("--report needs a directory").
  CommandLine& option(const std::string& name, const std::string& what = "a value");
  // How many positional arguments (FILE, model.onnx) the subcommand takes; `names` spells
  // them for messages ("FILE [model.onnx]"). Default: exactly one, "FILE".
  CommandLine& files(size_t min, size_t max, std::string names);

  // Parses `args`. Returns the exit status when the command ends here (2 after a usage
  // error, 0 after --help), nullopt when the subcommand goes on.
  std::optional<int> parse(const std::vector<std::string>& args);

  bool has(const std::string& name) const;
  // The last value given for `name`, or nullopt when it was not given.
  std::optional<std::string> value(const std::string& name) const;
  // value(name), where an empty value ("--report=") is a usage error: "--report needs a directory".
  std::optional<std::string> nonempty(const std::string& name);
  // Every value given for `name`, in order.
  std::vector<std::string> values(const std::string& name) const;
  const std::vector<std::string>& positionals() const { return positionals_; }

  // The value of `name` as a decimal integer in [min, max] (nullopt when not given); a usage
  // error when it is not one.
  std::optional<int64_t> integer(const std::string& name, int64_t min, int64_t max);
  // The value of `name` as a finite number in [min, max], likewise.
  std::optional<double> number(const std::string& name, double min, double max);
  // The comma-separated items of every value given for `name` ("a.npy,b.npy"), in order; an
  // empty item ("a,,b") is a usage error.
  std::vector<std::string> list(const std::string& name);
  // Every `--dim NAME=SIZE[,NAME=SIZE...]` given, as symbol -> size (sizes >= 0).
  std::map<std::string, int64_t> dims(const std::string& name);

  // Prints "kiln CMD: WHY" and the usage to stderr; returns 2. Only the first usage error
  // of a command line is printed.
  int usage_error(const std::string& why);
  // Whether a usage error was reported (by parse, a typed value or usage_error).
  bool failed() const { return failed_; }

 private:
  std::string command_, usage_;
  std::set<std::string> flags_;
  std::map<std::string, std::string> options_;  // option -> what its value is
  size_t min_files_ = 1, max_files_ = 1;
  std::string file_names_ = "FILE";
  std::map<std::string, std::vector<std::string>> given_;  // option -> its values ("" for flags)
  std::vector<std::string> positionals_;
  bool failed_ = false;
};

}  // namespace kiln::cli
