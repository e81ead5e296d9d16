#include "runtime/cpu/toolchain.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "runtime/cpu/process.h"

namespace kiln {

namespace fs = std::filesystem;

namespace {

constexpr int kMessageLines = 20;  // lines of compiler output a Diagnostic quotes

// The first `n` lines of `text`, each indented, with a note of how many were left out.
std::string first_lines(const std::string& text, int n) {
  std::vector<std::string> lines;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::string out;
  for (size_t i = 0; i < lines.size() && i < static_cast<size_t>(n); ++i) out += "  " + lines[i] + "\n";
  if (lines.size() > static_cast<size_t>(n))
    out += "  ... (" + std::to_string(lines.size() - static_cast<size_t>(n)) + " more lines)\n";
  return out;
}

// `d` with the first lines of what the compiler printed, if it printed anything.
Diagnostic quoting_output(Diagnostic d, const ProcessResult& r) {
  if (!r.output.empty()) d.add_context("its output begins:\n" + first_lines(r.output, kMessageLines));
  return d;
}

Diagnostic failed(const std::string& what, const std::vector<std::string>& argv, const ProcessResult& r) {
  return quoting_output(make_error(what, " (", r.how_it_ended(), "): ", command_line_text(argv)), r);
}

}  // namespace

// -mprefer-vector-width=512: where the CPU has AVX-512, GCC otherwise keeps to 256-bit vectors;
// the compute-bound kernels of the transformer block's step (tanh-gelu forward and backward) ran
// 20-25% faster with 512-bit ones on an AVX-512 Xeon (docs/PERF.md). No effect elsewhere.
// -ffp-contract=off: GCC's default for C++ fuses a * b + c into one FMA wherever it sees one,
// so a kernel that recomputes x * c - max rounded differently from the kernel that took the
// max of the rounded x * c (the evaluator's and PyTorch's CPU kernels round every op); the
// prelude's polynomials fuse their multiply-adds by hand (docs/DECISIONS.md).
std::vector<std::string> default_cpu_flags() {
  return {"-O3",     "-march=native",   "-mprefer-vector-width=512", "-fopenmp",          "-fPIC",
          "-shared", "-fno-math-errno", "-fno-trapping-math",        "-ffp-contract=off", "-std=c++17"};
}

std::string default_cpu_compiler() {
  const char* cxx = std::getenv("CXX");
  return cxx && *cxx ? cxx : "c++";
}

std::string CpuToolchain::flags_text() const {
  std::string s;
  for (const std::string& f : flags) s += (s.empty() ? "" : " ") + f;
  return s;
}

std::vector<std::string> CpuToolchain::command(const std::string& source, const std::string& output) const {
  std::vector<std::string> argv{path};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-o", output, source});
  return argv;
}

Status CpuToolchain::compile(const std::string& source, const std::string& output) const {
  const std::vector<std::string> argv = command(source, output);
  Expected<ProcessResult> r = run_process(argv);
  if (!r)
    return make_error("C++ compiler '", compiler, "' could not be run: ", r.error().message(),
                      "; command: ", command_line_text(argv));
  if (!r->ok()) return failed("C++ compiler '" + compiler + "' failed", argv, *r);
  std::error_code ec;
  if (!fs::is_regular_file(output, ec) || fs::file_size(output, ec) == 0)
    return quoting_output(make_error("C++ compiler '", compiler, "' exited with status 0 but wrote no library ", output,
                                     ": ", command_line_text(argv)),
                          *r);
  return Status::ok();
}

Expected<CpuToolchain> find_cpu_toolchain(const std::string& compiler) {
  constexpr const char* kAdvice = " (set CXX or the compiler option to a C++17 compiler with OpenMP, e.g. g++)";
  CpuToolchain t;
  t.compiler = compiler.empty() ? default_cpu_compiler() : compiler;
  Expected<std::vector<std::string>> words = split_command_line(t.compiler);
  if (!words) return make_error("C++ compiler '", t.compiler, "': ", words.error().message());
  if (words->empty()) return make_error("C++ compiler '", t.compiler, "' names no program", kAdvice);
  const std::string& program = words->front();
  t.path = resolve_program(program);
  if (t.path.empty()) {
    const std::string where = program.find('/') == std::string::npos ? " in PATH" : "";
    if (words->size() == 1) return make_error("C++ compiler '", t.compiler, "' not found", where, kAdvice);
    return make_error("C++ compiler '", t.compiler, "' not found: no program '", program, "'", where, kAdvice);
  }
  t.arguments.assign(words->begin() + 1, words->end());
  std::vector<std::string> argv{t.path};
  argv.insert(argv.end(), t.arguments.begin(), t.arguments.end());
  t.identity = command_line_text(argv);
  argv.push_back("--version");
  Expected<ProcessResult> r = run_process(argv);
  if (!r) return make_error("C++ compiler '", t.compiler, "' could not be run: ", r.error().message());
  if (!r->ok()) return failed("C++ compiler '" + t.compiler + "' failed to report its version", argv, *r);
  t.identity += "\n" + r->output.substr(0, r->output.find('\n'));
  return t;
}

}  // namespace kiln
