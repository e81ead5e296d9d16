#include "ops/op_call.h"

#include <new>

#include "core/checked_layout.h"
#include "ops/rng_state.h"
#include "ops/schema_check.h"
#include "support/check.h"
#include "support/error.h"

namespace kiln {

const AttrValue& OpCallBase::attr(std::string_view name) const {
  if (const AttrValue* v = attrs_->find(name)) return *v;
  const ArgSchema* arg = info().schema.find_arg(name);
  KILN_CHECK(arg != nullptr && arg->is_attr()) << info().name() << " has no attribute '" << name << "'";
  KILN_CHECK(arg->default_value.has_value()) << info().name() << ": required attribute '" << name << "' missing";
  return *arg->default_value;
}

std::optional<int64_t> OpCallBase::attr_opt_int(std::string_view name) const {
  const AttrValue& v = attr(name);
  if (v.is_none()) return std::nullopt;
  return v.as_int();
}

std::optional<double> OpCallBase::attr_opt_float(std::string_view name) const {
  const AttrValue& v = attr(name);
  if (v.is_none()) return std::nullopt;
  return v.as_float();
}

std::optional<std::vector<int64_t>> OpCallBase::attr_opt_ints(std::string_view name) const {
  const AttrValue& v = attr(name);
  if (v.is_none()) return std::nullopt;
  return v.as_ints();
}

std::optional<std::string> OpCallBase::attr_opt_str(std::string_view name) const {
  const AttrValue& v = attr(name);
  if (v.is_none()) return std::nullopt;
  return v.as_string();
}

std::optional<DType> OpCallBase::attr_dtype(std::string_view name) const {
  const AttrValue& v = attr(name);
  if (v.is_none()) return std::nullopt;
  return v.as_dtype();
}

Status check_fits_schema(const TypeCall& call) {
  const OpSchema& schema = call.info().schema;
  KILN_TRY(check_attrs(schema, call.explicit_attrs()));
  KILN_ASSIGN_OR_RETURN(auto ranges, schema.operand_ranges(static_cast<int>(call.operands.size())));
  std::vector<const ArgSchema*> args = schema.operand_args();
  for (size_t a = 0; a < ranges.size(); ++a)
    for (int i = ranges[a].first; i < ranges[a].second; ++i) {
      const TypeOperand& o = call.operands[static_cast<size_t>(i)];
      KILN_TRY(check_operand_kind(schema, *args[a], o.is_tensor(), o.literal));
    }
  if (call.subgraphs.size() != schema.subgraph_args().size())
    return make_error(schema.name, " expects ", schema.subgraph_args().size(), " subgraphs, got ",
                      call.subgraphs.size());
  return Status::ok();
}

namespace {

// The op's shape rule on `call`. Dim arithmetic that overflows int64 (sizes near 2^63 in a
// graph's text) and a dim the rule cannot handle are errors of the op, not crashes.
Expected<std::vector<Shape>> shape_rule_of(const OpInfo& info, const TypeCall& call) {
  try {
    return info.shape_rule(call);
  } catch (const SymExprOverflow& e) {
    return make_error(info.name(), ": ", e.what());
  } catch (const Error& e) {
    return make_error(info.name(), ": ", e.diagnostic().message());
  }
}

}  // namespace

Expected<std::vector<TensorType>> infer_types(const TypeCall& call) {
  const OpInfo& info = call.info();
  KILN_TRY(check_fits_schema(call));
  KILN_TRY(check_rng_state(call));
  KILN_ASSIGN_OR_RETURN(std::vector<Shape> shapes, shape_rule_of(info, call));
  KILN_ASSIGN_OR_RETURN(std::vector<DType> dtypes, info.dtype_rule(call));
  // A rule may give one dtype for many results (split, chunk).
  if (dtypes.size() == 1 && shapes.size() > 1) dtypes.resize(shapes.size(), dtypes[0]);
  KILN_CHECK(shapes.size() == dtypes.size())
      << info.name() << ": shape rule gave " << shapes.size() << " results, dtype rule " << dtypes.size();
  std::vector<TensorType> out;
  out.reserve(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) out.push_back({dtypes[i], std::move(shapes[i])});
  return out;
}

std::vector<TypeOperand> operand_types(std::span<const KernelOperand> operands) {
  std::vector<TypeOperand> out;
  out.reserve(operands.size());
  for (const KernelOperand& o : operands) {
    TypeOperand t;
    if (o.is_tensor()) t.type = o.tensor.type();
    t.literal = o.literal;
    out.push_back(std::move(t));
  }
  return out;
}

namespace {

// Results too large to allocate are a user error (a size typo), not a crash.
Status check_result_sizes(std::string_view op, std::span<const TensorType> types) {
  for (size_t i = 0; i < types.size(); ++i)
    if (!contiguous_bytes(types[i].shape.sizes(), types[i].dtype))
      return make_error(op, ": result ", i, " of type ", types[i].to_string(), " is too large to allocate");
  return Status::ok();
}

}  // namespace

Expected<std::vector<Tensor>> run_op(OpKind op, const AttrMap& attrs, std::span<const KernelOperand> operands) {
  const OpInfo& info = op_info(op);
  if (info.has(kHigherOrder)) return make_error(info.name(), " has subgraphs and runs only in the interpreter");
  for (size_t i = 0; i < operands.size(); ++i)
    KILN_TRY(require_on_host(operands[i].tensor, std::string(info.name()) + ": operand " + std::to_string(i),
                             "its reference kernel"));
  std::vector<TypeOperand> types = operand_types(operands);
  TypeCall tcall(op, attrs, types);
  KILN_ASSIGN_OR_RETURN(std::vector<TensorType> result_types, infer_types(tcall));
  KILN_TRY(check_result_sizes(info.name(), result_types));
  KernelCall kcall(op, attrs, operands, result_types);
  try {
    return info.kernel(kcall);
  } catch (const std::bad_alloc&) {
    return make_error(info.name(), ": out of memory while computing the results");
  } catch (const Error& e) {  // a tensor the kernel allocates: out of memory, naming its bytes
    return make_error(info.name(), ": ", e.diagnostic().message());
  }
}

}  // namespace kiln
