// The schema-driven recipe (fill_from_schema, draw_attr), the recipes of the ops that divide
// integers, and the table that picks each op's recipe.
#include "fuzz/op_recipes.h"

#include <algorithm>
#include <string_view>

#include "ir/view_chain.h"
#include "ops/op_info.h"

namespace kiln::fuzz {
namespace {

bool is_condition_arg(std::string_view name) { return name == "condition" || name == "mask"; }

// A distinct subset of a rank-`rank` tensor's dims, some written negative.
std::vector<int64_t> dim_subset(Choices& c, int rank) {
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d)
    if (c.percent(40)) dims.push_back(c.percent(30) ? d - rank : d);
  return dims;
}

// Values of string attributes, by name; the schema says only "str".
std::vector<AttrValue> string_values(std::string_view name) {
  if (name == "approximate") return {"none", "tanh"};
  if (name == "rounding_mode") return {AttrValue(), "trunc", "floor"};
  if (name == "reduction") return {"none", "mean", "sum"};
  return {};
}

}  // namespace

Value* pick_ranked(GenContext& ctx, int min_rank) {
  return ctx.pick_value_if([&](const TensorType& t) { return t.shape.rank() >= min_rank; });
}

bool writable(const GenContext& ctx, const Value* v) {
  for (const Value* u = v; u->producer() && u->producer()->info().has(kView); u = u->producer()->operand(0).value)
    if (u->producer()->op() == OpKind::Expand || u->producer()->op() == OpKind::AsStrided) return false;
  return ctx.depth == 0 || !storage_root(v)->is_input();
}

namespace {

// Division, remainder and fmod of integers by zero are run errors: the divisor becomes
// where(divisor == 0, 1, divisor) unless the graph may fail.
bool divide(GenContext& ctx, OpDraft& d) {
  if (!fill_from_schema(ctx, d)) return false;
  Operand& divisor = d.operands[1];
  if (ctx.may_fail()) return true;
  if (divisor.is_value() && !is_floating(divisor.value->type().dtype)) {
    Value* zero = ctx.helper(OpKind::Eq, {divisor.value, Scalar(int64_t{0})});
    divisor = ctx.helper(OpKind::Where, {zero, Scalar(int64_t{1}), divisor.value});
  } else if (!divisor.is_value() && !divisor.literal.is_float() && divisor.literal.to_double() == 0) {
    divisor = Scalar(int64_t{1});
  }
  return true;
}

const RecipeTable& recipe_table() {
  static const RecipeTable table = [] {
    RecipeTable t{};
    for (OpKind op : {OpKind::Div, OpKind::DivInplace, OpKind::Remainder, OpKind::Fmod})
      t[static_cast<size_t>(op)] = divide;
    add_layout_recipes(t);
    add_index_recipes(t);
    add_nn_recipes(t);
    add_creation_recipes(t);
    add_control_recipes(t);
    add_sort_recipes(t);
    return t;
  }();
  return table;
}

}  // namespace

Recipe recipe_for(OpKind op) {
  Recipe r = recipe_table()[static_cast<size_t>(op)];
  return r ? r : fill_from_schema;
}

bool draw_attr(GenContext& ctx, OpDraft& d, const ArgSchema& arg, const TensorType& self) {
  Choices& c = ctx.choices;
  const std::string& name = arg.name;
  const int rank = self.shape.rank();
  auto set = [&](AttrValue v) {
    d.attrs.set(name, std::move(v));
    return true;
  };
  if (name == "unique_indices") return true;  // a promise about the data, not drawn (ops.def)
  if (arg.default_value && c.percent(40)) return true;
  const bool is_dim = name.find("dim") != std::string::npos;
  switch (arg.type) {
    case ArgType::Bool: return set(c.percent(50));
    case ArgType::OptionalDType: return ctx.options.differentiable || set(ctx.dtype());
    case ArgType::Int:
    case ArgType::OptionalInt:
      if (arg.type == ArgType::OptionalInt && c.percent(25)) return set(AttrValue());
      if (is_dim) return set(ctx.dim(rank));
      if (name == "seed") return set(c.between(0, 1000));
      if (name == "step") return set(c.between(1, 3));
      return set(c.between(-2, 4));
    case ArgType::Ints:
    case ArgType::OptionalInts:
    case ArgType::SymInts:
      if (arg.type == ArgType::OptionalInts && c.percent(25)) return set(AttrValue());
      if (is_dim) return set(dim_subset(c, rank));
      return arg.default_value.has_value();  // sizes, pads, strides: the op's recipe draws them
    case ArgType::Scalar:
    case ArgType::OptionalScalar:
    case ArgType::SymScalar:
      if (arg.type == ArgType::OptionalScalar && c.percent(25)) return set(AttrValue());
      return set(AttrValue::from_scalar(ctx.scalar(self.dtype)));
    case ArgType::Float:
    case ArgType::OptionalFloat: {
      if (arg.type == ArgType::OptionalFloat && c.percent(25)) return set(AttrValue());
      static const double kFloats[] = {0.0, 1e-5, 0.1, 0.5, 1.0};
      return set(c.pick(kFloats));
    }
    case ArgType::Str:
    case ArgType::OptionalStr: {
      std::vector<AttrValue> values = string_values(name);
      if (values.empty()) return arg.default_value.has_value();
      return set(c.pick(values));
    }
    default: return arg.default_value.has_value();
  }
}

bool fill_from_schema(GenContext& ctx, OpDraft& d) {
  const OpInfo& info = op_info(d.op);
  Choices& c = ctx.choices;
  const Value* self = nullptr;
  for (const ArgSchema& arg : info.schema.args) {
    if (arg.is_subgraph()) return false;
    if (!arg.is_operand()) continue;
    if (arg.type != ArgType::Tensor && arg.type != ArgType::OptionalTensor && arg.type != ArgType::TensorOrScalar)
      return false;                 // lists: the op's recipe draws them
    if (arg.name == "rng_state") {  // the runtime generator state: any i64[2] (ops.def)
      d.operands.push_back(c.percent(30) ? Operand(ctx.fresh_value({DType::I64, Shape{2}})) : Operand(Scalar()));
      continue;
    }
    Value* v = nullptr;
    if (!self) {
      if (is_condition_arg(arg.name))
        v = ctx.pick_value_if([](const TensorType& t) { return t.dtype == DType::Bool; });
      else if (info.has(kInplace))
        v = ctx.pick_value_where([&](const Value& u) { return writable(ctx, &u); });
      else
        v = ctx.pick_value();
      if (!v) return false;
      self = v;
    } else if (arg.type == ArgType::OptionalTensor && c.percent(40)) {
      d.operands.push_back(Scalar());
      continue;
    } else if (arg.type == ArgType::TensorOrScalar && c.percent(30)) {
      d.operands.push_back(ctx.scalar(self->type().dtype));
      continue;
    } else {
      v = ctx.partner(self->type(), is_condition_arg(arg.name) ? std::optional<DType>(DType::Bool) : std::nullopt);
      if (!v) return false;
    }
    d.operands.push_back(v);
  }
  const TensorType self_type = self ? self->type() : TensorType{DType::F32, Shape{}};
  for (const ArgSchema& arg : info.schema.args)
    if (arg.is_attr() && !draw_attr(ctx, d, arg, self_type)) return false;
  return true;
}

}  // namespace kiln::fuzz
