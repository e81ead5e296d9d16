// Lowering of cond and while_loop (lowering.h) to control kernels (loop_control.h), as
// Inductor's ir.Conditional and ir.WhileLoop: each subgraph (a branch, cond_fn, body_fn) is
// lowered as a loop program of its own, by the same lowering (anything a graph may hold:
// reductions, matmuls, nested control flow), and spliced into a region of the control kernel:
// its inputs become the buffers holding the operands, its outputs the buffers the node's
// results (cond) or the next carried values (while) go to, its temporaries this program's.
#include <memory>
#include <string>

#include "lower/loop_control.h"
#include "lower/lowering.h"
#include "support/check.h"

namespace kiln::lowering {

namespace {

std::string subgraph_name(const Node& n, int index) {
  return std::string(n.info().schema.subgraph_args()[static_cast<size_t>(index)]->name);
}

// The value that owns v's storage: views and in-place results lead back to their operand 0.
const Value* storage_owner(const Value* v) {
  while (v->producer() && v->producer()->info().has(kView | kInplace) && v->producer()->operand(0).is_value())
    v = v->producer()->operand(0).value;
  return v;
}

}  // namespace

int Lowering::new_temp(DType dt, const std::vector<int64_t>& sizes) {
  return add_buffer("t" + std::to_string(temps_++), BufferKind::Temp, dt, sizes);
}

int Lowering::contiguous_buffer(const Value* v) {
  realize(v);
  const Access& a = access_.at(v);
  const std::vector<IndexExpr> c = loop_coords(a.sizes);
  if (a.map.substitute(c) == strided(contiguous_strides(a.sizes), c)) return a.buffer;
  const int t = new_temp(v->type().dtype, a.sizes);
  copy_kernel(a, v->type().dtype, t);
  return t;
}

Status Lowering::check_control_shapes(const Node& n) {
  if (n.op() == OpKind::Cond) {
    const std::vector<Value*>& t = n.subgraph(0)->outputs();
    const std::vector<Value*>& f = n.subgraph(1)->outputs();
    for (size_t i = 0; i < t.size() && i < f.size(); ++i)
      if (!(t[i]->type().shape == f[i]->type().shape))
        return node_error(n, "cond: output " + std::to_string(i) + " is " + t[i]->type().to_string() +
                                 " in true_fn but " + f[i]->type().to_string() +
                                 " in false_fn; a cond is lowered when its branches agree on "
                                 "static shapes");
  } else {
    const Graph& body = *n.subgraph(1);
    for (int i = 0; i < body.num_inputs(); ++i)
      if (!body.input(i)->type().shape.is_static())
        return node_error(n, "while_loop: carried value " + std::to_string(i) +
                                 " changes shape across iterations "
                                 "(body_fn takes " +
                                 body.input(i)->type().to_string() + "); only static shapes are lowered");
  }
  for (int r = 0; r < n.num_results(); ++r)
    if (!n.result(r)->type().shape.is_static())
      return node_error(n, "result " + std::to_string(r) + " has symbolic shape " + n.result(r)->type().to_string() +
                               "; only static shapes are lowered");
  return Status::ok();
}

Expected<std::vector<LoopKernel>> Lowering::subprogram(const Node& n, int index, const Graph& body,
                                                       const std::vector<int>& inputs,
                                                       const std::vector<int>& outputs) {
  // The scheduler of the whole program joins kernels within each region (schedule.h).
  LowerOptions options = options_;
  options.schedule.merge_pointwise = false;
  options.schedule.fuse_rows = false;
  Expected<LoopProgram> lowered = Lowering(body, options).run();
  if (!lowered) {
    Diagnostic d = lowered.error();
    d.add_context("in " + subgraph_name(n, index) + " of " + print_node(n));
    return d;
  }
  LoopProgram& q = *lowered;
  KILN_CHECK(q.inputs.size() == inputs.size() && q.outputs.size() == outputs.size())
      << subgraph_name(n, index) << " of " << print_node(n) << " lowered to " << q.inputs.size() << " inputs and "
      << q.outputs.size() << " outputs";
  std::vector<int> map(q.buffers.size(), -1);
  for (size_t i = 0; i < inputs.size(); ++i) map[static_cast<size_t>(q.inputs[i])] = inputs[i];
  for (size_t j = 0; j < outputs.size(); ++j) {
    const Buffer& from = q.buffers[static_cast<size_t>(q.outputs[j])];
    const Buffer& to = buffer(outputs[j]);
    KILN_CHECK(from.dtype == to.dtype && from.sizes == to.sizes && from.strides == to.strides)
        << "output " << j << " of " << subgraph_name(n, index) << " of " << print_node(n) << " does not fit buffer %"
        << to.name;
    map[static_cast<size_t>(q.outputs[j])] = outputs[j];
  }
  for (size_t b = 0; b < q.buffers.size(); ++b) {
    if (map[b] >= 0) continue;
    const Buffer& t = q.buffers[b];
    map[b] = new_temp(t.dtype, t.sizes);
    KILN_CHECK(buffer(map[b]).strides == t.strides)
        << "temporary %" << t.name << " of " << subgraph_name(n, index) << " is not contiguous";
  }
  for (LoopKernel& k : q.kernels) remap_kernel_buffers(k, map);
  return std::move(q.kernels);
}

// cond(pred, operands...): the predicate and the operands in buffers, the results in fresh
// ones (graph outputs where they are), which both branches write in full; a branch that
// returns an operand copies it, so results never alias operands.
Status Lowering::cond(const Node& n) {
  KILN_TRY(check_control_shapes(n));
  LoopKernel k = make_kernel(KernelKind::Cond);
  k.predicate = contiguous_buffer(n.operand(0).value);
  std::vector<int> operands, results;
  for (int i = 1; i < n.num_operands(); ++i) operands.push_back(contiguous_buffer(n.operand(i).value));
  for (int r = 0; r < n.num_results(); ++r) results.push_back(result_buffer(n.result(r), sizes_of(n.result(r))));
  for (int branch = 0; branch < 2; ++branch) {
    KILN_ASSIGN_OR_RETURN(std::vector<LoopKernel> kernels,
                          subprogram(n, branch, *n.subgraph(branch), operands, results));
    k.regions.push_back(std::move(kernels));
  }
  append(std::move(k));
  return Status::ok();
}

bool Lowering::written_in_place(const Value* v) const {
  const Value* owner = storage_owner(v);
  for (const Node* n : g_.nodes())
    if (n->info().has(kInplace) && n->operand(0).is_value() && storage_owner(n->operand(0).value) == owner) return true;
  return false;
}

// while_loop(carried...): a carried value body_fn returns unchanged (a closure passed along)
// is read where it is, and is its own result, unless an in-place op writes the operand or the
// result (the result is a tensor of its own: ops.def). Each other one gets a carried buffer, filled
// from the operand before the loop and holding the result after it, and a next buffer that
// body_fn's subprogram writes; the two exchange after each iteration (loop_control.h), so the
// body always reads the values from before it. cond_fn's subprogram writes the predicate.
Status Lowering::while_loop(const Node& n) {
  KILN_TRY(check_control_shapes(n));
  const Graph& cond_fn = *n.subgraph(0);
  const Graph& body_fn = *n.subgraph(1);
  LoopKernel k = make_kernel(KernelKind::While);
  std::vector<int> inputs;
  std::vector<size_t> changed;  // the places where body_fn does not return its own input
  for (int i = 0; i < n.num_operands(); ++i) {
    const Value* operand = n.operand(i).value;
    const Value* result = n.result(i);
    if (body_fn.outputs()[static_cast<size_t>(i)] == body_fn.input(i) && !written_in_place(operand) &&
        !written_in_place(result)) {
      inputs.push_back(contiguous_buffer(operand));
      access_[result] = access_.at(operand);
      continue;
    }
    const std::vector<int64_t> sizes = sizes_of(result);
    const int carried = new_temp(result->type().dtype, sizes);
    prepare(operand, numel_of(sizes));
    LoopKernel init = make_kernel(KernelKind::Pointwise);
    init.loops = sizes;
    BodyBuilder b{init};
    const std::vector<IndexExpr> c = loop_coords(sizes);
    b.store(carried, strided(buffer(carried).strides, c), value_at(b, operand, c));
    append(std::move(init));
    inputs.push_back(carried);
    access_[result] = Access{carried, strided(buffer(carried).strides, vars(0, static_cast<int>(sizes.size()))), sizes};
    k.carried.push_back(carried);
    k.next.push_back(new_temp(result->type().dtype, sizes));
    changed.push_back(static_cast<size_t>(i));
  }
  k.predicate = new_temp(DType::Bool, {});
  KILN_ASSIGN_OR_RETURN(std::vector<LoopKernel> test, subprogram(n, 0, cond_fn, inputs, {k.predicate}));
  // body_fn without the outputs it passes along unchanged: nothing is copied for them.
  std::unique_ptr<Graph> body = body_fn.clone();
  std::vector<Value*> outputs;
  for (size_t i : changed) outputs.push_back(body->outputs()[i]);
  body->set_outputs(std::move(outputs));
  KILN_ASSIGN_OR_RETURN(std::vector<LoopKernel> step, subprogram(n, 1, *body, inputs, k.next));
  k.regions.push_back(std::move(test));
  k.regions.push_back(std::move(step));
  append(std::move(k));
  return Status::ok();
}

}  // namespace kiln::lowering
