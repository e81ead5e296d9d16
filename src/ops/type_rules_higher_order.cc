// Shape and dtype rules of the higher-order ops (cond, while_loop, scan, map), from the
// operand types and the subgraphs' signatures. Operand conventions: interp/higher_order.cc.
// Each op has one rule computing full result types; the shape and dtype hooks project it.
#include <algorithm>
#include <set>
#include <string>

#include "ops/type_rules.h"
#include "support/check.h"

namespace kiln {
namespace {

std::string types_to_string(const std::vector<TensorType>& types) {
  std::string s = "(";
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + types[i].to_string();
  return s + ")";
}

// Every operand is a tensor: the schemas declare only Tensor and Tensor[] operands, and
// infer_types refuses literals there before any rule runs.
std::vector<TensorType> operand_tensor_types(const TypeCall& call, size_t begin, size_t end) {
  std::vector<TensorType> out;
  for (size_t i = begin; i < end; ++i) {
    KILN_CHECK(call.operands[i].is_tensor()) << call.name() << ": operand " << i << " is not a tensor";
    out.push_back(*call.operands[i].type);
  }
  return out;
}

const SubgraphSignature& subgraph(const TypeCall& call, size_t i) {
  KILN_CHECK(i < call.subgraphs.size()) << call.name() << ": subgraph " << i << " missing from the type call";
  return call.subgraphs[i];
}

std::string subgraph_name(const TypeCall& call, size_t i) { return call.info().schema.subgraph_args()[i]->name; }

// The subgraph's inputs must be exactly `expected`.
Status check_inputs(const TypeCall& call, size_t i, const std::vector<TensorType>& expected) {
  const SubgraphSignature& sig = subgraph(call, i);
  if (sig.inputs != expected)
    return make_error(call.name(), ": ", subgraph_name(call, i), " takes ", types_to_string(sig.inputs),
                      " but is given ", types_to_string(expected));
  return Status::ok();
}

// A one-element bool: a predicate.
bool is_predicate(const TensorType& t) {
  if (t.dtype != DType::Bool) return false;
  for (const Dim& d : t.shape.dims())
    if (!(d == 1)) return false;
  return true;
}

// Whether dim `d` of a body input is a loop symbol: a bare symbol standing for a carried dim
// that changes across iterations (propagate-shapes introduces them), where the operand has
// a different dim.
bool is_loop_symbol(const Dim& body_in, const Dim& operand) { return body_in.is_symbol() && !(body_in == operand); }

// Loop-carried types: the body's input types `body_in` must equal the carried operands'
// types, except at loop symbols; the body's outputs must equal its inputs except at loop
// symbols, where any dim may come back. The loop's results take the body's input types.
Status check_carried(const TypeCall& call, const std::string& what, const std::vector<TensorType>& operands,
                     const std::vector<TensorType>& body_in, const std::vector<TensorType>& body_out) {
  auto fits = [](const TensorType& in, const TensorType& operand, const TensorType& out) {
    if (in.dtype != operand.dtype || in.dtype != out.dtype || in.shape.rank() != operand.shape.rank() ||
        in.shape.rank() != out.shape.rank())
      return false;
    for (int d = 0; d < in.shape.rank(); ++d) {
      if (is_loop_symbol(in.shape[d], operand.shape[d])) continue;
      if (!(in.shape[d] == operand.shape[d]) || !(out.shape[d] == in.shape[d])) return false;
    }
    return true;
  };
  if (body_in.size() != operands.size() || body_out.size() < operands.size())
    return make_error(call.name(), ": ", what, " takes ", types_to_string(body_in), " and returns ",
                      types_to_string(body_out), " but the carried values are ", types_to_string(operands));
  for (size_t i = 0; i < operands.size(); ++i)
    if (!fits(body_in[i], operands[i], body_out[i]))
      return make_error(call.name(), ": carried value ", i, " is ", operands[i].to_string(), " but ", what, " takes ",
                        body_in[i].to_string(), " and returns ", body_out[i].to_string(),
                        " (only a loop symbol of the body's input may change across iterations)");
  return Status::ok();
}

TensorType with_dim_removed(TensorType t, int dim) {
  t.shape.dims().erase(t.shape.dims().begin() + dim);
  return t;
}

TensorType with_dim_inserted(TensorType t, int dim, const Dim& size) {
  t.shape.dims().insert(t.shape.dims().begin() + dim, size);
  return t;
}

// Output i's shape where the branches disagree on some dims (same rank): those dims become a
// symbol that neither branch has, the one recorded on the node or a fresh one.
Expected<Shape> join_branch_shapes(const TypeCall& call, size_t i, const Shape& t, const Shape& f) {
  std::set<std::string> taken;
  for (const Dim& d : t.dims()) d.expr().collect_symbols(taken);
  for (const Dim& d : f.dims()) d.expr().collect_symbols(taken);
  Shape out = t;
  for (int d = 0; d < t.rank(); ++d) {
    if (t[d] == f[d]) continue;
    if (i < call.recorded.size() && call.recorded[i].shape.rank() == t.rank()) {
      const Dim& r = call.recorded[i].shape[d];
      if (r.is_symbol() && !taken.count(r.symbol_name())) {
        out[d] = r;
        continue;
      }
    }
    if (!call.fresh) return make_error("cond: branches disagree on dim ", d);
    out[d] = (*call.fresh)();
  }
  return out;
}

// `join_shapes` false (the dtype rule) leaves the shapes as true_fn's, so that only the shape
// rule asks for fresh symbols.
Expected<std::vector<TensorType>> types_cond(const TypeCall& call, bool join_shapes) {
  // The schema's `Tensor pred` is a fixed operand, so infer_types has checked it is there.
  KILN_CHECK(!call.operands.empty()) << "cond: missing the predicate operand";
  const std::vector<TensorType> pred = operand_tensor_types(call, 0, 1);
  if (!is_predicate(pred[0]))
    return make_error("cond: the predicate must be a one-element bool tensor, got ", pred[0].to_string());
  const std::vector<TensorType> args = operand_tensor_types(call, 1, call.operands.size());
  KILN_TRY(check_inputs(call, 0, args));
  KILN_TRY(check_inputs(call, 1, args));
  const std::vector<TensorType>& t = subgraph(call, 0).outputs;
  const std::vector<TensorType>& f = subgraph(call, 1).outputs;
  if (t.size() != f.size())
    return make_error("cond: true_fn returns ", t.size(), " tensors but false_fn returns ", f.size());
  std::vector<TensorType> result = t;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].dtype != f[i].dtype)
      return make_error("cond: output ", i, " is ", t[i].to_string(), " in true_fn but ", f[i].to_string(),
                        " in false_fn");
    if (!join_shapes || t[i].shape == f[i].shape) continue;
    auto mismatch = [&] {
      return make_error("cond: output ", i, " has shape ", t[i].shape.to_string(), " in true_fn but ",
                        f[i].shape.to_string(), " in false_fn; branches must agree in shape");
    };
    if (t[i].shape.rank() != f[i].shape.rank()) return mismatch();
    Expected<Shape> joined = join_branch_shapes(call, i, t[i].shape, f[i].shape);
    if (!joined) return mismatch();
    result[i].shape = *joined;
  }
  return result;
}

Expected<std::vector<TensorType>> types_while_loop(const TypeCall& call) {
  const std::vector<TensorType> carried = operand_tensor_types(call, 0, call.operands.size());
  const std::vector<TensorType>& c = subgraph(call, 0).outputs;
  if (c.size() != 1 || c[0] != TensorType{DType::Bool, Shape{}})
    return make_error("while_loop: cond_fn must return bool[], it returns ", types_to_string(c));
  const std::vector<TensorType>& b = subgraph(call, 1).outputs;
  const std::vector<TensorType>& body_in = subgraph(call, 1).inputs;
  if (subgraph(call, 0).inputs != body_in)
    return make_error("while_loop: cond_fn takes ", types_to_string(subgraph(call, 0).inputs), " but body_fn takes ",
                      types_to_string(body_in));
  if (!check_carried(call, "body_fn", carried, body_in, b)) {
    if (!check_carried(call, "body_fn", carried, body_in, body_in)) KILN_TRY(check_inputs(call, 1, carried));
    return make_error("while_loop: body_fn returns ", types_to_string(b), " but the carried values are ",
                      types_to_string(body_in));
  }
  return body_in;
}

Expected<std::vector<TensorType>> types_scan(const TypeCall& call) {
  const int64_t num_init = call.attr_int("num_init");
  const size_t n = call.operands.size();
  if (num_init < 0 || static_cast<size_t>(num_init) > n)
    return make_error("scan: num_init=", num_init, " but there are ", n, " operands");
  const std::vector<TensorType> carry = operand_tensor_types(call, 0, static_cast<size_t>(num_init));
  const std::vector<TensorType> xs = operand_tensor_types(call, static_cast<size_t>(num_init), n);
  if (xs.empty()) return make_error("scan: needs at least one operand to scan over");
  const auto dim = wrap_dim(call.attr_int("dim"), xs[0].shape.rank());
  if (!dim) return make_error("scan: dim=", call.attr_int("dim"), " is out of range for ", xs[0].to_string());
  const Dim length = xs[0].shape[*dim];
  std::vector<TensorType> args = carry;
  for (const TensorType& x : xs) {
    if (x.shape.rank() != xs[0].shape.rank() || !(x.shape[*dim] == length))
      return make_error("scan: scanned operands disagree in size along dim ", *dim, ": ", xs[0].to_string(), " vs ",
                        x.to_string());
    args.push_back(with_dim_removed(x, *dim));
  }
  const SubgraphSignature& fn = subgraph(call, 0);
  const std::vector<TensorType>& out = fn.outputs;
  // The slices must fit exactly; the carries may have loop symbols (see check_carried).
  if (fn.inputs.size() != args.size() ||
      !std::equal(args.begin() + static_cast<std::ptrdiff_t>(carry.size()), args.end(),
                  fn.inputs.begin() + static_cast<std::ptrdiff_t>(carry.size())))
    return make_error("scan: combine_fn takes ", types_to_string(fn.inputs), " but is given ", types_to_string(args));
  const std::vector<TensorType> carry_in(fn.inputs.begin(),
                                         fn.inputs.begin() + static_cast<std::ptrdiff_t>(carry.size()));
  if (out.size() < carry.size() || !check_carried(call, "combine_fn", carry, carry_in, out))
    return make_error("scan: combine_fn must return the carries ", types_to_string(carry_in), " first, it returns ",
                      types_to_string(out));
  std::vector<TensorType> results = carry_in;
  for (size_t i = carry.size(); i < out.size(); ++i) results.push_back(with_dim_inserted(out[i], *dim, length));
  return results;
}

Expected<std::vector<TensorType>> types_map(const TypeCall& call) {
  const int64_t num_mapped = call.attr_int("num_mapped");
  const size_t n = call.operands.size();
  if (num_mapped < 1 || static_cast<size_t>(num_mapped) > n)
    return make_error("map: num_mapped=", num_mapped, " but there are ", n, " operands");
  const std::vector<TensorType> xs = operand_tensor_types(call, 0, static_cast<size_t>(num_mapped));
  const std::vector<TensorType> extra = operand_tensor_types(call, static_cast<size_t>(num_mapped), n);
  if (xs[0].shape.rank() == 0)
    return make_error("map: mapped operands need a dim to map over, got ", xs[0].to_string());
  const Dim length = xs[0].shape[0];
  std::vector<TensorType> args;
  for (const TensorType& x : xs) {
    if (x.shape.rank() == 0 || !(x.shape[0] == length))
      return make_error("map: mapped operands disagree in size along dim 0: ", xs[0].to_string(), " vs ",
                        x.to_string());
    args.push_back(with_dim_removed(x, 0));
  }
  args.insert(args.end(), extra.begin(), extra.end());
  KILN_TRY(check_inputs(call, 0, args));
  std::vector<TensorType> results;
  for (const TensorType& t : subgraph(call, 0).outputs) results.push_back(with_dim_inserted(t, 0, length));
  return results;
}

std::vector<Shape> shapes_of(const std::vector<TensorType>& types) {
  std::vector<Shape> out;
  for (const TensorType& t : types) out.push_back(t.shape);
  return out;
}

std::vector<DType> dtypes_of(const std::vector<TensorType>& types) {
  std::vector<DType> out;
  for (const TensorType& t : types) out.push_back(t.dtype);
  return out;
}

}  // namespace

Expected<std::vector<Shape>> shape_rule_cond(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<TensorType> t, types_cond(call, true));
  return shapes_of(t);
}

Expected<std::vector<DType>> dtype_rule_cond(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<TensorType> t, types_cond(call, false));
  return dtypes_of(t);
}

Expected<std::vector<Shape>> shape_rule_while_loop(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<TensorType> t, types_while_loop(call));
  return shapes_of(t);
}

Expected<std::vector<DType>> dtype_rule_while_loop(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<TensorType> t, types_while_loop(call));
  return dtypes_of(t);
}

Expected<std::vector<Shape>> shape_rule_scan(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<TensorType> t, types_scan(call));
  return shapes_of(t);
}

Expected<std::vector<DType>> dtype_rule_scan(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<TensorType> t, types_scan(call));
  return dtypes_of(t);
}

Expected<std::vector<Shape>> shape_rule_map(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<TensorType> t, types_map(call));
  return shapes_of(t);
}

Expected<std::vector<DType>> dtype_rule_map(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<TensorType> t, types_map(call));
  return dtypes_of(t);
}

}  // namespace kiln
