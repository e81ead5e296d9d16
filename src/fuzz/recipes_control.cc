// Recipes of the higher-order ops: bodies drawn as graphs of their own (draw_body) whose
// signatures fit the op (cond's branches return the same types, while_loop's body returns its
// carried types), and while_loop's trip count bounded by a carried counter.
#include "fuzz/op_recipes.h"

namespace kiln::fuzz {
namespace {

std::vector<Value*> pick_values(GenContext& ctx, int64_t lo, int64_t hi) {
  std::vector<Value*> vs;
  for (int64_t i = 0, n = ctx.choices.between(lo, hi); i < n; ++i)
    if (Value* v = ctx.pick_value()) vs.push_back(v);
  return vs;
}

std::vector<TensorType> types_of(const std::vector<Value*>& vs) {
  std::vector<TensorType> ts;
  for (const Value* v : vs) ts.push_back(v->type());
  return ts;
}

int body_nodes(GenContext& ctx) { return static_cast<int>(ctx.choices.between(1, 3)); }

bool cond(GenContext& ctx, OpDraft& d) {
  const std::vector<Value*> operands = pick_values(ctx, 1, 3);
  const std::vector<TensorType> in = types_of(operands);
  std::unique_ptr<Graph> then_fn = draw_body(
      ctx, in, std::vector<std::optional<TensorType>>(static_cast<size_t>(ctx.choices.between(1, 2))), body_nodes(ctx));
  std::vector<std::optional<TensorType>> outputs;
  for (const Value* v : then_fn->outputs()) outputs.push_back(v->type());
  d.subgraphs.push_back(std::move(then_fn));
  d.subgraphs.push_back(draw_body(ctx, in, outputs, body_nodes(ctx)));
  d.operands = {ctx.predicate()};
  d.operands.insert(d.operands.end(), operands.begin(), operands.end());
  return true;
}

// while_loop over (i, carried...): cond_fn is i < trips (and maybe a predicate of the carried
// values), body_fn adds 1 to i and draws the next carried values of their own types.
bool while_loop(GenContext& ctx, OpDraft& d) {
  Choices& c = ctx.choices;
  Value* counter = ctx.helper(OpKind::Zeros, {}, {{"size", std::vector<int64_t>{}}, {"dtype", DType::I64}});
  std::vector<Value*> carried = {counter};
  for (Value* v : pick_values(ctx, 1, 2)) carried.push_back(v);
  const std::vector<TensorType> in = types_of(carried);

  auto cond_fn = std::make_unique<Graph>("cond_fn");
  for (size_t i = 0; i < in.size(); ++i) cond_fn->add_input("c" + std::to_string(i), in[i]);
  {
    GenContext body(*cond_fn, c, ctx.options, ctx.depth + 1);
    Value* more = body.helper(OpKind::Lt, {cond_fn->input(0), Scalar(c.between(0, 3))});
    if (c.percent(40)) more = body.helper(OpKind::LogicalAnd, {more, body.predicate()});
    cond_fn->set_outputs({more});
  }
  std::vector<std::optional<TensorType>> next(in.begin() + 1, in.end());
  std::unique_ptr<Graph> body_fn = draw_body(ctx, in, next, body_nodes(ctx));
  {  // the counter's next value is i + 1
    GenContext body(*body_fn, c, ctx.options, ctx.depth + 1);
    std::vector<Value*> outputs = {body.helper(OpKind::Add, {body_fn->input(0), Scalar(int64_t{1})})};
    outputs.insert(outputs.end(), body_fn->outputs().begin(), body_fn->outputs().end());
    body_fn->set_outputs(outputs);
  }
  d.subgraphs.push_back(std::move(cond_fn));
  d.subgraphs.push_back(std::move(body_fn));
  d.operands.assign(carried.begin(), carried.end());
  return true;
}

// scan(init..., xs...): xs agree in size along dim; combine_fn returns the carries' types, then
// ys. The CPU backend lowers a scan whose carries and ys all have the shape of a step's slice
// (docs/LOWERING.md), so those are drawn of that shape; a second scanned operand's slice
// broadcasts into it.
bool scan(GenContext& ctx, OpDraft& d) {
  Choices& c = ctx.choices;
  Value* x = ctx.pick_value_if([](const TensorType& t) { return t.shape.rank() >= 1; });
  if (!x) return false;
  const int rank = x->type().shape.rank();
  const int64_t dim = ctx.dim(rank);
  const int wrapped = *wrap_dim(dim, rank);
  std::vector<Value*> xs = {x};
  if (c.percent(30)) {
    std::vector<int64_t> s = x->type().shape.sizes();
    for (int k = 0; k < rank; ++k)
      if (k != wrapped && c.percent(40)) s[static_cast<size_t>(k)] = 1;
    xs.push_back(ctx.value_of_type({ctx.dtype(), Shape::from_sizes(s)}));
  }
  TensorType step = x->type();
  step.shape.dims().erase(step.shape.dims().begin() + wrapped);
  std::vector<Value*> init;
  for (int64_t i = 0, n = c.between(0, 2); i < n; ++i) init.push_back(ctx.value_of_type({ctx.dtype(), step.shape}));
  std::vector<TensorType> in = types_of(init);
  for (Value* v : xs) {
    TensorType t = v->type();
    t.shape.dims().erase(t.shape.dims().begin() + wrapped);
    in.push_back(t);
  }
  std::vector<std::optional<TensorType>> outputs;
  for (const Value* v : init) outputs.push_back(v->type());
  for (int64_t i = 0, n = c.between(init.empty() ? 1 : 0, 2); i < n; ++i)
    outputs.push_back(TensorType{ctx.dtype(), step.shape});
  d.subgraphs.push_back(draw_body(ctx, in, outputs, body_nodes(ctx), true));
  d.operands.assign(init.begin(), init.end());
  d.operands.insert(d.operands.end(), xs.begin(), xs.end());
  d.attrs.set("num_init", static_cast<int64_t>(init.size()));
  d.attrs.set("dim", dim);
  return true;
}

// map(xs..., extra...): xs agree in size along dim 0; the body sees slices and the extras whole.
bool map(GenContext& ctx, OpDraft& d) {
  Value* x = ctx.pick_value_if([](const TensorType& t) { return t.shape.rank() >= 1; });
  if (!x) return false;
  const std::vector<Value*> extra = pick_values(ctx, 0, 2);
  TensorType slice = x->type();
  slice.shape.dims().erase(slice.shape.dims().begin());
  std::vector<TensorType> in = {slice};
  for (const TensorType& t : types_of(extra)) in.push_back(t);
  d.subgraphs.push_back(
      draw_body(ctx, in, std::vector<std::optional<TensorType>>(static_cast<size_t>(ctx.choices.between(1, 2))),
                body_nodes(ctx), true));
  d.operands = {x};
  d.operands.insert(d.operands.end(), extra.begin(), extra.end());
  d.attrs.set("num_mapped", int64_t{1});
  return true;
}

}  // namespace

void add_control_recipes(RecipeTable& t) {
  t[static_cast<size_t>(OpKind::Cond)] = cond;
  t[static_cast<size_t>(OpKind::WhileLoop)] = while_loop;
  t[static_cast<size_t>(OpKind::Scan)] = scan;
  t[static_cast<size_t>(OpKind::Map)] = map;
}

}  // namespace kiln::fuzz
