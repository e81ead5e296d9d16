// ExportedProgram to kiln graph (pt2_to_graph.h).
#include "import/pt2_to_graph.h"

#include <algorithm>
#include <sstream>

#include "import/aten_op_table.h"
#include "import/convert_dynamic.h"
#include "import/convert_misc.h"
#include "import/convert_moe.h"
#include "import/convert_text.h"
#include "import/convert_vision.h"
#include "import/pt2_dtype.h"
#include "ir/verifier.h"
#include "ops/schema_check.h"

namespace kiln::pt2 {

namespace {

struct Frame {
  std::string file;
  int line = 0;
  std::string code;
};

// The frames of a Python stack trace as torch.export records it:
//   File "/path/model.py", line 6, in forward\n    code\n  File ...
std::vector<Frame> stack_frames(const std::string& trace) {
  std::vector<Frame> frames;
  std::istringstream in(trace);
  std::string text;
  while (std::getline(in, text)) {
    size_t file_at = text.find("File \"");
    size_t line_at = text.find("\", line ");
    if (file_at == std::string::npos || line_at == std::string::npos || line_at < file_at) {
      if (!frames.empty() && frames.back().code.empty()) {
        size_t first = text.find_first_not_of(' ');
        if (first != std::string::npos) frames.back().code = text.substr(first);
      }
      continue;
    }
    Frame f;
    f.file = text.substr(file_at + 6, line_at - file_at - 6);
    f.line = std::atoi(text.c_str() + line_at + 8);
    frames.push_back(std::move(f));
  }
  return frames;
}

bool is_torch_source(const std::string& file) { return file.find("-packages/torch/") != std::string::npos; }

const Frame* user_frame(const std::vector<Frame>& frames) {
  for (auto it = frames.rbegin(); it != frames.rend(); ++it)
    if (!is_torch_source(it->file)) return &*it;
  return frames.empty() ? nullptr : &frames.back();
}

SourceLoc node_loc(const Node& n) {
  std::vector<Frame> frames = stack_frames(n.stack_trace);
  const Frame* f = user_frame(frames);
  return f ? SourceLoc{f->file, f->line, 0} : SourceLoc{};
}

std::string aten_name(const std::string& target) {
  constexpr std::string_view kPrefix = "torch.ops.";
  return target.rfind(kPrefix, 0) == 0 ? target.substr(kPrefix.size()) : target;
}

// Every node whose op has no row in the table, one line each with its source line.
Status check_ops_supported(const Program& p) {
  std::string lines;
  int count = 0;
  for (const Node& n : p.nodes) {
    if (find_aten_op(n.target) || has_vision_converter(n.target) || has_moe_converter(n.target) ||
        DynamicSizes::is_sym_size(n))
      continue;
    ++count;
    std::string where = user_source_line(n.stack_trace);
    lines += "\n  " + aten_name(n.target) + " (%" + n.name + ")" + (where.empty() ? "" : " at " + where);
  }
  if (count == 0) return Status::ok();
  return make_error("the graph uses ", count, " node", count == 1 ? "" : "s",
                    " whose ops kiln does not import yet (docs/IMPORT.md lists those it does):", lines);
}

Expected<TensorType> value_type(const Program& p, const std::string& name) {
  auto it = p.tensor_values.find(name);
  if (it == p.tensor_values.end()) return make_error("value '", name, "' has no entry in tensor_values");
  std::optional<DType> dtype = dtype_from_archive(it->second.dtype);
  if (!dtype)
    return make_error("value '", name, "' has dtype ", archive_dtype_name(it->second.dtype),
                      ", which kiln does not support");
  KILN_ASSIGN_OR_RETURN(Shape shape, archive_shape(it->second.sizes, "value '" + name + "'"));
  return TensorType{*dtype, std::move(shape)};
}

// Whether a dropped ATen argument holds a value under which leaving it out is exact.
bool dropped_value_ok(const Argument& a, DroppedWhen when) {
  switch (when) {
    case DroppedWhen::Any: return true;
    case DroppedWhen::False: return a.kind == Argument::Kind::None || (a.kind == Argument::Kind::Bool && !a.bools[0]);
    case DroppedWhen::NoneOrContiguous:
      // serde MemoryFormat: 1 is torch.contiguous_format (0 unknown, 2 channels_last, 3 preserve).
      return a.kind == Argument::Kind::None || (a.kind == Argument::Kind::MemoryFormat && a.ints[0] == 1);
    case DroppedWhen::NoneOrCpu:
      return a.kind == Argument::Kind::None || (a.kind == Argument::Kind::Device && a.string == "cpu");
    case DroppedWhen::NoneOrStrided:
      // serde Layout: 7 is torch.strided.
      return a.kind == Argument::Kind::None || (a.kind == Argument::Kind::Layout && a.ints[0] == 7);
  }
  return false;
}

// Operands are tensors or static literals: a symbolic size there has no kiln form.
Status check_static(const Argument& a, const std::string& arg_name) {
  if (a.symbolic)
    return make_error("argument '", arg_name, "' is the symbolic size '", a.string,
                      "', which kiln takes only in attributes of type SymInt[] or SymScalar");
  return Status::ok();
}

// The attribute value of argument `a` for a kiln argument of type `type`; symbolic sizes
// through `sizes` (convert_dynamic.h).
Expected<AttrValue> attr_value(const Argument& a, const ArgSchema& arg, const DynamicSizes& sizes) {
  using K = Argument::Kind;
  if (a.symbolic) return sizes.attr_value(a, arg);
  switch (a.kind) {
    case K::None: return AttrValue();
    case K::Int:
      // A single int for an int[] argument (squeeze.dim's dim) is that one-element list.
      if (arg.type == ArgType::Ints || arg.type == ArgType::OptionalInts) return AttrValue(AttrValue::Ints{a.ints[0]});
      return AttrValue(a.ints[0]);
    case K::Ints: return AttrValue(a.ints);
    case K::Float: return AttrValue(a.floats[0]);
    case K::Bool: return AttrValue(static_cast<bool>(a.bools[0]));
    case K::String: return AttrValue(a.string);
    case K::ScalarType: {
      std::optional<DType> d = dtype_from_archive(static_cast<int>(a.ints[0]));
      if (!d)
        return make_error("argument '", arg.name, "': dtype ", archive_dtype_name(static_cast<int>(a.ints[0])),
                          " is not supported by kiln");
      return AttrValue(*d);
    }
    default: return make_error("argument '", arg.name, "' is ", a.key, ", which kiln's attribute cannot hold");
  }
}

using ValueTable = std::map<std::string, Value*>;

Expected<Value*> lookup(const ValueTable& values, const std::string& name) {
  auto it = values.find(name);
  if (it == values.end()) return make_error("uses the value '", name, "', which no earlier node or input defines");
  return it->second;
}

// The operands argument `a` gives for operand argument `arg`.
Expected<std::vector<Operand>> operands_of(const Argument& a, const ArgSchema& arg, const ValueTable& values) {
  using K = Argument::Kind;
  KILN_TRY(check_static(a, arg.name));
  std::vector<Operand> out;
  switch (a.kind) {
    case K::None: out.emplace_back(Scalar()); break;
    case K::Tensor:
    case K::Tensors:
    case K::OptionalTensors:
      for (const std::optional<std::string>& name : a.names) {
        if (!name) {
          out.emplace_back(Scalar());
          continue;
        }
        KILN_ASSIGN_OR_RETURN(Value * v, lookup(values, *name));
        out.emplace_back(v);
      }
      break;
    case K::Int: out.emplace_back(Scalar(a.ints[0])); break;
    case K::Float: out.emplace_back(Scalar(a.floats[0])); break;
    case K::Bool: out.emplace_back(Scalar(static_cast<bool>(a.bools[0]))); break;
    default: return make_error("argument '", arg.name, "' is ", a.key, ", which is not an operand kiln takes");
  }
  return out;
}

struct NodeParts {
  OpKind op;
  std::vector<Operand> operands;
  AttrMap attrs;
};

// The kiln op, operands and attributes of node `n` (its row is `row`), checked against the
// kiln schema as the IR parser checks a node it reads.
Expected<NodeParts> node_parts(const Node& n, const AtenOpMapping& row, const ValueTable& values,
                               const DynamicSizes& sizes) {
  std::optional<OpKind> kind = op_from_name(row.kiln);
  if (!kind) return make_error("the op table maps it to '", row.kiln, "', which is not a kiln op");
  const OpSchema& schema = op_info(*kind).schema;
  NodeParts parts{*kind, {}, {}};
  std::map<const ArgSchema*, std::vector<Operand>> given;
  for (const NamedArgument& in : n.inputs) {
    const ArgSchema* arg = schema.find_arg(in.name);
    if (!arg) {
      auto dropped =
          std::find_if(row.dropped.begin(), row.dropped.end(), [&](const DroppedArg& d) { return d.name == in.name; });
      if (dropped == row.dropped.end())
        return make_error("argument '", in.name, "' has no counterpart in kiln's ", schema.to_string());
      if (!dropped_value_ok(in.arg, dropped->when))
        return make_error("argument '", in.name, "' has a value (", in.arg.key,
                          ") kiln's op cannot express: ", schema.to_string());
      continue;
    }
    if (arg->is_operand()) {
      KILN_ASSIGN_OR_RETURN(given[arg], operands_of(in.arg, *arg, values));
      continue;
    }
    KILN_ASSIGN_OR_RETURN(AttrValue raw, attr_value(in.arg, *arg, sizes));
    KILN_ASSIGN_OR_RETURN(AttrValue fitted, fit_attr(schema, arg->name, raw));
    parts.attrs.set(arg->name, std::move(fitted));
  }
  // Operands in schema order; an optional one left out before a given one is `none`.
  std::vector<const ArgSchema*> operand_args = schema.operand_args();
  size_t last_given = 0;
  for (size_t i = 0; i < operand_args.size(); ++i)
    if (given.count(operand_args[i])) last_given = i + 1;
  for (size_t i = 0; i < last_given; ++i) {
    const ArgSchema* arg = operand_args[i];
    auto it = given.find(arg);
    if (it != given.end()) {
      for (Operand& o : it->second) parts.operands.push_back(std::move(o));
    } else if (arg_type_is_optional(arg->type)) {
      parts.operands.emplace_back(Scalar());
    } else if (!arg->is_variadic()) {
      return make_error("the required operand '", arg->name, "' is missing");
    }
  }
  for (size_t i = last_given; i < operand_args.size(); ++i)
    if (!arg_type_is_optional(operand_args[i]->type) && !operand_args[i]->default_value &&
        !operand_args[i]->is_variadic())
      return make_error("the required operand '", operand_args[i]->name, "' is missing");
  KILN_ASSIGN_OR_RETURN(std::vector<const ArgSchema*> args,
                        operand_args_of(schema, static_cast<int>(parts.operands.size())));
  for (size_t i = 0; i < parts.operands.size(); ++i)
    KILN_TRY(check_operand_kind(schema, *args[i], parts.operands[i].is_value(), parts.operands[i].literal));
  KILN_TRY(check_required_attrs(schema, parts.attrs));
  return parts;
}

// The names of a node's results, in order: each output a tensor (or a list of them).
Expected<std::vector<std::string>> result_names(const Node& n) {
  std::vector<std::string> names;
  for (const Argument& out : n.outputs) {
    if (out.kind != Argument::Kind::Tensor && out.kind != Argument::Kind::Tensors)
      return make_error("an output is ", out.key, "; kiln imports tensor outputs only");
    for (const std::optional<std::string>& name : out.names) names.push_back(*name);
  }
  return names;
}

// ATen's batch_norm in training mode with running statistics also updates them in place, a
// write kiln's batch_norm (a pure op) does not make: imported as the op alone, the buffers
// would silently keep their values. Refused until buffer updates are imported.
Status check_no_running_stat_update(const NodeParts& parts) {
  if (parts.op != OpKind::BatchNorm) return Status::ok();
  const AttrValue* training = parts.attrs.find("training");
  if (!training || !training->is_bool() || !training->as_bool()) return Status::ok();
  for (size_t i = 3; i < 5 && i < parts.operands.size(); ++i)
    if (parts.operands[i].is_value())
      return make_error(
          "batch_norm in training mode also updates its running statistics in place, which kiln "
          "does not import yet (export the model in eval mode, or without running statistics)");
  return Status::ok();
}

Status add_node(Graph& g, const Program& p, const Node& n, ValueTable& values, const DynamicSizes& sizes) {
  const AtenOpMapping* row = find_aten_op(n.target);
  if (!row) return make_error("the op table has no row for ", aten_name(n.target));
  KILN_ASSIGN_OR_RETURN(NodeParts parts, node_parts(n, *row, values, sizes));
  KILN_TRY(check_no_running_stat_update(parts));
  KILN_ASSIGN_OR_RETURN(std::vector<std::string> names, result_names(n));
  const OpSchema& schema = op_info(parts.op).schema;
  if (!schema.variadic_results && static_cast<int>(names.size()) != schema.num_results)
    return make_error("it has ", names.size(), " outputs, kiln's ", schema.name, " has ", schema.num_results);
  std::vector<TensorType> types;
  for (const std::string& name : names) {
    KILN_ASSIGN_OR_RETURN(TensorType t, value_type(p, name));
    types.push_back(std::move(t));
  }
  kiln::Node* node =
      g.append({parts.op, std::move(parts.operands), std::move(parts.attrs), std::move(types), {}, node_loc(n)});
  for (size_t i = 0; i < names.size(); ++i) values[names[i]] = node->result(static_cast<int>(i));
  return Status::ok();
}

// Node `index`: a sym_size.int is recorded (convert_dynamic.h), a node with a converter goes
// through it (convert_moe.h, convert_vision.h), any other through its table row.
Status add_converted_node(Graph& g, const Program& p, size_t index, ValueTable& values, DynamicSizes& sizes) {
  const Node& n = p.nodes[index];
  if (DynamicSizes::is_sym_size(n)) return sizes.record(n, values);
  if (has_moe_converter(n.target)) return convert_moe_node(g, n, values, node_loc(n));
  if (!has_vision_converter(n.target)) return add_node(g, p, n, values, sizes);
  KILN_ASSIGN_OR_RETURN(ConvertedNode converted, convert_vision_node(g, p, index, values, node_loc(n)));
  return converted ? add_node(g, p, *converted, values, sizes) : Status::ok();
}

// Whether two weights are one tensor: the same storage, viewed alike.
bool same_view(const Tensor& a, const Tensor& b) {
  return a.storage() == b.storage() && a.dtype() == b.dtype() && a.sizes() == b.sizes() && a.strides() == b.strides() &&
         a.offset() == b.offset();
}

InputRole role_of(InputSpec::Kind k) {
  switch (k) {
    case InputSpec::Kind::Parameter: return InputRole::Param;
    case InputSpec::Kind::Buffer:
    case InputSpec::Kind::Constant: return InputRole::Buffer;
    default: return InputRole::Input;
  }
}

// The graph's inputs from the signature, in order: weights with their tensors (a tied weight
// reads the input it shares), user inputs by name.
Status add_inputs(Graph& g, const Program& p, const std::map<std::string, LoadedWeight>& weights, ImportedProgram& out,
                  ValueTable& values) {
  if (p.input_specs.size() != p.inputs.size())
    return make_error("the signature has ", p.input_specs.size(), " input specs for ", p.inputs.size(),
                      " graph inputs");
  for (size_t i = 0; i < p.input_specs.size(); ++i) {
    const InputSpec& spec = p.input_specs[i];
    if (spec.kind == InputSpec::Kind::Other)
      return make_error("graph input ", i, " is a ", spec.kind_key, " input, which kiln does not import yet");
    if (spec.arg != p.inputs[i])
      return make_error("graph input ", i, " is '", p.inputs[i], "' but its signature entry names '", spec.arg, "'");
    KILN_ASSIGN_OR_RETURN(TensorType type, value_type(p, spec.arg));
    if (spec.kind == InputSpec::Kind::UserInput) {
      values[spec.arg] = g.add_input(spec.arg, type, InputRole::Input);
      out.user_inputs.push_back(spec.arg);
      continue;
    }
    auto w = weights.find(spec.target);
    if (w == weights.end())
      return make_error(spec.kind_key, " '", spec.target, "' has no entry in the weights' config");
    const Tensor& t = w->second.tensor;
    if (t.dtype() != type.dtype || !(Shape::from_sizes(t.sizes()) == type.shape))
      return make_error(spec.kind_key, " '", spec.target, "' is ", dtype_name(t.dtype()),
                        Shape::from_sizes(t.sizes()).to_string(), " in the weights' config but ", type.to_string(),
                        " in the graph");
    auto tied =
        std::find_if(out.weights.begin(), out.weights.end(), [&](const auto& kv) { return same_view(kv.second, t); });
    if (tied != out.weights.end()) {
      out.tied[spec.target] = tied->first;
      for (Value* in : g.inputs())
        if (in->name() == tied->first) values[spec.arg] = in;
      continue;
    }
    values[spec.arg] = g.add_input(spec.target, type, role_of(spec.kind));
    out.weights[spec.target] = t;
  }
  return Status::ok();
}

Status set_outputs(Graph& g, const Program& p, ImportedProgram& out, const ValueTable& values) {
  std::vector<Value*> outputs;
  for (const OutputSpec& spec : p.output_specs) {
    if (spec.kind_key != "user_output")
      return make_error("an output is a ", spec.kind_key, " (", spec.arg,
                        "), which kiln does not import yet (buffer mutations, losses and gradients come later)");
    if (spec.arg.empty()) return make_error("a user output is not a tensor; kiln imports tensor outputs only");
    KILN_ASSIGN_OR_RETURN(Value * v, lookup(values, spec.arg));
    outputs.push_back(v);
    out.user_outputs.push_back(spec.arg);
  }
  g.set_outputs(std::move(outputs));
  return Status::ok();
}

}  // namespace

std::string user_source_line(const std::string& stack_trace) {
  std::vector<Frame> frames = stack_frames(stack_trace);
  const Frame* f = user_frame(frames);
  if (!f) return "";
  return f->file + ":" + std::to_string(f->line) + (f->code.empty() ? "" : ": " + f->code);
}

Expected<ImportedProgram> program_to_graph(const Program& original, const std::map<std::string, LoadedWeight>& weights,
                                           const std::string& graph_name) {
  // Networks: transformers: nodes that need more than a row become nodes that have one.
  // Misc ops: rewrites into rows, before the in-place rewrites see the results.
  KILN_ASSIGN_OR_RETURN(Program misc, convert_misc_nodes(original));
  KILN_ASSIGN_OR_RETURN(Program program, convert_text_nodes(misc));
  KILN_TRY(check_ops_supported(program));
  ImportedProgram out;
  out.graph = std::make_unique<Graph>(graph_name);
  ValueTable values;
  DynamicSizes sizes;
  KILN_TRY(add_inputs(*out.graph, program, weights, out, values));
  for (size_t i = 0; i < program.nodes.size(); ++i) {
    const Node& n = program.nodes[i];
    Status added = add_converted_node(*out.graph, program, i, values, sizes);
    if (!added) {
      std::string where = user_source_line(n.stack_trace);
      return make_error("node %", n.name, " (", aten_name(n.target), where.empty() ? "" : " at " + where,
                        "): ", added.error().message());
    }
  }
  KILN_TRY(set_outputs(*out.graph, program, out, values));
  add_range_guards(*out.graph, program);
  Status verified = verify_graph(*out.graph);
  if (!verified) return make_error("the imported graph does not verify: ", verified.error().to_string());
  return out;
}

}  // namespace kiln::pt2
