#include "fuzz/gen_context.h"

#include <algorithm>
#include <cmath>

#include "fuzz/known_bugs.h"
#include "lower/lower.h"
#include "ops/op_call.h"
#include "ops/type_rules.h"
#include "support/check.h"

namespace kiln::fuzz {

GenContext::GenContext(Graph& graph, Choices& choices, const GeneratorOptions& options, int depth, bool pointwise)
    : graph(graph), choices(choices), options(options), depth(depth), pointwise(pointwise) {
  for (Value* v : graph.inputs()) pool_.push_back(v);
}

Value* GenContext::pick_value() {
  if (pool_.empty()) return nullptr;
  // Half the time one of the last three: a chain of ops on one another's results.
  const size_t n = pool_.size();
  if (n > 3 && choices.percent(50)) return pool_[n - 1 - choices.below(3)];
  return pool_[choices.below(n)];
}

Value* GenContext::pick_value_if(const std::function<bool(const TensorType&)>& fits) {
  return pick_value_where([&](const Value& v) { return fits(v.type()); });
}

Value* GenContext::pick_value_where(const std::function<bool(const Value&)>& where) {
  std::vector<Value*> candidates;
  for (Value* v : pool_)
    if (where(*v)) candidates.push_back(v);
  if (candidates.empty()) return nullptr;
  if (candidates.size() > 3 && choices.percent(50)) return candidates[candidates.size() - 1 - choices.below(3)];
  return choices.pick(candidates);
}

Value* GenContext::new_input(TensorType type) {
  Value* v = graph.add_input("in" + std::to_string(graph.num_inputs()), std::move(type));
  pool_.push_back(v);
  return v;
}

Value* GenContext::constant(const TensorType& type) {
  return options.differentiable ? random_draw(type) : value_of_type(type);
}

Value* GenContext::fresh_value(TensorType type) {
  if (pointwise) return nullptr;
  if (depth == 0) return new_input(std::move(type));
  return random_draw(type);
}

Value* GenContext::random_draw(const TensorType& type) {
  const std::vector<int64_t> sizes = type.shape.sizes();
  if (options.differentiable && depth > 0)  // a random op in a body hits a known bug (known_bugs.h)
    return helper(
        OpKind::Full, {},
        {{"size", sizes}, {"fill_value", static_cast<double>(choices.between(-4, 4)) / 2}, {"dtype", type.dtype}});
  const int64_t seed = choices.between(0, 1000);
  if (is_floating(type.dtype))
    return helper(OpKind::Randn, {}, {{"size", sizes}, {"seed", seed}, {"dtype", type.dtype}});
  const bool is_bool = type.dtype == DType::Bool;
  const int64_t low = is_bool || !is_signed(type.dtype) ? 0 : -8, high = is_bool ? 2 : 8;
  Value* v = helper(
      OpKind::Randint, {},
      {{"low", low}, {"high", high}, {"size", sizes}, {"seed", seed}, {"dtype", is_bool ? DType::I64 : type.dtype}});
  return is_bool ? helper(OpKind::ToCopy, {v}, {{"dtype", DType::Bool}}) : v;
}

Value* GenContext::partner(const TensorType& of, std::optional<DType> dtype) {
  if (pointwise || choices.percent(50)) {
    Value* v = pick_value_if([&](const TensorType& t) {
      return (!dtype || t.dtype == *dtype) && broadcast_shapes(of.shape, t.shape).has_value();
    });
    if (v || pointwise) return v;
  }
  std::vector<int64_t> s = of.shape.sizes();
  if (!s.empty() && choices.percent(30)) s.erase(s.begin(), s.begin() + static_cast<long>(choices.below(s.size() + 1)));
  for (int64_t& d : s)
    if (choices.percent(20)) d = 1;
  if (choices.percent(10) && static_cast<int64_t>(s.size()) < 4) s.insert(s.begin(), choices.between(1, 3));
  DType t = dtype ? *dtype : choices.percent(60) ? of.dtype : this->dtype();
  if (options.differentiable && is_floating(t)) t = DType::F64;
  return fresh_value({t, Shape::from_sizes(s)});
}

Value* GenContext::value_of_type(const TensorType& type) {
  if (Value* v = pick_value_if([&](const TensorType& t) { return t == type; }); v && (pointwise || choices.percent(80)))
    return v;
  if (pointwise) {
    Value* v = pick_value_if([&](const TensorType& t) { return t.shape == type.shape; });
    return v ? helper(OpKind::ToCopy, {v}, {{"dtype", type.dtype}}) : nullptr;
  }
  // A drawn value broadcast to the shape (and cast): keeps the output a function of the inputs.
  Value* v = pick_value_if([&](const TensorType& t) {
    Expected<Shape> b = broadcast_shapes(t.shape, type.shape);
    return b && *b == type.shape;
  });
  if (!v || choices.percent(20)) return fresh_value(type);
  if (v->type().dtype != type.dtype) v = helper(OpKind::ToCopy, {v}, {{"dtype", type.dtype}});
  if (v->type().shape != type.shape) {
    std::vector<int64_t> sizes = type.shape.sizes();
    v = helper(OpKind::Expand, {v}, {{"size", sizes}});
    v = helper(OpKind::Contiguous, {v});  // a body output must not be an expanded view of an input
  }
  return v;
}

DType GenContext::dtype() {
  if (options.differentiable) return DType::F64;
  static const DType kWeighted[] = {DType::F32, DType::F32,  DType::F32, DType::F32,  DType::F64,
                                    DType::F16, DType::BF16, DType::I64, DType::I64,  DType::I32,
                                    DType::I16, DType::I8,   DType::U8,  DType::Bool, DType::Bool};
  return choices.pick(kWeighted);
}

DType GenContext::float_dtype() {
  if (options.differentiable) return DType::F64;
  static const DType kWeighted[] = {DType::F32, DType::F32, DType::F32, DType::F64, DType::F16, DType::BF16};
  return choices.pick(kWeighted);
}

std::vector<int64_t> GenContext::sizes(int rank) {
  std::vector<int64_t> s;
  int64_t numel = 1;
  for (int i = 0; i < rank; ++i) {
    const uint64_t r = choices.below(100);
    int64_t d = r < 6 ? 0 : r < 30 ? 1 : choices.between(2, 5);
    while (d > 1 && numel * d > options.max_elements) --d;
    numel *= std::max<int64_t>(d, 1);
    s.push_back(d);
  }
  return s;
}

TensorType GenContext::tensor_type() {
  static const int kRanks[] = {0, 1, 1, 2, 2, 2, 3, 3, 4};
  return {dtype(), Shape::from_sizes(sizes(choices.pick(kRanks)))};
}

Scalar GenContext::scalar(DType like) {
  if (like == DType::Bool && choices.percent(70)) return Scalar(choices.percent(50));
  if (!is_floating(like) && choices.percent(80)) {
    static const int64_t kInts[] = {0, 1, -1, 2, 3, -7, 100};
    return Scalar(choices.pick(kInts));
  }
  static const double kFloats[] = {0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-3, 100.0, -0.0, INFINITY, -INFINITY, NAN};
  // inf and nan rarely: most of a graph should compute with finite numbers.
  const size_t finite = std::size(kFloats) - 3;
  return Scalar(kFloats[choices.percent(95) ? choices.below(finite) : finite + choices.below(3)]);
}

int64_t GenContext::dim(int rank) {
  if (rank == 0) return choices.percent(50) ? 0 : -1;
  return choices.between(-rank, rank - 1);
}

Expected<std::vector<Value*>> GenContext::append(OpDraft draft) {
  std::vector<TypeOperand> operand_types;
  for (const Operand& o : draft.operands) {
    if (o.is_value())
      operand_types.push_back({o.value->type(), {}});
    else
      operand_types.push_back({std::nullopt, o.literal});
  }
  std::vector<SubgraphSignature> signatures;
  for (const auto& g : draft.subgraphs) signatures.push_back(graph_signature(*g));
  TypeCall call(draft.op, draft.attrs, operand_types, signatures);
  KILN_ASSIGN_OR_RETURN(std::vector<TensorType> types, infer_types(call));
  for (const TensorType& t : types)
    if (!t.shape.is_static()) return make_error(op_info(draft.op).name(), ": a symbolic result");
  Node* n = graph.append(Graph::NewNode{draft.op, std::move(draft.operands), std::move(draft.attrs), std::move(types),
                                        std::move(draft.subgraphs)});
  if (pointwise && !lowers_inline(*n)) {  // the CPU backend refuses such a body (lower/subgraph.h)
    graph.erase(n);
    return make_error(op_info(draft.op).name(), ": not inlined in a pointwise body");
  }
  if (const KnownBug* bug = hits_known_bug(*n, options)) {
    graph.erase(n);
    return make_error(op_info(draft.op).name(), ": hits a known bug in ", bug->where);
  }
  std::vector<Value*> results = n->results();
  pool_.insert(pool_.end(), results.begin(), results.end());
  return results;
}

Value* GenContext::helper(OpKind op, std::vector<Operand> operands, AttrMap attrs) {
  Expected<std::vector<Value*>> r = append(OpDraft{op, std::move(operands), std::move(attrs)});
  KILN_CHECK(r && r->size() == 1) << "fuzz: helper " << op_info(op).name()
                                  << " is ill-typed: " << (r ? "several results" : r.error().to_string());
  return r->front();
}

Value* GenContext::indices(const std::vector<int64_t>& sizes, int64_t bound) {
  KILN_CHECK(bound >= 1) << "fuzz: indices below " << bound;
  const Shape shape = Shape::from_sizes(sizes);
  Value* v = pick_value_if(
      [&](const TensorType& t) { return (t.dtype == DType::I64 || t.dtype == DType::I32) && t.shape == shape; });
  if (!v || choices.percent(40)) v = fresh_value({choices.percent(70) ? DType::I64 : DType::I32, shape});
  if (may_fail()) return v;
  return helper(OpKind::Remainder, {v, Scalar(bound)});
}

Value* GenContext::predicate() {
  Value* v = pick_value();
  if (!v) v = fresh_value(tensor_type());
  if (v->type().dtype == DType::Bool) return helper(choices.percent(50) ? OpKind::Any : OpKind::All, {v});
  Value* s = helper(OpKind::Sum, {v});
  return helper(OpKind::Gt, {s, scalar(s->type().dtype)});
}

void GenContext::rollback(Checkpoint c) {
  // Inputs drawn since stay in the graph; only values of erased nodes leave the pool (decided
  // before the nodes, and their values, are freed).
  std::vector<Value*> kept(pool_.begin(), pool_.begin() + static_cast<long>(c.num_values));
  for (size_t i = c.num_values; i < pool_.size(); ++i)
    if (pool_[i]->is_input()) kept.push_back(pool_[i]);
  pool_ = std::move(kept);
  std::vector<Node*> nodes = graph.nodes();
  for (size_t i = nodes.size(); i-- > c.num_nodes;) graph.erase(nodes[i]);
}

}  // namespace kiln::fuzz
