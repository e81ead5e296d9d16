#include "runtime/cuda/ptxas_report.h"

#include <charconv>
#include <optional>

namespace kiln {

namespace {

// The text between the first pair of single quotes after `prefix`, if the line has `prefix`.
std::optional<std::string_view> quoted_after(std::string_view line, std::string_view prefix) {
  size_t at = line.find(prefix);
  if (at == std::string_view::npos) return std::nullopt;
  size_t open = line.find('\'', at + prefix.size());
  size_t close = open == std::string_view::npos ? open : line.find('\'', open + 1);
  if (close == std::string_view::npos) return std::nullopt;
  return line.substr(open + 1, close - open - 1);
}

// The integer just before `unit` in `line` ("8192 bytes stack frame" with unit "bytes stack
// frame"), if the line has it.
std::optional<int64_t> number_before(std::string_view line, std::string_view unit) {
  size_t at = line.find(unit);
  if (at == std::string_view::npos) return std::nullopt;
  size_t end = at;
  while (end > 0 && line[end - 1] == ' ') --end;
  size_t begin = end;
  while (begin > 0 && line[begin - 1] >= '0' && line[begin - 1] <= '9') --begin;
  int64_t value = 0;
  if (begin == end || std::from_chars(line.data() + begin, line.data() + end, value).ec != std::errc())
    return std::nullopt;
  return value;
}

constexpr size_t kNoKernel = static_cast<size_t>(-1);

size_t find_kernel(const std::vector<KernelResources>& kernels, std::string_view name) {
  for (size_t i = 0; i < kernels.size(); ++i)
    if (kernels[i].name == name) return i;
  return kNoKernel;
}

}  // namespace

// ptxas prints, per entry point:
//   ptxas info    : Compiling entry function 'spill' for 'sm_90'
//   ptxas info    : Function properties for spill
//   ptxas         .     8192 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 32 registers, used 0 barriers, 8192 bytes cumulative stack size
std::vector<KernelResources> parse_ptxas_log(std::string_view log) {
  std::vector<KernelResources> kernels;
  size_t compiling = kNoKernel;   // the entry of the last "Compiling entry function"
  size_t properties = kNoKernel;  // the entry the next stack/spill line belongs to
  while (!log.empty()) {
    size_t eol = log.find('\n');
    std::string_view line = log.substr(0, eol);
    log = eol == std::string_view::npos ? std::string_view() : log.substr(eol + 1);
    if (auto name = quoted_after(line, "Compiling entry function")) {
      kernels.push_back({.name = std::string(*name)});
      compiling = kernels.size() - 1;
      properties = kNoKernel;
    } else if (size_t at = line.find("Function properties for "); at != std::string_view::npos) {
      std::string_view name = line.substr(at + std::string_view("Function properties for ").size());
      while (!name.empty() && (name.back() == ' ' || name.back() == '\r')) name.remove_suffix(1);
      properties = find_kernel(kernels, name);
    } else if (auto stack = number_before(line, "bytes stack frame")) {
      if (properties != kNoKernel) {
        KernelResources& k = kernels[properties];
        k.stack_frame_bytes = *stack;
        k.spill_store_bytes = number_before(line, "bytes spill stores").value_or(0);
        k.spill_load_bytes = number_before(line, "bytes spill loads").value_or(0);
      }
    } else if (auto registers = number_before(line, "registers")) {
      if (compiling != kNoKernel && line.find("Used ") != std::string_view::npos)
        kernels[compiling].registers = static_cast<int>(*registers);
    }
  }
  return kernels;
}

}  // namespace kiln
