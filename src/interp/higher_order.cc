// Runs the higher-order ops by interpreting their subgraphs. Operand conventions:
//   cond(pred, operands...)        pred: a one-element bool tensor; runs true_fn or false_fn
//                                  on the operands; results = the branch's outputs.
//   while_loop(carried...)         while cond_fn(carried) (a one-element bool) is true:
//                                  carried = body_fn(carried); results = the final carried.
//                                  Termination is the user's business, as in torch.
//   scan(init..., xs...)           num_init carries, then the scanned operands; for each index
//                                  i along `dim`: (carry..., y...) = combine_fn(carry...,
//                                  xs[i]...); results = the final carries, then the ys stacked
//                                  along `dim`.
//   map(xs..., extra...)           num_mapped mapped operands, then extra operands passed
//                                  whole; body_fn(xs[i]..., extra...) for each i along dim 0;
//                                  results = the outputs stacked along dim 0.
#include <algorithm>
#include <string>

#include "interp/interpreter.h"
#include "interp/slicing.h"
#include "support/check.h"

namespace kiln {
namespace {

class HigherOrderRun {
 public:
  HigherOrderRun(OpKind op, const AttrMap& attrs, std::span<const KernelOperand> operands,
                 std::span<const Graph* const> subgraphs)
      : call_(op, attrs), operands_(operands), subgraphs_(subgraphs) {}

  Expected<std::vector<Tensor>> run() {
    KILN_TRY(check_schema());
    switch (call_.op()) {
      case OpKind::Cond: return fresh(run_cond());
      case OpKind::WhileLoop: return fresh(run_while_loop());
      case OpKind::Scan: return fresh(run_scan());
      case OpKind::Map: return fresh(run_map());
      default: KILN_UNREACHABLE(call_.name() << " is not a higher-order op");
    }
  }

 private:
  // A higher-order op is not a view (ops.def): its results share storage with no operand and
  // no other result, though a body may return an input (a cond branch returning an operand, a
  // while_loop of no trips, a carried value passed along). Those results are copied, so that
  // an in-place op on a result leaves the operand alone, as in the compiled code.
  Expected<std::vector<Tensor>> fresh(Expected<std::vector<Tensor>> results) const {
    if (!results) return results;
    std::vector<const Storage*> taken;
    for (const KernelOperand& o : operands_)
      if (o.is_tensor()) taken.push_back(o.tensor.storage().get());
    for (Tensor& r : *results) {
      if (std::find(taken.begin(), taken.end(), r.storage().get()) != taken.end()) r = r.clone();
      taken.push_back(r.storage().get());
    }
    return results;
  }

  // What the loops below read of attributes and operands fits the schema. Types are
  // checked as the subgraphs run: their signatures may be symbolic.
  Status check_schema() const {
    std::vector<TypeOperand> types = operand_types(operands_);
    std::vector<SubgraphSignature> sigs;
    for (const Graph* g : subgraphs_) sigs.push_back(graph_signature(*g));
    return check_fits_schema(TypeCall(call_.op(), call_.explicit_attrs(), types, sigs));
  }

  std::vector<Tensor> tensors(size_t begin, size_t end) const {
    std::vector<Tensor> out;
    for (size_t i = begin; i < end; ++i) out.push_back(operands_[i].tensor);
    return out;
  }

  // Interprets subgraph `i`, naming it in errors.
  Expected<std::vector<Tensor>> call_subgraph(size_t i, std::span<const Tensor> inputs) const {
    auto out = interpret(*subgraphs_[i], inputs);
    if (!out) {
      Diagnostic d = out.error();
      d.add_context("in " + call_.info().schema.subgraph_args()[i]->name + " of " + std::string(call_.name()));
      return d;
    }
    return out;
  }

  // The single bool value a cond predicate or a while_loop cond_fn yields.
  Expected<bool> predicate(const Tensor& t, const char* what) const {
    if (t.dtype() != DType::Bool || t.numel() != 1)
      return make_error(call_.name(), ": ", what, " must be a one-element bool tensor, got ", t.type().to_string());
    return t.item_int() != 0;
  }

  Expected<std::vector<Tensor>> run_cond() {
    KILN_ASSIGN_OR_RETURN(bool taken, predicate(operands_[0].tensor, "the predicate"));
    std::vector<Tensor> args = tensors(1, operands_.size());
    return call_subgraph(taken ? 0 : 1, args);
  }

  Expected<std::vector<Tensor>> run_while_loop() {
    std::vector<Tensor> carried = tensors(0, operands_.size());
    for (;;) {
      KILN_ASSIGN_OR_RETURN(std::vector<Tensor> c, call_subgraph(0, carried));
      if (c.size() != 1) return make_error("while_loop: cond_fn must return one tensor, got ", c.size());
      KILN_ASSIGN_OR_RETURN(bool go_on, predicate(c[0], "the result of cond_fn"));
      if (!go_on) return carried;
      KILN_ASSIGN_OR_RETURN(std::vector<Tensor> next, call_subgraph(1, carried));
      if (next.size() != carried.size())
        return make_error("while_loop: body_fn returned ", next.size(), " tensors for ", carried.size(), " carried");
      carried = std::move(next);
    }
  }

  Expected<std::vector<Tensor>> run_scan() {
    const int64_t num_init = call_.attr_int("num_init");
    if (num_init < 0 || num_init > static_cast<int64_t>(operands_.size()))
      return make_error("scan: num_init=", num_init, " but there are ", operands_.size(), " operands");
    std::vector<Tensor> carry = tensors(0, static_cast<size_t>(num_init));
    std::vector<Tensor> xs = tensors(static_cast<size_t>(num_init), operands_.size());
    if (xs.empty()) return make_error("scan: needs at least one operand to scan over");
    const auto dim = wrap_dim(call_.attr_int("dim"), xs[0].dim());
    if (!dim) return make_error("scan: dim=", call_.attr_int("dim"), " is out of range for ", xs[0].type().to_string());
    KILN_ASSIGN_OR_RETURN(int64_t length, common_length(xs, *dim, "scanned"));
    std::vector<std::vector<Tensor>> ys;
    for (int64_t i = 0; i < length; ++i) {
      std::vector<Tensor> args = carry;
      for (const Tensor& x : xs) args.push_back(select_along(x, *dim, i));
      KILN_ASSIGN_OR_RETURN(std::vector<Tensor> out, call_subgraph(0, args));
      if (out.size() < carry.size())
        return make_error("scan: combine_fn returned ", out.size(), " tensors for ", carry.size(), " carries");
      std::move(out.begin(), out.begin() + num_init, carry.begin());
      ys.emplace_back(std::make_move_iterator(out.begin() + num_init), std::make_move_iterator(out.end()));
    }
    const SubgraphSignature sig = graph_signature(*subgraphs_[0]);
    std::vector<TensorType> y_types(sig.outputs.begin() + std::min<int64_t>(num_init, sig.outputs.size()),
                                    sig.outputs.end());
    KILN_ASSIGN_OR_RETURN(std::vector<Tensor> stacked, stack_outputs(ys, y_types, *dim));
    carry.insert(carry.end(), stacked.begin(), stacked.end());
    return carry;
  }

  Expected<std::vector<Tensor>> run_map() {
    const int64_t num_mapped = call_.attr_int("num_mapped");
    if (num_mapped < 1 || num_mapped > static_cast<int64_t>(operands_.size()))
      return make_error("map: num_mapped=", num_mapped, " but there are ", operands_.size(), " operands");
    std::vector<Tensor> xs = tensors(0, static_cast<size_t>(num_mapped));
    std::vector<Tensor> extra = tensors(static_cast<size_t>(num_mapped), operands_.size());
    for (const Tensor& x : xs)
      if (x.dim() == 0) return make_error("map: mapped operands need a dim to map over, got ", x.type().to_string());
    KILN_ASSIGN_OR_RETURN(int64_t length, common_length(xs, 0, "mapped"));
    std::vector<std::vector<Tensor>> outs;
    for (int64_t i = 0; i < length; ++i) {
      std::vector<Tensor> args;
      for (const Tensor& x : xs) args.push_back(select_along(x, 0, i));
      args.insert(args.end(), extra.begin(), extra.end());
      KILN_ASSIGN_OR_RETURN(std::vector<Tensor> out, call_subgraph(0, args));
      outs.push_back(std::move(out));
    }
    return stack_outputs(outs, graph_signature(*subgraphs_[0]).outputs, 0);
  }

  // The size along `dim` that every operand in `xs` shares.
  Expected<int64_t> common_length(const std::vector<Tensor>& xs, int dim, const char* what) const {
    const int64_t length = xs[0].size(dim);
    for (size_t k = 1; k < xs.size(); ++k)
      if (xs[k].dim() <= dim || xs[k].size(dim) != length)
        return make_error(call_.name(), ": ", what, " operands disagree in size along dim ", dim, ": ",
                          xs[0].type().to_string(), " vs ", xs[k].type().to_string());
    return length;
  }

  // Stacks per-iteration outputs along `dim`. With no iterations, the shapes come from the
  // subgraph's declared output types, which must then be static.
  Expected<std::vector<Tensor>> stack_outputs(const std::vector<std::vector<Tensor>>& per_iter,
                                              const std::vector<TensorType>& declared, int dim) const {
    std::vector<Tensor> out;
    if (per_iter.empty()) {
      for (const TensorType& t : declared) {
        if (!t.shape.is_static())
          return make_error(call_.name(), ": cannot stack zero iterations of an output of type ", t.to_string());
        std::vector<int64_t> sizes = t.shape.sizes();
        sizes.insert(sizes.begin() + dim, 0);
        out.push_back(Tensor::empty(sizes, t.dtype));
      }
      return out;
    }
    for (size_t j = 0; j < per_iter[0].size(); ++j) {
      std::vector<Tensor> slices;
      for (const auto& iter : per_iter) slices.push_back(iter[j]);
      out.push_back(stack_along(slices, dim, std::string(call_.name()) + " output " + std::to_string(j)));
    }
    return out;
  }

  OpCallBase call_;
  std::span<const KernelOperand> operands_;
  std::span<const Graph* const> subgraphs_;
};

}  // namespace

Expected<std::vector<Tensor>> run_higher_order(OpKind op, const AttrMap& attrs, std::span<const KernelOperand> operands,
                                               std::span<const Graph* const> subgraphs) {
  return HigherOrderRun(op, attrs, operands, subgraphs).run();
}

}  // namespace kiln
