#include "report/loop_dot.h"

#include "core/dtype.h"
#include "ops/op_info.h"
#include "report/text_escape.h"

namespace kiln {

namespace {

std::string sizes_text(const std::vector<int64_t>& sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? "," : "") + std::to_string(sizes[i]);
  return s + "]";
}

std::string kernel_label(const LoopKernel& k) {
  std::string label = "@" + k.name + " " + kernel_kind_name(k.kind);
  if (k.kind == KernelKind::Extern) return label + " " + std::string(op_info(k.op).name());
  if (k.kind == KernelKind::Cond || k.kind == KernelKind::While) {
    size_t nested = 0;
    for (const std::vector<LoopKernel>& region : k.regions) nested += region.size();
    return label + "\n" + std::to_string(nested) + " kernels in its regions";
  }
  label += "\nloops " + sizes_text(k.loops);
  if (k.kind == KernelKind::Fused) {
    label += "\nparts:";
    for (const LoopKernel& part : k.parts) label += std::string(" ") + kernel_kind_name(part.kind);
  }
  return label;
}

const char* buffer_kind_name(BufferKind k) {
  switch (k) {
    case BufferKind::Input: return "input";
    case BufferKind::Output: return "output";
    case BufferKind::Temp: return "temp";
  }
  return "?";
}

}  // namespace

const char* kernel_kind_colour(KernelKind k) {
  switch (k) {
    case KernelKind::Pointwise: return "#d4edda";
    case KernelKind::Reduction: return "#cfe2ff";
    case KernelKind::Fused: return "#e2d4f0";
    case KernelKind::Extern: return "#f8d7da";
    case KernelKind::Scan: return "#fff3cd";
    case KernelKind::Cond: return "#d1ecf1";
    case KernelKind::While: return "#e2e3e5";
  }
  return "#ffffff";
}

const char* kernel_kind_name(KernelKind k) {
  switch (k) {
    case KernelKind::Pointwise: return "pointwise";
    case KernelKind::Reduction: return "reduction";
    case KernelKind::Fused: return "fused";
    case KernelKind::Extern: return "extern";
    case KernelKind::Scan: return "scan";
    case KernelKind::Cond: return "cond";
    case KernelKind::While: return "while";
  }
  return "?";
}

std::string loop_program_dot(const LoopProgram& p) {
  std::string out = "digraph \"" + dot_escape(p.name) + "\" {\n";
  out += kDotGraphAttributes;
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    const Buffer& buf = p.buffers[b];
    const std::string label = "%" + buf.name + "\n" + buffer_kind_name(buf.kind) + " " +
                              std::string(dtype_name(buf.dtype)) + sizes_text(buf.sizes);
    out += "  b" + std::to_string(b) + " [shape=ellipse" + (buf.kind == BufferKind::Temp ? ", style=dashed" : "") +
           ", label=\"" + dot_escape(label) + "\"];\n";
  }
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    const LoopKernel& kernel = p.kernels[k];
    const std::string id = "k" + std::to_string(k);
    out += "  " + id + " [shape=box, style=\"rounded,filled\", fillcolor=\"" + kernel_kind_colour(kernel.kind) +
           "\", label=\"" + dot_escape(kernel_label(kernel)) + "\"];\n";
    for (int b : kernel_buffers_read(kernel)) out += "  b" + std::to_string(b) + " -> " + id + ";\n";
    for (int b : kernel_buffers_written(kernel)) out += "  " + id + " -> b" + std::to_string(b) + ";\n";
  }
  return out + "}\n";
}

}  // namespace kiln
