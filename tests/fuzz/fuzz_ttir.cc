// libFuzzer target for the TTIR reader and mutation analysis (kernels/mlir_reader.h,
// kernels/ttir_mutation.h). Any bytes are either read into a well-formed module (every id in
// range, every op where its parent says) or rejected with a Diagnostic at file:line:col; a module
// either analyzes to an answer that is never below "every pointer written" when it is
// conservative, or is rejected for lacking the function. A crash, a hang, a leak or a failed
// check below is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kernels/mlir_reader.h"
#include "kernels/ttir_mutation.h"
#include "support/check.h"

namespace {

using kiln::kernels::MlirModule;
using kiln::kernels::MlirOp;

// A location inside the input: 1-based, at most one past its end.
bool inside(const kiln::SourceLoc& loc, size_t size) {
  return loc.line >= 1 && loc.col >= 1 && static_cast<size_t>(loc.line) <= size + 1 &&
         static_cast<size_t>(loc.col) <= size + 1;
}

void check_module(const MlirModule& m, size_t size) {
  const auto n_values = static_cast<int64_t>(m.values.size());
  const auto n_ops = static_cast<int64_t>(m.ops.size());
  for (const MlirOp& op : m.ops) {
    for (auto v : op.operands) KILN_CHECK(v >= 0 && v < n_values) << op.name << ": operand out of range";
    for (auto v : op.results) KILN_CHECK(v >= 0 && v < n_values) << op.name << ": result out of range";
    KILN_CHECK(op.parent >= -1 && op.parent < n_ops) << op.name << ": parent out of range";
    KILN_CHECK(inside(op.loc, size)) << op.name << ": op at " << op.loc.to_string();
    for (const auto& region : op.regions)
      for (const auto& block : region.blocks) {
        for (auto v : block.args) KILN_CHECK(v >= 0 && v < n_values) << op.name << ": block argument out of range";
        for (auto child : block.ops) KILN_CHECK(child >= 0 && child < n_ops && m.op(child).parent >= 0) << op.name;
      }
  }
  for (const auto& v : m.values) KILN_CHECK(v.op >= 0 && v.op < n_ops) << v.name << ": value without its op";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = kiln::kernels::read_mlir(text, "fuzz.ttir");
  if (!module) {
    KILN_CHECK(inside(module.error().loc(), size))
        << "rejection not located in the input: " << module.error().to_string();
    return 0;
  }
  check_module(*module, size);
  auto analysis = kiln::kernels::analyze_ttir(*module);
  if (!analysis) return 0;  // no tt.func: an error in the input, not a crash
  for (const auto& p : analysis->params) {
    KILN_CHECK(!p.written || p.is_pointer) << p.name << ": a non-pointer parameter written";
    if (!analysis->reasons.empty() && p.is_pointer)
      KILN_CHECK(p.written) << p.name << ": conservative answer misses it";
  }
  KILN_CHECK(!analysis->fallback || !analysis->reasons.empty()) << "fallback without a reason";
  return 0;
}
