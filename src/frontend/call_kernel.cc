#include "frontend/call_kernel.h"

#include "frontend/dispatch.h"
#include "frontend/op_builder.h"
#include "ops/user_kernel.h"

namespace kiln {

namespace {

// The argument count and kinds against the kernel's parameters.
Status check_arguments(const UserKernel& k, const std::vector<TensorOrScalar>& args) {
  if (args.size() != k.params.size())
    return make_error("call_kernel: kernel '", k.name, "' has ", k.params.size(), " parameters, but ", args.size(),
                      " arguments were given");
  for (size_t i = 0; i < args.size(); ++i) {
    const UserKernelParam& p = k.params[i];
    if (p.is_pointer != args[i].is_tensor())
      return make_error("call_kernel: argument ", i, " of kernel '", k.name, "' (", p.name, ": ", p.type, ") must be ",
                        p.is_pointer ? "a tensor" : "a number");
  }
  return Status::ok();
}

// The grid when every tensor argument's shape is static; empty (decided at run time) else.
std::vector<int64_t> capture_grid(const UserKernel& k, const std::vector<TensorOrScalar>& args) {
  if (!k.grid) return {};
  std::vector<UserKernelArgInfo> infos;
  for (const TensorOrScalar& a : args) {
    if (!a.is_tensor()) {
      infos.push_back({std::nullopt, a.scalar()});
      continue;
    }
    Shape s = a.tensor().shape();
    if (!s.is_static()) return {};
    infos.push_back({std::move(s), {}});
  }
  return k.grid(infos).value_or(std::vector<int64_t>{});
}

}  // namespace

void call_kernel(std::string_view name, const std::vector<TensorOrScalar>& args, CallSite loc) {
  const UserKernel* k = value_or_throw(find_user_kernel(name));
  if (Status s = check_arguments(*k, args); !s) throw Error(std::move(s.error().with_loc(source_loc(loc))));
  detail::OpBuilder b(OpKind::KernelCall, loc);
  for (const TensorOrScalar& a : args) b.operand(a);
  b.attr("kernel", k->name);
  std::vector<int64_t> grid = capture_grid(*k, args);
  if (!grid.empty()) b.attr("grid", grid);
  b.attr("written", k->written_params());
  b.many();
}

}  // namespace kiln
