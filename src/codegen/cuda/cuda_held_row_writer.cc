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

void KernelWriter::held_op(const LoopKernel& part, int i) {
  const int v = held_->value_of[static_cast<size_t>(held_part_)][static_cast<size_t>(i)];
  if (v < 0) {
    line(held_op_text(part, i));
    return;
  }
  const HeldValue& hv = held_->values[static_cast<size_t>(v)];
  const std::string element = held_element(v);
  if (hv.buffer < 0) {  // a computed value: kept where first computed, read where computed again
    if (hv.part == held_part_) {
      line(held_op_text(part, i));
      line(element + " = " + value_name(i) + ";");
    } else {
      line("const " + std::string(cpp::value_type(part.body[static_cast<size_t>(i)].dtype)) + " " + value_name(i) +
           " = " + element + ";  // computed in part " + std::to_string(hv.part));
    }
    return;
  }
  line(body_op_text(p_, part, i, element));
  const BodyOp& op = part.body[static_cast<size_t>(i)];
  if (op.kind != BodyOp::Kind::Store || !hv.store_to_memory || (hv.row && held_->width > 1)) return;
  const std::string store = buffer_pointer(p_, op.buffer) + "[" + cpp::index_cpp(op.index) + "] = " + element + ";";
  line(hv.row ? store : "if (threadIdx.x == 0) " + store);
}

std::string KernelWriter::held_array(const std::string& name, DType t) const {
  return held_->width > 1 ? vector_union(name, held_->width, t) : std::string(cpp::storage_type(t)) + " " + name;
}

DType KernelWriter::computed_dtype(const HeldValue& hv) const {
  const DType t = k_.parts[static_cast<size_t>(hv.part)].body[static_cast<size_t>(hv.op)].dtype;
  return t == DType::F64 ? DType::F64 : DType::F32;  // a floating value's C++ type: double or float
}

std::string KernelWriter::held_element(int v) const {
  const std::string name = "h" + std::to_string(v);
  if (!held_->values[static_cast<size_t>(v)].row) return name;
  return held_->width > 1 ? name + "[j].e[l]" : name + "[j]";
}

void KernelWriter::held_parts(const HeldRow& h) {
  held_ = &h;
  for (size_t v = 0; v < h.values.size(); ++v) {
    const HeldValue& hv = h.values[v];
    const std::string name = "h" + std::to_string(v), count = std::to_string(h.launch.groups_per_thread);
    if (hv.buffer < 0) {
      line(held_array(name + "[" + count + "]", computed_dtype(hv)) + ";  // part " + std::to_string(hv.part) + "'s " +
           value_name(hv.op) + ", the thread's points");
      continue;
    }
    const DType t = p_.buffers[static_cast<size_t>(hv.buffer)].dtype;
    if (hv.row) {
      line(held_array(name + "[" + count + "]", t) + ";  // " + buffer_pointer(p_, hv.buffer) +
           ", the thread's points of the row");
      continue;
    }
    const BodyOp& op = first_access(static_cast<int>(v));
    line(std::string(cpp::storage_type(t)) + " " + name + " = " +
         (hv.load_first ? buffer_pointer(p_, hv.buffer) + "[" + cpp::index_cpp(op.index) + "]" : "0") + ";  // " +
         buffer_pointer(p_, hv.buffer) + ", the row's");
  }
  std::vector<bool> loaded(h.values.size(), false);
  for (size_t j = 0; j < k_.parts.size(); ++j) {
    const LoopKernel& part = k_.parts[j];
    held_part_ = static_cast<int>(j);
    const bool reduction = part.kind == KernelKind::Reduction;
    if (is_scalar_part(part, k_.loops.size())) {
      open_block("{  // part " + std::to_string(j) + ": pointwise over one point, in every thread");
      for (size_t d = k_.loops.size(); d < part.loops.size(); ++d)
        line("const " + index_ + " i" + std::to_string(d) + " = 0;");
      ops(part, 0, part.body.size());
      close_block();
      continue;
    }
    open_block("{  // part " + std::to_string(j) + ": " + (reduction ? "reduction" : "pointwise"));
    if (h.two_pass_m2[j]) {
      two_pass_m2(part, ResultFor::EveryThread,
                  [&](const PointFold& at_point) { held_points(h, part, loaded, [&] { at_point({}); }); });
      close_block();
      continue;
    }
    const size_t stop = reduction ? static_cast<size_t>(part.reduce_op) : part.body.size();
    if (reduction) {
      make_accumulators(part);
      for (const BlockAccumulator& a : accs_) line(a.declare());
    }
    held_points(h, part, loaded, [&] {
      ops(part, 0, stop);
      if (!reduction) return;
      for (size_t r = stop; r < reduce_ops_end(part); ++r) {
        const BodyOp& rop = part.body[r];
        line(accs_[r - stop].update(value_name(rop.args.at(0)), rop.args.size() > 1 ? value_name(rop.args[1]) : ""));
      }
    });
    if (reduction)
      block_reduce(ResultFor::EveryThread,
                   [&](const std::string& prefix, const std::string& at) { epilogue(part, prefix, at); });
    close_block();
  }
  held_ = nullptr;
}

const BodyOp& KernelWriter::first_access(int v) const {
  for (size_t j = 0; j < k_.parts.size(); ++j)
    for (size_t i = 0; i < k_.parts[j].body.size(); ++i)
      if (held_->value_of[j][i] == v) return k_.parts[j].body[i];
  KILN_UNREACHABLE("a held value has an access");
}

void KernelWriter::held_points(const HeldRow& h, const LoopKernel& part, std::vector<bool>& loaded,
                               const std::function<void()>& body) {
  const int n = static_cast<int>(k_.loops.size()), m = static_cast<int>(part.loops.size()), w = h.width;
  const std::string start = "i" + std::to_string(m), inner = "i" + std::to_string(m - 1);
  const std::vector<int>& of = h.value_of[static_cast<size_t>(held_part_)];
  std::vector<int64_t> groups = part.loops;
  groups.back() /= w;
  std::vector<IndexExpr> to_start;  // an index at the group's first point
  for (int d = 0; d < m; ++d) to_start.push_back(IndexExpr::var(d == m - 1 ? m : d));
  row_reciprocals(part);
  line("#pragma unroll");
  open_block("for (int j = 0; j < " + std::to_string(h.launch.groups_per_thread) + "; ++j) {");
  line("const " + index_ + " g = " + thread_index() + " + j * " + std::to_string(block_) + ";  // the group");
  const bool ragged = int64_t{h.launch.groups_per_thread} * block_ != h.groups;
  if (ragged) open_block("if (g < " + std::to_string(h.groups) + ") {");
  const std::string per_row = std::to_string(groups.back());
  if (m - 1 > n) unflatten(groups, "(g / " + per_row + ")", n, m - 1);
  line("const " + index_ + " " + start + " = " + (m - 1 > n ? "(g % " + per_row + ")" : "g") +
       (w > 1 ? " * " + std::to_string(w) : "") + ";  // the group's first point of loop " + std::to_string(m - 1));
  for (size_t i = 0; i < part.body.size(); ++i) {
    const int v = of[i];
    if (v < 0 || loaded[static_cast<size_t>(v)]) continue;
    loaded[static_cast<size_t>(v)] = true;
    const HeldValue& hv = h.values[static_cast<size_t>(v)];
    if (!hv.row || !hv.load_first) continue;
    const BodyOp& op = part.body[i];
    if (w > 1)
      vector_copy("h" + std::to_string(v) + "[j]", w, p_.buffers[static_cast<size_t>(op.buffer)].dtype, op, to_start,
                  true);
    else
      line(held_element(v) + " = " + buffer_pointer(p_, op.buffer) + "[" +
           cpp::index_cpp(op.index.substitute(to_start)) + "];");
  }
  if (w > 1) {
    line("#pragma unroll");
    open_block("for (int l = 0; l < " + std::to_string(w) + "; ++l) {");
    line("const " + index_ + " " + inner + " = " + start + " + l;");
  } else {
    open_block("{");
    line("const " + index_ + " " + inner + " = " + start + ";");
  }
  body();
  close_block();
  for (size_t i = 0; i < part.body.size() && w > 1; ++i) {
    const int v = of[i];
    if (v < 0 || part.body[i].kind != BodyOp::Kind::Store) continue;
    const HeldValue& hv = h.values[static_cast<size_t>(v)];
    if (!hv.row || !hv.store_to_memory) continue;  // a statistic's store is in the epilogue
    vector_copy("h" + std::to_string(v) + "[j]", w, p_.buffers[static_cast<size_t>(part.body[i].buffer)].dtype,
                part.body[i], to_start, false);
  }
  if (ragged) close_block();
  close_block();
}

}  // namespace kiln::cuda
