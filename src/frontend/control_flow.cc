// cond, while_loop, scan and map: eagerly by plain C++ control flow over the user's
// functions; captured by tracing each function into a subgraph (frontend/subgraph_trace.h)
// and recording one node whose extra operands are the functions' closures. The checks that
// name the user's function run in both modes, on the user's own operands, so a mistake reads
// the same eagerly and captured and never mentions lifted closures.
#include "frontend/control_flow.h"

#include <algorithm>
#include <optional>
#include <string>

#include "frontend/dispatch.h"
#include "frontend/functional.h"
#include "frontend/subgraph_trace.h"
#include "frontend/trace.h"

namespace kiln {
namespace {

// Throws a user error at the call site `loc` of the control-flow op.
template <typename... Args>
[[noreturn]] void fail(CallSite loc, const Args&... args) {
  throw Error(make_error(args...).with_loc(source_loc(loc)));
}

std::vector<TensorType> types_of(std::span<const Tensor> tensors) {
  std::vector<TensorType> out;
  for (const Tensor& t : tensors) out.push_back(t.type());
  return out;
}

std::string types_to_string(const std::vector<TensorType>& types) {
  std::string s = "(";
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + types[i].to_string();
  return s + ")";
}

std::vector<TensorType> output_types(const TracedSubgraph& sub) { return graph_signature(*sub.graph).outputs; }

// The capture that records this call, or null to run it eagerly. Every operand must be
// defined, and traced ones exist only inside a capture.
TraceContext* tracing(const char* op, const std::vector<const std::vector<Tensor>*>& operand_lists, CallSite loc) {
  size_t i = 0;
  bool any_traced = false;
  for (const std::vector<Tensor>* list : operand_lists)
    for (const Tensor& t : *list) {
      if (!t.defined()) fail(loc, op, ": operand ", i, " is undefined");
      any_traced |= t.is_traced();
      ++i;
    }
  TraceContext* ctx = active_trace();
  if (!ctx && any_traced) fail(loc, op, ": a traced tensor was used outside the capture that made it");
  return ctx;
}

// Records the node in the active capture context; `subgraphs` in schema order.
std::vector<Tensor> record(OpKind op, const std::vector<std::vector<Tensor>>& operand_lists, AttrMap attrs,
                           const std::vector<const Graph*>& subgraphs, CallSite loc) {
  std::vector<KernelOperand> operands;
  for (const std::vector<Tensor>& list : operand_lists)
    for (const Tensor& t : list) operands.push_back({t, {}});
  return value_or_throw(dispatch_higher_order(op, std::move(operands), std::move(attrs), subgraphs, source_loc(loc)));
}

std::vector<Tensor> wrap_all(TraceContext& ctx, const std::vector<Value*>& values) {
  std::vector<Tensor> out;
  for (Value* v : values) out.push_back(ctx.wrap(v));
  return out;
}

// ---- checks shared by the eager and the captured paths ----

void check_fn(const GraphFn& fn, const char* op, const char* fn_name, CallSite loc) {
  if (!fn) fail(loc, op, ": ", fn_name, " is an empty std::function");
}

void check_predicate(const TensorType& t, CallSite loc) {
  bool one_element = true;
  for (const Dim& d : t.shape.dims()) one_element = one_element && d == 1;
  if (t.dtype != DType::Bool || !one_element)
    fail(loc, "cond: the predicate must be a one-element bool tensor, got ", t.to_string());
}

void check_cond_fn_result(const std::vector<TensorType>& out, CallSite loc) {
  if (out.size() != 1 || out[0] != TensorType{DType::Bool, Shape{}})
    fail(loc, "while_loop: cond_fn must return bool[], it returns ", types_to_string(out));
}

void check_body_result(const std::vector<TensorType>& out, const std::vector<TensorType>& carried, CallSite loc) {
  if (out != carried)
    fail(loc, "while_loop: body_fn returns ", types_to_string(out), " but the carried values are ",
         types_to_string(carried));
}

void check_combine_result(const std::vector<TensorType>& out, const std::vector<TensorType>& carry, CallSite loc) {
  if (out.size() < carry.size() || !std::equal(carry.begin(), carry.end(), out.begin()))
    fail(loc, "scan: combine_fn must return the carries ", types_to_string(carry), " first, it returns ",
         types_to_string(out));
}

// The dim that `op` iterates over (wrapped), after checking that every x has it with one size
// (and, for scan, one rank, as its type rule wants).
int iterated_dim(const char* op, const char* what, const std::vector<Tensor>& xs, int64_t dim, bool same_rank,
                 CallSite loc) {
  if (xs.empty()) fail(loc, op, ": needs at least one tensor to ", op, " over");
  const std::optional<int> d = wrap_dim(dim, xs[0].dim());
  if (!d) fail(loc, op, ": dim=", dim, " is out of range for ", xs[0].type().to_string());
  for (const Tensor& x : xs)
    if ((same_rank && x.dim() != xs[0].dim()) || x.dim() <= *d || !(x.shape()[*d] == xs[0].shape()[*d]))
      fail(loc, op, ": ", what, " operands disagree in size along dim ", *d, ": ", xs[0].type().to_string(), " vs ",
           x.type().to_string());
  return *d;
}

// The types of the slices x[i] along `dim`.
std::vector<TensorType> slice_types(const std::vector<Tensor>& xs, int dim) {
  std::vector<TensorType> out;
  for (const Tensor& x : xs) {
    TensorType t = x.type();
    t.shape.dims().erase(t.shape.dims().begin() + dim);
    out.push_back(std::move(t));
  }
  return out;
}

// The length of the iterated dim, for the eager path, which learns the ys' shapes only by
// calling the function.
int64_t eager_length(const char* op, const std::vector<Tensor>& xs, int dim, CallSite loc) {
  const int64_t length = xs[0].size(dim);
  if (length == 0)
    fail(loc, op, ": cannot run eagerly over a dim of size 0 (", xs[0].type().to_string(),
         "): the outputs' shapes come from calling the function");
  return length;
}

// Appends out[first..] to per-output lists, one list per output.
void collect(const char* op, const char* fn_name, std::vector<std::vector<Tensor>>& per_output,
             const std::vector<Tensor>& out, size_t first, int64_t index, CallSite loc) {
  const size_t n = out.size() - first;
  if (index == 0) per_output.resize(n);
  if (per_output.size() != n)
    fail(loc, op, ": ", fn_name, " returned ", n, " outputs at index ", index, " but ", per_output.size(),
         " at index 0");
  for (size_t j = 0; j < n; ++j) per_output[j].push_back(out[first + j]);
}

std::vector<Tensor> stack_all(const std::vector<std::vector<Tensor>>& per_output, int dim, CallSite loc) {
  std::vector<Tensor> out;
  for (const std::vector<Tensor>& slices : per_output) out.push_back(stack(slices, dim, loc));
  return out;
}

}  // namespace

std::vector<Tensor> cond(const Tensor& pred, const GraphFn& true_fn, const GraphFn& false_fn,
                         std::vector<Tensor> operands, CallSite loc) {
  check_fn(true_fn, "cond", "true_fn", loc);
  check_fn(false_fn, "cond", "false_fn", loc);
  std::vector<Tensor> pred_list{pred};
  TraceContext* ctx = tracing("cond", {&pred_list, &operands}, loc);
  check_predicate(pred.type(), loc);
  if (!ctx) return pred.item_int() != 0 ? true_fn(operands) : false_fn(operands);

  const std::vector<TensorType> types = types_of(operands);
  TracedSubgraph t = trace_subgraph(*ctx, true_fn, types, "cond", "true_fn");
  TracedSubgraph f = trace_subgraph(*ctx, false_fn, types, "cond", "false_fn");
  const std::vector<Value*> closures = closure_union({&t, &f});
  const int n = static_cast<int>(operands.size());
  std::unique_ptr<Graph> tg = close_over(t, closures, n);
  std::unique_ptr<Graph> fg = close_over(f, closures, n);
  return record(OpKind::Cond, {pred_list, operands, wrap_all(*ctx, closures)}, {}, {tg.get(), fg.get()}, loc);
}

std::vector<Tensor> while_loop(const GraphFn& cond_fn, const GraphFn& body_fn, std::vector<Tensor> carried,
                               CallSite loc) {
  check_fn(cond_fn, "while_loop", "cond_fn", loc);
  check_fn(body_fn, "while_loop", "body_fn", loc);
  TraceContext* ctx = tracing("while_loop", {&carried}, loc);
  const std::vector<TensorType> types = types_of(carried);
  if (!ctx) {
    for (;;) {
      std::vector<Tensor> go_on = cond_fn(carried);
      check_cond_fn_result(types_of(go_on), loc);
      if (go_on[0].item_int() == 0) return carried;
      std::vector<Tensor> next = body_fn(carried);
      check_body_result(types_of(next), types, loc);
      carried = std::move(next);
    }
  }

  TracedSubgraph c = trace_subgraph(*ctx, cond_fn, types, "while_loop", "cond_fn");
  check_cond_fn_result(output_types(c), loc);
  TracedSubgraph b = trace_subgraph(*ctx, body_fn, types, "while_loop", "body_fn");
  check_body_result(output_types(b), types, loc);
  // Closures become extra carried values that body_fn passes on unchanged.
  const std::vector<Value*> closures = closure_union({&c, &b});
  const int n = static_cast<int>(carried.size());
  std::unique_ptr<Graph> cg = close_over(c, closures, n);
  std::unique_ptr<Graph> bg = close_over(b, closures, n, n);
  std::vector<Tensor> results =
      record(OpKind::WhileLoop, {carried, wrap_all(*ctx, closures)}, {}, {cg.get(), bg.get()}, loc);
  results.resize(carried.size());
  return results;
}

std::vector<Tensor> scan(const GraphFn& combine_fn, std::vector<Tensor> init, std::vector<Tensor> xs, int64_t dim,
                         CallSite loc) {
  check_fn(combine_fn, "scan", "combine_fn", loc);
  TraceContext* ctx = tracing("scan", {&init, &xs}, loc);
  const int d = iterated_dim("scan", "scanned", xs, dim, true, loc);
  const std::vector<TensorType> carry_types = types_of(init);
  if (!ctx) {
    const int64_t length = eager_length("scan", xs, d, loc);
    std::vector<Tensor> carry = init;
    std::vector<std::vector<Tensor>> ys;
    for (int64_t i = 0; i < length; ++i) {
      std::vector<Tensor> args = carry;
      for (const Tensor& x : xs) args.push_back(select(x, d, i, loc));
      std::vector<Tensor> out = combine_fn(args);
      check_combine_result(types_of(out), carry_types, loc);
      carry.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(carry.size()));
      collect("scan", "combine_fn", ys, out, carry.size(), i, loc);
    }
    std::vector<Tensor> stacked = stack_all(ys, d, loc);
    carry.insert(carry.end(), stacked.begin(), stacked.end());
    return carry;
  }

  std::vector<TensorType> arg_types = carry_types;
  for (const TensorType& t : slice_types(xs, d)) arg_types.push_back(t);
  TracedSubgraph s = trace_subgraph(*ctx, combine_fn, arg_types, "scan", "combine_fn");
  check_combine_result(output_types(s), carry_types, loc);
  // scan's operands are carries and scanned values only, so closures ride along as carries
  // that combine_fn returns unchanged.
  const int nc = static_cast<int>(init.size());
  std::unique_ptr<Graph> g = close_over(s, s.closures, nc, nc);
  AttrMap attrs{{"num_init", static_cast<int64_t>(nc + s.closures.size())}, {"dim", static_cast<int64_t>(d)}};
  std::vector<Tensor> results =
      record(OpKind::Scan, {init, wrap_all(*ctx, s.closures), xs}, std::move(attrs), {g.get()}, loc);
  results.erase(results.begin() + nc, results.begin() + nc + static_cast<std::ptrdiff_t>(s.closures.size()));
  return results;
}

std::vector<Tensor> map(const GraphFn& body_fn, std::vector<Tensor> xs, std::vector<Tensor> extra, CallSite loc) {
  check_fn(body_fn, "map", "body_fn", loc);
  TraceContext* ctx = tracing("map", {&xs, &extra}, loc);
  for (const Tensor& x : xs)
    if (x.dim() == 0) fail(loc, "map: mapped operands need a dim to map over, got ", x.type().to_string());
  iterated_dim("map", "mapped", xs, 0, false, loc);
  if (!ctx) {
    const int64_t length = eager_length("map", xs, 0, loc);
    std::vector<std::vector<Tensor>> outs;
    for (int64_t i = 0; i < length; ++i) {
      std::vector<Tensor> args;
      for (const Tensor& x : xs) args.push_back(select(x, 0, i, loc));
      args.insert(args.end(), extra.begin(), extra.end());
      collect("map", "body_fn", outs, body_fn(args), 0, i, loc);
    }
    return stack_all(outs, 0, loc);
  }

  std::vector<TensorType> arg_types = slice_types(xs, 0);
  for (const TensorType& t : types_of(extra)) arg_types.push_back(t);
  TracedSubgraph s = trace_subgraph(*ctx, body_fn, arg_types, "map", "body_fn");
  // Closures are extra operands after the user's, as close_over names them.
  std::unique_ptr<Graph> g = close_over(s, s.closures, s.num_args);
  AttrMap attrs{{"num_mapped", static_cast<int64_t>(xs.size())}};
  return record(OpKind::Map, {xs, extra, wrap_all(*ctx, s.closures)}, std::move(attrs), {g.get()}, loc);
}

}  // namespace kiln
