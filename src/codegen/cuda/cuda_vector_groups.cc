#include "codegen/cuda/cuda_kernel_writer.h"

#include <algorithm>
#include <set>

#include "codegen/collapse_loops.h"
#include "codegen/cpp/cpp_index.h"
#include "codegen/cpp/cpp_lane_reduce.h"
#include "codegen/cpp/cpp_scalar.h"
#include "codegen/cpp/cpp_schedule.h"
#include "codegen/cuda/cuda_body.h"
#include "support/check.h"

namespace kiln::cuda {

namespace {

// Whether a union of `width` elements of dtype `t` also has 32-bit words (vector_element).
bool has_words(int width, DType t) { return t == DType::BF16 && width % 2 == 0; }

}  // namespace

void KernelWriter::vector_groups(const PointwiseVectors& v) {
  const int n = static_cast<int>(k_.loops.size()), w = v.width;
  const std::string start = "i" + std::to_string(n), inner = "i" + std::to_string(n - 1);
  std::vector<int64_t> groups = k_.loops;
  groups.back() /= w;
  std::vector<IndexExpr> to_start;  // an index at the group's first point
  for (int d = 0; d < n; ++d) to_start.push_back(IndexExpr::var(d == n - 1 ? n : d));
  open_block("for (" + index_ + " g = " + grid_thread() + "; g < " + std::to_string(v.groups) +
             "; g += " + grid_threads() + ") {");
  const std::string per_row = std::to_string(groups.back());
  unflatten(groups, "(g / " + per_row + ")", 0, n - 1);
  line("const " + index_ + " " + start + " = " + (n == 1 ? "g" : "(g % " + per_row + ")") + " * " + std::to_string(w) +
       ";  // the group's first point of loop " + std::to_string(n - 1));
  std::vector<std::string> element(k_.body.size());
  for (size_t i = 0; i < k_.body.size(); ++i) {
    const BodyOp& op = k_.body[i];
    if (v.access[i] == VectorAccess::None) continue;
    const DType t = p_.buffers[static_cast<size_t>(op.buffer)].dtype;
    if (v.access[i] == VectorAccess::Broadcast) {
      element[i] = "l" + std::to_string(i);
      line("const " + std::string(cpp::storage_type(t)) + " " + element[i] + " = " + buffer_pointer(p_, op.buffer) +
           "[" + cpp::index_cpp(op.index) + "];  // the same for the group");
      continue;
    }
    const std::string name = (op.kind == BodyOp::Kind::Load ? "l" : "s") + std::to_string(i);
    element[i] = op.kind == BodyOp::Kind::Load ? vector_element(name, "j", w, t) : name + ".e[j]";
    line(vector_union(name, w, t) + ";");
    if (op.kind == BodyOp::Kind::Load) vector_copy(name, w, t, op, to_start, true);
  }
  line("#pragma unroll");
  open_block("for (int j = 0; j < " + std::to_string(w) + "; ++j) {");
  if (std::any_of(k_.body.begin(), k_.body.end(),
                  [&](const BodyOp& op) { return op.kind == BodyOp::Kind::Index && op.index.uses_var(n - 1); }))
    line("const " + index_ + " " + inner + " = " + start + " + j;");
  for (size_t i = 0; i < k_.body.size(); ++i) line(body_op_text(p_, k_, static_cast<int>(i), element[i]));
  close_block();
  for (size_t i = 0; i < k_.body.size(); ++i)
    if (v.access[i] == VectorAccess::Contiguous && k_.body[i].kind == BodyOp::Kind::Store)
      vector_copy("s" + std::to_string(i), w, p_.buffers[static_cast<size_t>(k_.body[i].buffer)].dtype, k_.body[i],
                  to_start, false);
  close_block();
  if (v.tail > 0)
    for_points(k_, "p", 0, n, std::to_string(v.groups * w) + " + " + grid_thread(), grid_threads(),
               [&] { ops(k_, 0, k_.body.size()); });
}

std::string KernelWriter::vector_union(const std::string& name, int width, DType t) {
  const VectorPieces pieces = vector_pieces(width, t);
  const std::string words = has_words(width, t) ? " uint32_t w[" + std::to_string(width / 2) + "];" : "";
  return "union { kiln_v" + std::to_string(pieces.bytes) + " v[" + std::to_string(pieces.count) + "]; " +
         std::string(cpp::storage_type(t)) + " e[" + std::to_string(width) + "];" + words + " } " + name;
}

std::string KernelWriter::vector_element(const std::string& name, const std::string& j, int width, DType t) {
  if (!has_words(width, t)) return name + ".e[" + j + "]";
  return "(uint16_t)(" + name + ".w[" + j + " >> 1] >> (16 * (" + j + " & 1)))";
}

void KernelWriter::vector_copy(const std::string& name, int width, DType t, const BodyOp& op,
                               const std::vector<IndexExpr>& to_start, bool load) {
  const VectorPieces pieces = vector_pieces(width, t);
  const std::string type = "kiln_v" + std::to_string(pieces.bytes);
  const std::string at = "((" + std::string(load ? "const " : "") + type + "*)(" + buffer_pointer(p_, op.buffer) +
                         " + " + cpp::index_cpp(op.index.substitute(to_start)) + "))";
  for (int j = 0; j < pieces.count; ++j) {
    const std::string slot = name + ".v[" + std::to_string(j) + "]", mem = at + "[" + std::to_string(j) + "]";
    line(load ? slot + " = " + mem + ";" : mem + " = " + slot + ";");
  }
}

}  // namespace kiln::cuda
