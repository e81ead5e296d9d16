#include "codegen/cpp/cpp_index.h"
#include "codegen/cuda/cuda_body.h"
#include "codegen/cuda/cuda_kernel_writer.h"

namespace kiln::cuda {

KernelWriter::PointWalk KernelWriter::row_points(const LoopKernel& part, int rows) {
  return [this, &part, rows](const PointFold& at_point) {
    const RowVectors vectors = row_vectors(p_, part, rows);
    if (vectors.width > 1) {
      row_walk(part, rows, vectors, at_point);
      return;
    }
    for_points(part, "r", part.num_outer_loops(), static_cast<int>(part.loops.size()), thread_index(), block_threads(),
               [&] { at_point({}); });
  };
}

void KernelWriter::row_walk(const LoopKernel& part, int rows, const RowVectors& v, const PointFold& body) {
  row_walk(part, rows, v, body, "", std::to_string(part.loops.back()));
}

void KernelWriter::row_walk(const LoopKernel& part, int rows, const RowVectors& v, const PointFold& body,
                            const std::string& begin, const std::string& end) {
  const std::string w = std::to_string(v.width);
  const std::string point = "i" + std::to_string(rows), start = "i" + std::to_string(rows + 1);
  const std::string from = begin.empty() ? "" : begin + " + ";  // a point of the range: from + offset
  const std::vector<std::string> at_points(part.body.size());
  const auto one_a_thread = [&](const std::string& first, const std::string& last) {
    open_block("for (" + index_ + " p = " + first + thread_index() + "; p < " + last + "; p += " + block_threads() +
               ") {");
    line("const " + index_ + " " + point + " = p;");
    body(at_points);
    close_block();
  };
  if (begin.empty()) {
    line("const " + index_ + " first = " + cpp::index_cpp(v.row_start) +
         ";  // the row's first element in its vectors");
    line("const " + index_ + " head = (" + w + " - first % " + w + ") % " + w +
         ";  // its points before a multiple of " + w);
    line("const " + index_ + " groups = (" + end + " - head) / " + w + ";");
  } else {
    line("const " + index_ + " end = " + end + ";  // the range [" + begin + ", end) of the row");
    line("const " + index_ + " first = " + cpp::index_cpp(v.row_start) + " + " + begin +
         ";  // the range's first element in its vectors");
    line("const " + index_ + " lead = (" + w + " - first % " + w + ") % " + w + ";");
    line("const " + index_ + " head = lead < end - " + begin + " ? lead : end - " + begin +
         ";  // its points before a multiple of " + w);
    line("const " + index_ + " groups = (end - " + begin + " - head) / " + w + ";");
  }
  one_a_thread(from, from + "head");
  open_block("for (" + index_ + " g = " + thread_index() + "; g < groups; g += " + block_threads() + ") {");
  line("const " + index_ + " " + start + " = " + from + "head + g * " + w + ";  // the group's first point of loop " +
       std::to_string(rows));
  std::vector<IndexExpr> to_start;
  for (int d = 0; d <= rows; ++d) to_start.push_back(IndexExpr::var(d == rows ? rows + 1 : d));
  std::vector<std::string> element(part.body.size());
  bool lane_point = false;  // whether an op outside the vectors reads the lane's point
  for (size_t i = 0; i < v.access.size(); ++i) {
    const BodyOp& op = part.body[i];
    if (v.access[i] != VectorAccess::Contiguous) {
      lane_point = lane_point || op.index.uses_var(rows);
      continue;
    }
    const DType t = p_.buffers[static_cast<size_t>(op.buffer)].dtype;
    const std::string name = (op.kind == BodyOp::Kind::Load ? "l" : "s") + std::to_string(i);
    element[i] = name + ".e[j]";
    line(vector_union(name, v.width, t) + ";");
    if (op.kind == BodyOp::Kind::Load) vector_copy(name, v.width, t, op, to_start, true);
  }
  line("#pragma unroll");
  open_block("for (int j = 0; j < " + w + "; ++j) {");
  if (lane_point) line("const " + index_ + " " + point + " = " + start + " + j;");
  body(element);
  close_block();
  for (size_t i = 0; i < v.access.size(); ++i)
    if (v.access[i] == VectorAccess::Contiguous && part.body[i].kind == BodyOp::Kind::Store)
      vector_copy("s" + std::to_string(i), v.width, p_.buffers[static_cast<size_t>(part.body[i].buffer)].dtype,
                  part.body[i], to_start, false);
  close_block();
  one_a_thread(from + "head + groups * " + w + " + ", begin.empty() ? end : "end");
}

}  // namespace kiln::cuda
