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

// Points of loops [first, last) of `loops` (INT64_MAX past it).
int64_t points(const std::vector<int64_t>& loops, size_t first, size_t last) {
  int64_t n = 1;
  for (size_t d = first; d < last; ++d)
    if (__builtin_mul_overflow(n, loops[d], &n)) return INT64_MAX;
  return n;
}

int outer_loops(const LoopKernel& k) {
  return k.kind == KernelKind::Reduction ? k.num_outer_loops() : static_cast<int>(k.loops.size());
}

bool has_index_checks(const LoopKernel& k) {
  for (const LoopKernel* part : loop_kernel_parts(k))
    for (const BodyOp& op : part->body)
      if (op.kind == BodyOp::Kind::Indirect) return true;
  return false;
}

std::string extents_text(const std::vector<int64_t>& loops, size_t first, size_t last) {
  std::string s = "[";
  for (size_t d = first; d < last; ++d) s += (d > first ? ", " : "") + std::to_string(loops[d]);
  return s + "]";
}

// "loops [4] reduce [8]" or "loops [4, 8]".
std::string loops_text(const LoopKernel& k) {
  std::string s = "loops " + extents_text(k.loops, 0, static_cast<size_t>(outer_loops(k)));
  if (k.kind == KernelKind::Reduction)
    s += " reduce " + extents_text(k.loops, static_cast<size_t>(k.num_outer_loops()), k.loops.size());
  return s;
}

void KernelWriter::line(const std::string& text) {
  size_t start = 0;
  while (start <= text.size()) {  // one indented line per '\n'-separated part
    const size_t end = text.find('\n', start);
    out_.text += std::string(2 * static_cast<size_t>(depth_), ' ') + text.substr(start, end - start) + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

void KernelWriter::open_block(const std::string& text) {
  line(text);
  ++depth_;
}

void KernelWriter::close_block() {
  --depth_;
  line("}");
}

std::string KernelWriter::grid_thread() const {
  return index_ == "int" ? "(int)(blockIdx.x * blockDim.x + threadIdx.x)"
                         : "(int64_t)blockIdx.x * blockDim.x + threadIdx.x";
}

std::string KernelWriter::grid_threads() const {
  return index_ == "int" ? "(int)(gridDim.x * blockDim.x)" : "(int64_t)gridDim.x * blockDim.x";
}

void KernelWriter::function(const std::string& symbol, const LaunchShape& shape, const std::string& how, bool scratch,
                            const std::function<void()>& body) {
  std::string head = "// kernel @" + k_.name + ": " + kind_name() + ", " + loops_text(original_);
  if (k_.loops != original_.loops) head += " (run as " + loops_text(k_).substr(6) + ")";
  line((out_.launches.empty() ? "" : "\n") + head + ": " + how + ", grid " + std::to_string(shape.grid) + " x block " +
       std::to_string(shape.block));
  CudaLaunch launch{
      .symbol = symbol, .grid = {shape.grid, 1, 1}, .block = {shape.block, 1, 1}, .shared_bytes = 0, .args = {}};
  std::string params = parameters(launch.args);
  if (scratch) {
    params += ", char* __restrict__ kiln_scratch";
    launch.args.push_back({.kind = CudaArg::Kind::Scratch, .buffer = -1, .offset = 0});
  }
  open_block("extern \"C\" __global__ void __launch_bounds__(" + std::to_string(shape.block) + ") " + symbol + "(" +
             params + ") {");
  if (checks_) line("int kiln_bad = 0;  // an indirect index was out of range");
  body();
  if (checks_) line("if (kiln_bad) *kiln_error = 1;");
  close_block();
  out_.launches.push_back(std::move(launch));
}

std::string KernelWriter::kind_name() const {
  switch (k_.kind) {
    case KernelKind::Pointwise: return "pointwise";
    case KernelKind::Reduction: return "reduction";
    case KernelKind::Fused: return "fused";
    case KernelKind::Scan: return "scan";
    default: return "?";
  }
}

std::string KernelWriter::parameters(std::vector<CudaArg>& args) const {
  std::set<int> used, stored;
  for (const LoopKernel* part : loop_kernel_parts(k_))
    for (const BodyOp& op : part->body) {
      if (op.kind == BodyOp::Kind::Load || op.kind == BodyOp::Kind::Store) used.insert(op.buffer);
      if (op.kind == BodyOp::Kind::Store) stored.insert(op.buffer);
    }
  std::string s;
  for (int b : used) {
    s += (s.empty() ? "" : ", ") + std::string(stored.count(b) ? "" : "const ") +
         std::string(cpp::storage_type(p_.buffers[static_cast<size_t>(b)].dtype)) + "* __restrict__ " +
         buffer_pointer(p_, b);
    args.push_back({.kind = CudaArg::Kind::Buffer, .buffer = b, .offset = 0});
  }
  if (checks_) {
    s += (s.empty() ? "" : ", ") + std::string("int* kiln_error");
    args.push_back({.kind = CudaArg::Kind::ErrorSlot, .buffer = -1, .offset = 0});
  }
  return s;
}

void KernelWriter::unflatten(const LoopKernel& k, const std::string& flat, int first, int last) {
  unflatten(k.loops, flat, first, last);
}

void KernelWriter::unflatten(const std::vector<int64_t>& loops, const std::string& flat, int first, int last) {
  std::string rest = flat;
  for (int d = last - 1; d >= first; --d) {
    const std::string e = std::to_string(loops[static_cast<size_t>(d)]);
    if (d == first) {
      line("const " + index_ + " i" + std::to_string(d) + " = " + rest + ";");
    } else {
      line("const " + index_ + " i" + std::to_string(d) + " = " + rest + " % " + e + ";");
      rest = "(" + rest + " / " + e + ")";
    }
  }
}

void KernelWriter::for_points(const LoopKernel& k, const std::string& var, int first, int last,
                              const std::string& start, const std::string& stride, const std::function<void()>& body) {
  const int64_t n = points(k.loops, static_cast<size_t>(first), static_cast<size_t>(last));
  if (n == 0) {  // an empty loop: its body never runs (and its variables have no divisor)
    line("// no points in loops " + extents_text(k.loops, static_cast<size_t>(first), static_cast<size_t>(last)));
    return;
  }
  if (first == last) {  // no loops: one point, number 0
    open_block("{");
    line("const " + index_ + " " + var + " = 0;");
  } else {
    open_block("for (" + index_ + " " + var + " = " + start + "; " + var + " < " + std::to_string(n) + "; " + var +
               " += " + stride + ") {");
    unflatten(k, var, first, last);
  }
  body();
  close_block();
}

void KernelWriter::open_loop(const LoopKernel& k, int d) {
  const std::string i = "i" + std::to_string(d);
  open_block("for (" + index_ + " " + i + " = 0; " + i + " < " + std::to_string(k.loops[static_cast<size_t>(d)]) +
             "; ++" + i + ") {");
}

void KernelWriter::ops(const LoopKernel& k, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i) {
    if (held_ == nullptr) {
      line(body_op_text(p_, k, static_cast<int>(i)));
      continue;
    }
    held_op(k, static_cast<int>(i));
  }
}

}  // namespace kiln::cuda
