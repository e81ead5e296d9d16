// Converters for vision networks' ATen overloads (convert_vision.h).
#include "import/convert_vision.h"

#include <algorithm>
#include <array>
#include <set>

#include "import/convert_dynamic.h"
#include "import/pt2_dtype.h"
#include "import/pt2_weights.h"
#include "ops/schema_check.h"

namespace kiln::pt2 {
namespace {

std::string_view strip_prefix(std::string_view target) {
  constexpr std::string_view kPrefix = "torch.ops.";
  if (target.substr(0, kPrefix.size()) == kPrefix) target.remove_prefix(kPrefix.size());
  return target;
}

// In-place overloads and the out-of-place overload with the same arguments and result.
// dropout_ names its tensor `self` where dropout says `input`.
struct InplaceForm {
  std::string_view inplace;
  std::string_view functional;
  std::string_view renamed_self = {};
};
constexpr std::array kInplace = {
    InplaceForm{"aten.relu_.default", "aten.relu.default"},
    InplaceForm{"aten.hardtanh_.default", "aten.hardtanh.default"},
    InplaceForm{"aten.relu6_.default", "aten.relu6.default"},
    InplaceForm{"aten.silu_.default", "aten.silu.default"},
    InplaceForm{"aten.dropout_.default", "aten.dropout.default", "input"},
    InplaceForm{"aten.hardswish_.default", "aten.hardswish.default"},
    InplaceForm{"aten.hardsigmoid_.default", "aten.hardsigmoid.default"},
};

// Overloads whose first result is a kiln op's only result, with the same arguments; their
// other results (batch norm's empty saved statistics, max pooling's indices) must be unused.
struct FirstResultForm {
  std::string_view aten;
  std::string_view single;
};
constexpr std::array kFirstResult = {
    FirstResultForm{"aten._native_batch_norm_legit_no_training.default", "aten.batch_norm.default"},
    FirstResultForm{"aten.max_pool2d_with_indices.default", "aten.max_pool2d.default"},
};
constexpr std::string_view kConvolution = "aten.convolution.default";
constexpr std::string_view kHardswish = "aten.hardswish.default";
constexpr std::string_view kHardsigmoid = "aten.hardsigmoid.default";
constexpr std::string_view kRelu6 = "aten.relu6.default";
constexpr std::string_view kUnflatten = "aten.unflatten.int";

const InplaceForm* find_inplace(std::string_view target) {
  for (const InplaceForm& f : kInplace)
    if (f.inplace == target) return &f;
  return nullptr;
}

bool names_value(const Argument& a, const std::string& name) {
  return std::any_of(a.names.begin(), a.names.end(), [&](const auto& n) { return n && *n == name; });
}

// Whether a node after `index`, or the graph's outputs, read the value `name`.
bool read_after(const Program& p, size_t index, const std::string& name) {
  for (size_t j = index + 1; j < p.nodes.size(); ++j)
    for (const NamedArgument& in : p.nodes[j].inputs)
      if (names_value(in.arg, name)) return true;
  return std::any_of(p.outputs.begin(), p.outputs.end(), [&](const Argument& a) { return names_value(a, name); });
}

const NamedArgument* find_input(const Node& n, std::string_view name) {
  for (const NamedArgument& in : n.inputs)
    if (in.name == name) return &in;
  return nullptr;
}

// The node's `self`/`input` tensor (its first argument).
Expected<std::string> first_tensor(const Node& n) {
  if (n.inputs.empty() || n.inputs[0].arg.kind != Argument::Kind::Tensor || !n.inputs[0].arg.names[0])
    return make_error("its first argument is not a tensor");
  return *n.inputs[0].arg.names[0];
}

// Overloads whose result may share its input's memory: a mutation of one shows in the other.
// The `to` conversions and `type_as` return their input itself when nothing changes.
constexpr std::string_view kAliasing[] = {
    "aten.view.default",       "aten.reshape.default",   "aten._reshape_alias.default",
    "aten.permute.default",    "aten.transpose.int",     "aten.t.default",
    "aten.expand.default",     "aten.expand_as.default", "aten.slice.Tensor",
    "aten.select.int",         "aten.unsqueeze.default", "aten.squeeze.dim",
    "aten.squeeze.dims",       "aten.squeeze.default",   "aten.flatten.using_ints",
    "aten.unflatten.int",      "aten.alias.default",     "aten.as_strided.default",
    "aten.chunk.default",      "aten.split.Tensor",      "aten.split_with_sizes.default",
    "aten.unbind.int",         "aten.narrow.default",    "aten.detach.default",
    "aten.contiguous.default", "aten.view_as.default",   "aten.reshape_as.default",
    "aten.diagonal.default",   "aten.to.dtype",          "aten.to.dtype_layout",
    "aten.to.device",          "aten.to.other",          "aten.type_as.default",
};

bool is_aliasing(std::string_view target) {
  target = strip_prefix(target);
  return std::find(std::begin(kAliasing), std::end(kAliasing), target) != std::end(kAliasing);
}

// The values that share memory with `self`: walking up through the view ops that made it to
// the tensor they view, and down through every view op taken of any of them.
std::set<std::string> alias_class(const Program& p, const std::string& self) {
  std::set<std::string> members{self};
  for (bool grew = true; grew;) {
    grew = false;
    for (const Node& n : p.nodes) {
      if (!is_aliasing(n.target) || n.inputs.empty() || n.inputs[0].arg.kind != Argument::Kind::Tensor ||
          !n.inputs[0].arg.names[0])
        continue;
      const std::string& base = *n.inputs[0].arg.names[0];
      std::vector<std::string> results;
      for (const Argument& out : n.outputs)
        for (const auto& name : out.names)
          if (name) results.push_back(*name);
      bool base_in = members.count(base) > 0;
      bool result_in = std::any_of(results.begin(), results.end(), [&](const auto& r) { return members.count(r); });
      if (!base_in && !result_in) continue;
      grew |= members.insert(base).second;
      for (const std::string& r : results) grew |= members.insert(r).second;
    }
  }
  return members;
}

// An in-place op becomes its functional form when nothing can observe the mutation: no tensor
// sharing memory with the mutated one (itself, the tensor it views, the views of either) is a
// graph input, and no later node or graph output reads one (the later graph reads only the
// node's result, which holds the same values). torch.export leaves a view taken before the
// mutation as its later readers' value, so the views must be followed.
Expected<ConvertedNode> convert_inplace(const Program& p, size_t index, const InplaceForm& form) {
  const Node& n = p.nodes[index];
  KILN_ASSIGN_OR_RETURN(std::string self, first_tensor(n));
  for (const std::string& member : alias_class(p, self)) {
    const std::string shares = member == self ? "" : " (which shares memory with '" + self + "')";
    if (std::find(p.inputs.begin(), p.inputs.end(), member) != p.inputs.end())
      return make_error("it mutates the graph input '", member, "'", shares, ", which kiln does not import");
    if (read_after(p, index, member))
      return make_error("a later node reads '", member, "'", shares,
                        " after this in-place op mutates it; kiln imports an in-place op only when its result is "
                        "the only later reader of the mutated memory");
  }
  Node out = n;
  out.target = std::string(form.functional);
  if (!form.renamed_self.empty()) out.inputs[0].name = std::string(form.renamed_self);
  return ConvertedNode(std::move(out));
}

// "aten.max_pool2d.default" -> "max_pool2d".
std::string_view kiln_name(std::string_view aten) {
  aten = strip_prefix(aten);
  if (aten.substr(0, 5) == "aten.") aten.remove_prefix(5);
  return aten.substr(0, aten.rfind('.'));
}

const FirstResultForm* find_first_result(std::string_view target) {
  for (const FirstResultForm& f : kFirstResult)
    if (f.aten == target) return &f;
  return nullptr;
}

// _native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var,
// momentum, eps) -> (out, save_mean, save_invstd) is batch_norm in eval with the same
// arguments; max_pool2d_with_indices(...) -> (out, indices) is max_pool2d.
Expected<ConvertedNode> convert_first_result(const Program& p, size_t index, const FirstResultForm& form) {
  const Node& n = p.nodes[index];
  if (n.outputs.empty() || n.outputs[0].kind != Argument::Kind::Tensor)
    return make_error("its first result is not a tensor");
  for (size_t i = 1; i < n.outputs.size(); ++i)
    for (const auto& name : n.outputs[i].names)
      if (name && read_after(p, index, *name))
        return make_error("its result ", i, " ('", *name, "') is used; kiln's ", kiln_name(form.single),
                          " has only the first result");
  Node out = n;
  out.target = std::string(form.single);
  out.outputs.resize(1);
  return ConvertedNode(std::move(out));
}

bool all_zero(const Argument& a) {
  return a.kind == Argument::Kind::Ints && std::all_of(a.ints.begin(), a.ints.end(), [](int64_t v) { return v == 0; });
}

// convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
// groups) is conv2d(input, weight, bias, stride, padding, dilation, groups) when it is not
// transposed and its input is 4-D.
Expected<ConvertedNode> convert_convolution(const Program& p, size_t index) {
  const Node& n = p.nodes[index];
  const NamedArgument* transposed = find_input(n, "transposed");
  if (transposed && !(transposed->arg.kind == Argument::Kind::Bool && !transposed->arg.bools[0]))
    return make_error("a transposed convolution; kiln has no transposed convolution yet");
  const NamedArgument* output_padding = find_input(n, "output_padding");
  if (output_padding && !all_zero(output_padding->arg))
    return make_error("a nonzero output_padding; kiln's conv2d has none");
  KILN_ASSIGN_OR_RETURN(std::string input, first_tensor(n));
  auto meta = p.tensor_values.find(input);
  if (meta == p.tensor_values.end()) return make_error("value '", input, "' has no entry in tensor_values");
  if (meta->second.sizes.size() != 4)
    return make_error("a ", meta->second.sizes.size(),
                      "-D convolution; kiln imports 2-D convolutions (4-D input) only");
  Node out = n;
  out.target = "aten.conv2d.default";
  std::erase_if(out.inputs,
                [](const NamedArgument& a) { return a.name == "transposed" || a.name == "output_padding"; });
  return ConvertedNode(std::move(out));
}

// Appends `op` on `operands` with `attrs`, of type `type`.
Expected<Value*> append(Graph& g, std::string_view op_name, std::vector<Operand> operands,
                        std::vector<std::pair<std::string_view, AttrValue>> attrs, const TensorType& type,
                        const SourceLoc& loc) {
  std::optional<OpKind> op = op_from_name(op_name);
  if (!op) return make_error("'", op_name, "' is not a kiln op");
  AttrMap map;
  for (auto& [name, v] : attrs) {
    KILN_ASSIGN_OR_RETURN(AttrValue fitted, fit_attr(op_info(*op).schema, name, v));
    map.set(std::string(name), std::move(fitted));
  }
  kiln::Node* node = g.append({*op, std::move(operands), std::move(map), {type}, {}, loc});
  return node->result(0);
}

// hardsigmoid(x) = min(max(x + 3, 0), 6) / 6 and hardswish(x) = x * min(max(x + 3, 0), 6) / 6,
// as PyTorch's CPU kernels compute them; relu6(x) = hardtanh(x, 0, 6).
Expected<ConvertedNode> convert_hard(Graph& g, const Node& n, std::map<std::string, Value*>& values,
                                     const SourceLoc& loc) {
  std::string_view target = strip_prefix(n.target);
  KILN_ASSIGN_OR_RETURN(std::string input, first_tensor(n));
  auto it = values.find(input);
  if (it == values.end()) return make_error("uses the value '", input, "', which no earlier node or input defines");
  Value* x = it->second;
  if (n.outputs.size() != 1 || n.outputs[0].kind != Argument::Kind::Tensor || !n.outputs[0].names[0])
    return make_error("it does not have one tensor result");
  const TensorType& type = x->type();
  Value* result = nullptr;
  if (target == kRelu6) {
    KILN_ASSIGN_OR_RETURN(
        result, append(g, "hardtanh", {x}, {{"min_val", AttrValue(0.0)}, {"max_val", AttrValue(6.0)}}, type, loc));
  } else {
    KILN_ASSIGN_OR_RETURN(Value * shifted, append(g, "add", {x, Scalar(3.0)}, {}, type, loc));
    KILN_ASSIGN_OR_RETURN(
        Value * clipped,
        append(g, "hardtanh", {shifted}, {{"min_val", AttrValue(0.0)}, {"max_val", AttrValue(6.0)}}, type, loc));
    Value* numerator = clipped;
    if (target == kHardswish) {
      KILN_ASSIGN_OR_RETURN(numerator, append(g, "mul", {x, clipped}, {}, type, loc));
    }
    KILN_ASSIGN_OR_RETURN(result, append(g, "div", {numerator, Scalar(6.0)}, {}, type, loc));
  }
  values[*n.outputs[0].names[0]] = result;
  return ConvertedNode();
}

// The type the archive records for value `name`.
Expected<TensorType> archive_type(const Program& p, const std::string& name) {
  auto it = p.tensor_values.find(name);
  if (it == p.tensor_values.end()) return make_error("value '", name, "' has no entry in tensor_values");
  std::optional<DType> dtype = dtype_from_archive(it->second.dtype);
  if (!dtype) return make_error("value '", name, "' has a dtype kiln does not support");
  KILN_ASSIGN_OR_RETURN(Shape shape, archive_shape(it->second.sizes, "value '" + name + "'"));
  return TensorType{*dtype, std::move(shape)};
}

// unflatten(self, dim, sizes) is reshape(self, the shape the archive records for its result).
Expected<ConvertedNode> convert_unflatten(Graph& g, const Program& p, size_t index,
                                          std::map<std::string, Value*>& values, const SourceLoc& loc) {
  const Node& n = p.nodes[index];
  KILN_ASSIGN_OR_RETURN(std::string input, first_tensor(n));
  auto it = values.find(input);
  if (it == values.end()) return make_error("uses the value '", input, "', which no earlier node or input defines");
  if (n.outputs.size() != 1 || n.outputs[0].kind != Argument::Kind::Tensor || !n.outputs[0].names[0])
    return make_error("it does not have one tensor result");
  KILN_ASSIGN_OR_RETURN(TensorType type, archive_type(p, *n.outputs[0].names[0]));
  AttrValue::SymInts shape;
  for (const Dim& d : type.shape.dims()) shape.push_back(d.expr());
  KILN_ASSIGN_OR_RETURN(Value * result,
                        append(g, "reshape", {it->second}, {{"shape", AttrValue::from_sym_ints(shape)}}, type, loc));
  values[*n.outputs[0].names[0]] = result;
  return ConvertedNode();
}

}  // namespace

bool has_vision_converter(std::string_view target) {
  target = strip_prefix(target);
  return find_inplace(target) || find_first_result(target) || target == kConvolution || target == kHardswish ||
         target == kHardsigmoid || target == kRelu6 || target == kUnflatten;
}

Expected<ConvertedNode> convert_vision_node(Graph& g, const Program& p, size_t index,
                                            std::map<std::string, Value*>& values, const SourceLoc& loc) {
  std::string_view target = strip_prefix(p.nodes[index].target);
  if (const InplaceForm* form = find_inplace(target)) {
    KILN_ASSIGN_OR_RETURN(ConvertedNode out, convert_inplace(p, index, *form));
    // An in-place composite (hardswish_) goes on through its functional form's converter.
    if (out && has_vision_converter(out->target)) return convert_hard(g, *out, values, loc);
    return out;
  }
  if (const FirstResultForm* form = find_first_result(target)) return convert_first_result(p, index, *form);
  if (target == kConvolution) return convert_convolution(p, index);
  if (target == kHardswish || target == kHardsigmoid || target == kRelu6)
    return convert_hard(g, p.nodes[index], values, loc);
  if (target == kUnflatten) return convert_unflatten(g, p, index, values, loc);
  return make_error("no vision converter for ", target);
}

}  // namespace kiln::pt2
