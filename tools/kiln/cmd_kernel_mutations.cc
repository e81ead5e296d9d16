// kiln kernel-mutations FILE [--function NAME] [--names-only]
// Which pointer parameters a user kernel writes, by kiln's analysis of its IR (docs/KERNELS.md):
// FILE is Triton TTIR (.ttir, .mlir), PTX (.ptx) or CUDA C++ (.cu, compiled to PTX with NVRTC).
// Prints each pointer parameter as `written` or `read-only`, with the reason for answers the
// analysis could not prove (fallbacks, pointers loaded from memory); --names-only prints just
// the written parameters' names, one per line, in parameter order.
#include <cstdio>
#include <string>

#include "command_line.h"
#include "commands.h"
#include "kernels/analyze_kernel.h"

namespace kiln::cli {

namespace {

constexpr const char* kUsage = "usage: kiln kernel-mutations FILE [--function NAME] [--names-only]\n";

void print_report(const kernels::KernelAnalysis& a, const std::string& kind) {
  const kernels::MutationAnalysis& m = a.mutation;
  int pointers = 0;
  size_t width = 4;
  for (const kernels::ParamMutation& p : m.params) {
    pointers += p.is_pointer;
    if (p.is_pointer) width = std::max(width, p.name.size());
  }
  std::printf("kernel %s (%s): %d pointer parameter%s of %zu%s\n", a.display_name.c_str(), kind.c_str(), pointers,
              pointers == 1 ? "" : "s", m.params.size(), m.fallback ? "; the analysis fell back" : "");
  for (const kernels::ParamMutation& p : m.params) {
    if (!p.is_pointer) continue;
    std::printf("  %-*s  %-9s  %s", static_cast<int>(width), p.name.c_str(), p.written ? "written" : "read-only",
                p.type.c_str());
    if (!p.reason.empty()) std::printf("  (%s)", p.reason.c_str());
    std::printf("\n");
  }
  for (const std::string& r : m.reasons) std::printf("note: %s\n", r.c_str());
}

}  // namespace

int cmd_kernel_mutations(const Args& args) {
  CommandLine cl("kernel-mutations", kUsage);
  cl.option("--function", "a name").flag("--names-only");
  if (std::optional<int> rc = cl.parse(args)) return *rc;
  const std::string& file = cl.positionals()[0];
  const std::string function = cl.value("--function").value_or("");
  const bool names_only = cl.has("--names-only");
  if (!readable_file(file)) return 1;
  Expected<kernels::KernelSource> source = kernels::read_kernel_source(file);
  if (!source) return fail(source.error());
  Expected<kernels::KernelAnalysis> a = kernels::analyze_kernel(*source, function);
  if (!a) return fail(a.error());
  if (names_only) {
    for (const std::string& n : a->mutation.written_names()) std::printf("%s\n", n.c_str());
    return 0;
  }
  print_report(*a, std::string(kernels::kernel_source_kind_name(source->kind)));
  return 0;
}

}  // namespace kiln::cli
