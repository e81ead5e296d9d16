// Reference kernels of kernel_call and kernel_call_functional: they run the registered
// kernel's CPU implementation (ops/user_kernel.h). kernel_call writes into its operands in
// place; kernel_call_functional first clones what the kernel writes, keeping each clone's
// strides and the aliasing of arguments that share one storage (ops/kernel_call_layout.h).
#include <cstring>
#include <map>

#include "ops/kernel_call_layout.h"
#include "ops/kernels.h"
#include "ops/user_kernel.h"

namespace kiln {

namespace {

// The registered kernel, checked against the call's arguments.
Expected<const UserKernel*> runnable_kernel(const KernelCall& call) {
  KILN_ASSIGN_OR_RETURN(const UserKernel* k, find_user_kernel(call.attr_str("kernel")));
  if (!k->cpu)
    return make_error(call.name(), ": kernel '", k->name, "' has no CPU implementation, so it runs only on a GPU; ",
                      "register one (KernelRegistration::cpu) to run it in the interpreter or the CPU backend");
  if (k->params.size() != call.operands.size())
    return make_error(call.name(), ": kernel '", k->name, "' has ", k->params.size(),
                      " parameters but the call passes ", call.operands.size(), " arguments");
  for (size_t i = 0; i < k->params.size(); ++i) {
    const UserKernelParam& p = k->params[i];
    if (p.is_pointer != call.operands[i].is_tensor())
      return make_error(call.name(), ": argument ", i, " of kernel '", k->name, "' (", p.name, ": ", p.type,
                        ") must be ", p.is_pointer ? "a tensor" : "a scalar");
  }
  return k;
}

// The call's grid: recorded at capture, else computed from the concrete arguments.
Expected<std::vector<int64_t>> launch_grid(const KernelCall& call, const UserKernel& k,
                                           std::span<const UserKernelArg> args) {
  if (!call.attr_ints("grid").empty()) return call.attr_ints("grid");
  if (!k.grid) return std::vector<int64_t>{1};
  std::vector<UserKernelArgInfo> infos;
  for (const UserKernelArg& a : args)
    infos.push_back(a.is_tensor() ? UserKernelArgInfo{a.tensor.shape(), {}}
                                  : UserKernelArgInfo{std::nullopt, a.scalar});
  std::optional<std::vector<int64_t>> grid = k.grid(infos);
  if (!grid)
    return make_error(call.name(), ": the grid function of kernel '", k.name, "' gave no grid for these shapes");
  return *grid;
}

Status run_kernel(const KernelCall& call, const UserKernel& k, std::vector<UserKernelArg>& args) {
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> grid, launch_grid(call, k, args));
  Status s = k.cpu(args, grid);
  if (!s) s.error().add_context("in the CPU implementation of kernel '" + k.name + "'");
  return s;
}

// A copy of `t` in a storage of its own, with t's sizes and strides: only the span of
// elements t's layout reaches is copied.
Tensor clone_preserving_strides(const Tensor& t) {
  int64_t lo = t.offset(), hi = t.offset();
  for (int d = 0; d < t.dim(); ++d) {
    if (t.sizes()[static_cast<size_t>(d)] == 0)
      return Tensor::empty(t.sizes(), t.dtype()).as_strided(t.sizes(), t.strides(), 0);
    const int64_t reach = (t.sizes()[static_cast<size_t>(d)] - 1) * t.strides()[static_cast<size_t>(d)];
    (reach < 0 ? lo : hi) += reach;
  }
  const size_t item = static_cast<size_t>(dtype_size(t.dtype()));
  const size_t count = static_cast<size_t>(hi - lo + 1);
  auto storage = std::make_shared<Storage>(count * item);
  std::memcpy(storage->data(), t.storage()->data() + static_cast<size_t>(lo) * item, count * item);
  return Tensor::over_storage(std::move(storage), t.dtype(), t.sizes(), t.strides(), t.offset() - lo);
}

std::vector<UserKernelArg> args_of(const KernelCall& call) {
  std::vector<UserKernelArg> args;
  for (const KernelOperand& o : call.operands) args.push_back(UserKernelArg{o.tensor, o.literal});
  return args;
}

}  // namespace

Expected<std::vector<Tensor>> kernel_kernel_call(const KernelCall& call) {
  KILN_ASSIGN_OR_RETURN(const UserKernel* k, runnable_kernel(call));
  std::vector<UserKernelArg> args = args_of(call);
  KILN_TRY(run_kernel(call, *k, args));
  return std::vector<Tensor>{};
}

Expected<std::vector<Tensor>> kernel_kernel_call_functional(const KernelCall& call) {
  KILN_ASSIGN_OR_RETURN(const UserKernel* k, runnable_kernel(call));
  std::vector<bool> is_tensor;
  for (const KernelOperand& o : call.operands) is_tensor.push_back(o.is_tensor());
  KILN_ASSIGN_OR_RETURN(KernelCallLayout layout, decode_kernel_call(call, is_tensor));
  std::vector<bool> group_written(is_tensor.size(), false);
  for (size_t a = 0; a < is_tensor.size(); ++a)
    if (layout.written[a] && layout.view[a]) group_written[static_cast<size_t>(layout.view[a]->group)] = true;

  std::vector<UserKernelArg> args = args_of(call);
  std::map<int64_t, Tensor> storages;  // group -> the packed storage value its members view
  for (size_t a = 0; a < args.size(); ++a) {
    if (!args[a].is_tensor()) continue;
    if (const std::optional<KernelArgView>& v = layout.view[a]) {
      auto it = storages.find(v->group);
      if (it == storages.end()) {
        const Tensor& base = call.operands[static_cast<size_t>(v->group)].tensor;
        it = storages.emplace(v->group, group_written[static_cast<size_t>(v->group)] ? base.clone() : base.contiguous())
                 .first;
      }
      args[a].tensor = it->second.as_strided(v->sizes, v->strides, it->second.offset() + v->storage_offset);
    } else if (layout.written[a]) {
      args[a].tensor = clone_preserving_strides(args[a].tensor);
    }
  }
  KILN_TRY(run_kernel(call, *k, args));
  std::vector<Tensor> results;
  for (int64_t a : layout.result_args)
    results.push_back(layout.view[static_cast<size_t>(a)] ? storages.at(a) : args[static_cast<size_t>(a)].tensor);
  return results;
}

}  // namespace kiln
