// Walks over nested kernel lists and the rules of control kernels (loop_control.h).
#include "lower/loop_control.h"

#include <string>

#include "lower/loop_text.h"

namespace kiln {

namespace {

void flatten(const std::vector<LoopKernel>& kernels, std::vector<const LoopKernel*>& out, std::vector<int>& ends) {
  for (const LoopKernel& k : kernels) {
    const size_t at = out.size();
    out.push_back(&k);
    ends.push_back(0);
    for (const std::vector<LoopKernel>& region : k.regions) flatten(region, out, ends);
    ends[at] = static_cast<int>(out.size());
  }
}

void number(std::vector<LoopKernel>& kernels, int& next) {
  for (LoopKernel& k : kernels) {
    k.name = "k" + std::to_string(next++);
    for (std::vector<LoopKernel>& region : k.regions) number(region, next);
  }
}

}  // namespace

std::vector<const LoopKernel*> flat_kernels(const LoopProgram& p) {
  std::vector<const LoopKernel*> out;
  std::vector<int> ends;
  flatten(p.kernels, out, ends);
  return out;
}

std::vector<int> flat_kernel_ends(const LoopProgram& p) {
  std::vector<const LoopKernel*> out;
  std::vector<int> ends;
  flatten(p.kernels, out, ends);
  return ends;
}

std::set<int> control_buffers(const LoopKernel& k) {
  std::set<int> out(k.carried.begin(), k.carried.end());
  out.insert(k.next.begin(), k.next.end());
  if (k.predicate >= 0) out.insert(k.predicate);
  return out;
}

void remap_kernel_buffers(LoopKernel& k, const std::vector<int>& map) {
  auto remap = [&](int& b) {
    if (b >= 0) b = map[static_cast<size_t>(b)];
  };
  for (ExternOperand& o : k.operands) remap(o.buffer);
  for (int& r : k.results) remap(r);
  for (BodyOp& op : k.body) remap(op.buffer);
  for (LoopKernel& part : k.parts) remap_kernel_buffers(part, map);
  remap(k.predicate);
  for (int& b : k.carried) remap(b);
  for (int& b : k.next) remap(b);
  for (std::vector<LoopKernel>& region : k.regions)
    for (LoopKernel& inner : region) remap_kernel_buffers(inner, map);
}

void number_kernels(LoopProgram& p) {
  int next = 0;
  number(p.kernels, next);
}

Status check_control_kernel(const LoopProgram& p, const LoopKernel& k) {
  auto buffer = [&](int b) -> const Buffer& { return p.buffers[static_cast<size_t>(b)]; };
  const size_t want_regions = 2;
  if (k.regions.size() != want_regions)
    return make_error("control kernel @", k.name, " has ", k.regions.size(), " regions, not ", want_regions);
  if (k.predicate < 0 || k.predicate >= static_cast<int>(p.buffers.size()))
    return make_error("control kernel @", k.name, " names no predicate buffer");
  const Buffer& pred = buffer(k.predicate);
  if (pred.dtype != DType::Bool || pred.storage_size() < 1)
    return make_error("the predicate %", pred.name, " of @", k.name,
                      " must be a bool buffer (its element 0 is read), not ",
                      buffer_type_string(pred.dtype, pred.sizes));
  if (k.kind == KernelKind::Cond) {
    if (!k.carried.empty() || !k.next.empty()) return make_error("cond kernel @", k.name, " carries no buffers");
    return Status::ok();
  }
  if (k.carried.size() != k.next.size())
    return make_error("the carried and next buffers of while kernel @", k.name, " do not pair up (", k.carried.size(),
                      " and ", k.next.size(), ")");
  std::set<int> seen{k.predicate};
  for (size_t i = 0; i < k.carried.size(); ++i) {
    for (int b : {k.carried[i], k.next[i]}) {
      if (b < 0 || b >= static_cast<int>(p.buffers.size()))
        return make_error("while kernel @", k.name, " names a buffer that does not exist");
      if (buffer(b).kind != BufferKind::Temp)
        return make_error("carried buffer %", buffer(b).name, " of @", k.name,
                          " must be a temporary (the loop exchanges it with its pair)");
      if (!seen.insert(b).second)
        return make_error("buffer %", buffer(b).name, " is named twice by @", k.name,
                          " (predicate, carried and next buffers are distinct)");
    }
    const Buffer& c = buffer(k.carried[i]);
    const Buffer& n = buffer(k.next[i]);
    if (c.dtype != n.dtype || c.sizes != n.sizes || c.strides != n.strides)
      return make_error("carried buffer %", c.name, " (", buffer_type_string(c.dtype, c.sizes), " strides ",
                        int_list_text(c.strides), ") and its next buffer %", n.name, " (",
                        buffer_type_string(n.dtype, n.sizes), " strides ", int_list_text(n.strides), ") of @", k.name,
                        " differ in type or layout");
  }
  return Status::ok();
}

}  // namespace kiln
