// The misc ops' rewrites (convert_misc.h).
#include "import/convert_misc.h"

#include <string_view>

namespace kiln::pt2 {
namespace {

std::string short_target(const std::string& target) {
  constexpr std::string_view kPrefix = "torch.ops.";
  return target.rfind(kPrefix, 0) == 0 ? target.substr(kPrefix.size()) : target;
}

NamedArgument* find_input(Node& n, std::string_view name) {
  for (NamedArgument& in : n.inputs)
    if (in.name == name) return &in;
  return nullptr;
}

void erase_input(Node& n, std::string_view name) {
  std::erase_if(n.inputs, [&](const NamedArgument& in) { return in.name == name; });
}

Argument tensor_arg(const std::string& name) {
  Argument a;
  a.kind = Argument::Kind::Tensor;
  a.key = "as_tensor";
  a.names = {name};
  return a;
}

Argument int_arg(int64_t v) {
  Argument a;
  a.kind = Argument::Kind::Int;
  a.key = "as_int";
  a.ints = {v};
  return a;
}

Argument ints_arg(std::vector<int64_t> v) {
  Argument a;
  a.kind = Argument::Kind::Ints;
  a.key = "as_ints";
  a.ints = std::move(v);
  return a;
}

Argument float_arg(double v) {
  Argument a;
  a.kind = Argument::Kind::Float;
  a.key = "as_float";
  a.floats = {v};
  return a;
}

Argument string_arg(std::string v) {
  Argument a;
  a.kind = Argument::Kind::String;
  a.key = "as_string";
  a.string = std::move(v);
  return a;
}

Argument dtype_arg(int code) {
  Argument a;
  a.kind = Argument::Kind::ScalarType;
  a.key = "as_scalar_type";
  a.ints = {code};
  return a;
}

Expected<std::string> tensor_name(const Argument* a, std::string_view what) {
  if (!a || a->kind != Argument::Kind::Tensor || a->names.size() != 1 || !a->names[0])
    return make_error(what, " is not a tensor");
  return *a->names[0];
}

Expected<std::string> result_name(const Node& n) {
  if (n.outputs.size() != 1) return make_error("it has ", n.outputs.size(), " outputs, expected one");
  return tensor_name(&n.outputs[0], "its output");
}

Expected<const TensorMeta*> meta_of(const Program& p, const std::string& name) {
  auto it = p.tensor_values.find(name);
  if (it == p.tensor_values.end()) return make_error("value '", name, "' has no entry in tensor_values");
  return &it->second;
}

Expected<std::vector<int64_t>> static_sizes(const TensorMeta& m, const std::string& name) {
  std::vector<int64_t> out;
  for (const SymSize& s : m.sizes) {
    if (!s.value) return make_error("value '", name, "' has the dynamic dim '", s.expr, "'");
    out.push_back(*s.value);
  }
  return out;
}

// upsample_bilinear2d.vec(input, output_size, align_corners, scale_factors) and .default(self,
// output_size, align_corners, scales_h, scales_w): kiln's one schema.
Status upsample(Node& n, bool vec) {
  if (!vec) {
    if (NamedArgument* self = find_input(n, "self")) self->name = "input";
  } else if (NamedArgument* scales = find_input(n, "scale_factors")) {
    const Argument a = scales->arg;
    erase_input(n, "scale_factors");
    if (a.kind != Argument::Kind::None) {
      if (a.kind != Argument::Kind::Floats || a.floats.size() != 2)
        return make_error("argument 'scale_factors' is not a list of 2 floats");
      n.inputs.push_back({"scales_h", float_arg(a.floats[0])});
      n.inputs.push_back({"scales_w", float_arg(a.floats[1])});
    }
  }
  for (const char* name : {"scales_h", "scales_w"})
    if (NamedArgument* a = find_input(n, name); a && a->arg.kind == Argument::Kind::None) erase_input(n, name);
  n.target = "torch.ops.aten.upsample_bilinear2d.vec";
  return Status::ok();
}

// empty_like(self, ...) and empty_permuted(size, physical_layout, ...): empty of the result's
// recorded sizes and dtype.
Status empty(const Program& p, Node& n) {
  KILN_ASSIGN_OR_RETURN(std::string result, result_name(n));
  KILN_ASSIGN_OR_RETURN(const TensorMeta* meta, meta_of(p, result));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, static_sizes(*meta, result));
  erase_input(n, "self");
  erase_input(n, "physical_layout");
  erase_input(n, "size");
  erase_input(n, "dtype");
  erase_input(n, "memory_format");  // the strides of values nobody has written: kiln's are contiguous
  n.inputs.insert(n.inputs.begin(), NamedArgument{"size", ints_arg(std::move(sizes))});
  n.inputs.push_back({"dtype", dtype_arg(meta->dtype)});
  n.target = "torch.ops.aten.empty.memory_format";
  return Status::ok();
}

Node derived_node(const Node& n, const std::string& target, const std::string& result) {
  Node out;
  out.target = target;
  out.stack_trace = n.stack_trace;
  out.name = result;
  out.outputs = {tensor_arg(result)};
  return out;
}

// repeat_interleave.self_int(self, repeats, dim=None, output_size=None) with an int count r:
// x [.., s_d, ..] -> unsqueeze(d + 1) -> expand to [.., s_d, r, ..] -> reshape to the result.
// Without a dim, the input is flattened first (dim 0 of the flat input).
Status repeat_interleave(Program& p, Node n, std::vector<Node>& out) {
  const NamedArgument* self_arg = find_input(n, "self");
  KILN_ASSIGN_OR_RETURN(std::string self, tensor_name(self_arg ? &self_arg->arg : nullptr, "argument 'self'"));
  KILN_ASSIGN_OR_RETURN(std::string result, result_name(n));
  const NamedArgument* repeats = find_input(n, "repeats");
  if (!repeats || repeats->arg.kind != Argument::Kind::Int || repeats->arg.symbolic)
    return make_error("argument 'repeats' is not a static int");
  const int64_t r = repeats->arg.ints[0];
  if (r < 0) return make_error("repeats can not be negative, got ", r);
  KILN_ASSIGN_OR_RETURN(const TensorMeta* in_meta, meta_of(p, self));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, static_sizes(*in_meta, self));
  KILN_ASSIGN_OR_RETURN(const TensorMeta* out_meta, meta_of(p, result));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> out_sizes, static_sizes(*out_meta, result));
  const TensorMeta like = *out_meta;
  auto add_value = [&](const std::string& name, const std::vector<int64_t>& s) {
    TensorMeta meta;
    meta.dtype = like.dtype;
    for (int64_t v : s) meta.sizes.push_back(SymSize{v, ""});
    p.tensor_values[name] = std::move(meta);
  };
  std::string x = self;
  int64_t dim = 0;
  const NamedArgument* d = find_input(n, "dim");
  if (!d || d->arg.kind == Argument::Kind::None) {
    int64_t numel = 1;
    for (int64_t s : sizes) numel *= s;
    sizes = {numel};
    x = result + "_flat";
    add_value(x, sizes);
    Node f = derived_node(n, "torch.ops.aten.reshape.default", x);
    f.inputs = {{"self", tensor_arg(self)}, {"shape", ints_arg(sizes)}};
    out.push_back(std::move(f));
  } else {
    if (d->arg.kind != Argument::Kind::Int) return make_error("argument 'dim' is not an int");
    dim = d->arg.ints[0];
    const auto rank = static_cast<int64_t>(sizes.size());
    if (dim < -rank || dim >= rank) return make_error("dim ", dim, " is out of range for rank ", rank);
    if (dim < 0) dim += rank;
  }
  std::vector<int64_t> unsqueezed = sizes;
  unsqueezed.insert(unsqueezed.begin() + dim + 1, 1);
  const std::string u = result + "_unsqueezed";
  add_value(u, unsqueezed);
  Node un = derived_node(n, "torch.ops.aten.unsqueeze.default", u);
  un.inputs = {{"self", tensor_arg(x)}, {"dim", int_arg(dim + 1)}};
  out.push_back(std::move(un));
  std::vector<int64_t> expanded = unsqueezed;
  expanded[static_cast<size_t>(dim + 1)] = r;
  const std::string e = result + "_expanded";
  add_value(e, expanded);
  Node ex = derived_node(n, "torch.ops.aten.expand.default", e);
  ex.inputs = {{"self", tensor_arg(u)}, {"size", ints_arg(expanded)}};
  out.push_back(std::move(ex));
  Node re = derived_node(n, "torch.ops.aten.reshape.default", result);
  re.inputs = {{"self", tensor_arg(e)}, {"shape", ints_arg(out_sizes)}};
  out.push_back(std::move(re));
  return Status::ok();
}

Status convert(Program& p, Node n, std::vector<Node>& out) {
  const std::string t = short_target(n.target);
  if (t == "aten.upsample_bilinear2d.vec" || t == "aten.upsample_bilinear2d.default")
    KILN_TRY(upsample(n, t == "aten.upsample_bilinear2d.vec"));
  if (t == "aten.floor_divide.default" || t == "aten.floor_divide.Scalar") {
    n.target = t == "aten.floor_divide.default" ? "torch.ops.aten.div.Tensor_mode" : "torch.ops.aten.div.Scalar_mode";
    n.inputs.push_back({"rounding_mode", string_arg("floor")});
  }
  if (t == "aten.empty_like.default" || t == "aten.empty_permuted.default") KILN_TRY(empty(p, n));
  if (t == "aten.repeat_interleave.self_int") return repeat_interleave(p, std::move(n), out);
  out.push_back(std::move(n));
  return Status::ok();
}

}  // namespace

Expected<Program> convert_misc_nodes(const Program& program) {
  Program out = program;
  out.nodes.clear();
  for (const Node& n : program.nodes) {
    Status converted = convert(out, n, out.nodes);
    if (!converted)
      return make_error("node %", n.name, " (", short_target(n.target), "): ", converted.error().message());
  }
  return out;
}

}  // namespace kiln::pt2
