#include "lower/loop_run.h"

#include <vector>

#include "lower/loop_text.h"
#include "ops/op_call.h"
#include "ops/op_info.h"

namespace kiln {

Tensor view_of(const Tensor& flat, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset) {
  return flat.as_strided(std::move(sizes), std::move(strides), flat.offset() + offset);
}

Status check_loop_inputs(const LoopProgram& p, std::span<const Tensor> inputs) {
  if (inputs.size() != p.inputs.size())
    return make_error("loops @", p.name, " takes ", p.inputs.size(), " inputs, got ", inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Buffer& buf = p.buffers[static_cast<size_t>(p.inputs[i])];
    if (inputs[i].dtype() != buf.dtype || inputs[i].sizes() != buf.sizes)
      return make_error("input %", buf.name, " must be ", buffer_type_string(buf.dtype, buf.sizes), ", got ",
                        inputs[i].type().to_string());
  }
  return Status::ok();
}

Status check_loop_inputs_on_host(const LoopProgram& p, std::span<const Tensor> inputs, std::string_view reader) {
  for (size_t i = 0; i < inputs.size(); ++i)
    KILN_TRY(require_on_host(inputs[i], "input %" + p.buffers[static_cast<size_t>(p.inputs[i])].name, reader));
  return Status::ok();
}

Status run_extern_kernel(const LoopProgram& p, const LoopKernel& k, std::span<const Tensor> storage) {
  std::vector<KernelOperand> ops;
  for (const ExternOperand& o : k.operands) {
    KernelOperand ko;
    if (o.buffer < 0) {
      ko.literal = o.literal;
    } else {
      ko.tensor = view_of(storage[static_cast<size_t>(o.buffer)], o.sizes, o.strides, o.offset);
    }
    ops.push_back(std::move(ko));
  }
  KILN_ASSIGN_OR_RETURN(std::vector<Tensor> results, run_op(k.op, k.attrs, ops));
  if (results.size() != k.results.size())
    return make_error(op_info(k.op).name(), " gives ", results.size(), " results, but the kernel names ",
                      k.results.size(), " buffers");
  for (size_t r = 0; r < results.size(); ++r) {
    const Buffer& b = p.buffers[static_cast<size_t>(k.results[r])];
    if (results[r].sizes() != b.sizes || results[r].dtype() != b.dtype)
      return make_error(op_info(k.op).name(), " result ", r, " is ", results[r].type().to_string(), ", but buffer %",
                        b.name, " is ", buffer_type_string(b.dtype, b.sizes));
    view_of(storage[static_cast<size_t>(k.results[r])], b.sizes, b.strides, 0).copy_from(results[r]);
  }
  return Status::ok();
}

}  // namespace kiln
