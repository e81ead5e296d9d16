// GradFunction: joint graph -> partition -> two runners, and the checks at the seams.
#include "train/grad_function.h"

#include <atomic>
#include <chrono>
#include <string>

#include "ops/rng_state.h"
#include "runtime/cpu/runtime_memory.h"

namespace kiln {

struct CompiledGrad {
  JointGraph joint;
  Partition partition;
  std::vector<Tensor> lifted;
  int num_user_inputs = 0;
  // Forward output index of each tangent, in the backward graph's tangent order.
  std::vector<int> differentiable_outputs;
  std::unique_ptr<GraphRunner> forward_runner;
  std::unique_ptr<GraphRunner> backward_runner;
  uint64_t seed = 0;
  PhaseTimes times;
  mutable std::atomic<int64_t> next_rng_offset{0};
};

namespace {

std::string sizes_string(DType dtype, const std::vector<int64_t>& sizes) {
  std::string s = std::string(dtype_name(dtype)) + "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? "," : "") + std::to_string(sizes[i]);
  return s + "]";
}

// Output gradients given by the caller, checked against the outputs they stand for; or ones.
Expected<std::vector<Tensor>> output_gradients(const CompiledGrad& c, const std::vector<std::vector<int64_t>>& sizes,
                                               std::span<const Tensor> grad_outputs) {
  const Graph& forward = *c.partition.forward;
  const size_t n = c.differentiable_outputs.size();
  std::vector<Tensor> grads;
  if (grad_outputs.empty()) {
    for (size_t k = 0; k < n; ++k) {
      const int out = c.differentiable_outputs[k];
      const DType dtype = forward.outputs()[static_cast<size_t>(out)]->type().dtype;
      KILN_ASSIGN_OR_RETURN(Tensor ones, allocate_tensor(sizes[k], dtype, [&] {
                              return "the gradient of output " + std::to_string(out) + " (ones, " +
                                     sizes_string(dtype, sizes[k]) + ") of graph @" + forward.name();
                            }));
      const std::vector<int64_t> broadcast(sizes[k].size(), 0);
      ones.copy_from(Tensor::scalar(Scalar(1.0), dtype).as_strided(sizes[k], broadcast, 0));
      grads.push_back(std::move(ones));
    }
    return grads;
  }
  if (grad_outputs.size() != n)
    return make_error("backward: graph @", forward.name(), " has ", n, " outputs that take a gradient, given ",
                      grad_outputs.size(), " output gradients");
  for (size_t k = 0; k < n; ++k) {
    const Tensor& g = grad_outputs[k];
    const int out = c.differentiable_outputs[k];
    const DType dtype = forward.outputs()[static_cast<size_t>(out)]->type().dtype;
    if (!g.defined() || g.is_traced())
      return make_error("backward: output gradient ", k, " (of output ", out, ") is not a concrete tensor");
    if (g.dtype() != dtype || g.sizes() != sizes[k])
      return make_error("backward: output gradient ", k, " has type ", sizes_string(g.dtype(), g.sizes()),
                        ", but output ", out, " is ", sizes_string(dtype, sizes[k]));
    grads.push_back(g);
  }
  return grads;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int64_t Saved::bytes() const {
  int64_t total = 0;
  for (const Tensor& t : values_) total += t.numel() * dtype_size(t.dtype());
  return total;
}

Expected<GradFunction> GradFunction::create(const Graph& forward, std::vector<Tensor> lifted,
                                            const GradOptions& options) {
  if (static_cast<size_t>(forward.num_inputs()) < lifted.size())
    return make_error("grad function: graph @", forward.name(), " has ", forward.num_inputs(),
                      " inputs, fewer than the ", lifted.size(), " lifted values");
  auto c = std::make_shared<CompiledGrad>();
  CompileReport* report = options.report;
  auto t0 = std::chrono::steady_clock::now();
  KILN_ASSIGN_OR_RETURN(c->joint, joint_graph(forward, options.joint));
  c->times.add(Phase::Autodiff, seconds_since(t0));
  if (report) report->graphs.push_back(report_graph("joint", *c->joint.graph, joint_graph_roles(*c->joint.graph)));
  if (options.run_joint_passes) {
    t0 = std::chrono::steady_clock::now();
    KILN_TRY(joint_graph_passes(*c->joint.graph, options.joint_passes).status());
    c->times.add(Phase::Passes, seconds_since(t0));
    if (report)
      report->graphs.push_back(
          report_graph("joint after the joint passes", *c->joint.graph, joint_graph_roles(*c->joint.graph)));
  }
  t0 = std::chrono::steady_clock::now();
  KILN_ASSIGN_OR_RETURN(c->partition, kiln::partition(c->joint, options.partition));
  c->times.add(Phase::Partition, seconds_since(t0));
  if (report) {
    report->graphs.push_back(report_graph("forward", *c->partition.forward, forward_graph_roles(c->partition)));
    report->graphs.push_back(report_graph("backward", *c->partition.backward, backward_graph_roles(c->partition)));
    report->partition = report_partition(c->partition);
  }
  c->num_user_inputs = forward.num_inputs() - static_cast<int>(lifted.size());
  c->lifted = std::move(lifted);
  c->seed = options.seed;
  // The backward graph's tangents come in joint-input order, which is output order.
  for (size_t out = 0; out < c->joint.tangent_input.size(); ++out)
    if (c->joint.tangent_input[out] >= 0) c->differentiable_outputs.push_back(static_cast<int>(out));
  KILN_ASSIGN_OR_RETURN(c->forward_runner,
                        make_graph_runner_reported(*c->partition.forward, options.runner, "forward", c->times, report));
  KILN_ASSIGN_OR_RETURN(c->backward_runner, make_graph_runner_reported(*c->partition.backward, options.runner,
                                                                       "backward", c->times, report));
  return GradFunction(std::move(c));
}

Expected<ForwardResult> GradFunction::forward(std::span<const Tensor> inputs) const {
  const CompiledGrad& c = *compiled_;
  if (static_cast<int>(inputs.size()) != c.num_user_inputs)
    return make_error("forward: graph @", c.partition.forward->name(), " takes ", c.num_user_inputs, " inputs, given ",
                      inputs.size());
  std::vector<Tensor> all(inputs.begin(), inputs.end());
  all.insert(all.end(), c.lifted.begin(), c.lifted.end());
  if (c.joint.rng_state_added) all.push_back(make_rng_state(c.seed, c.next_rng_offset++));
  KILN_ASSIGN_OR_RETURN(std::vector<Tensor> results, c.forward_runner->run(all));

  // results: the user outputs, the new values of mutated inputs, then the saved values.
  const auto user_end = results.begin() + c.joint.num_user_outputs;
  const auto split = results.begin() + c.partition.num_forward_outputs;
  ForwardResult r;
  r.outputs.assign(results.begin(), user_end);
  r.saved.values_.assign(split, results.end());
  // A saved value that is an input the forward mutates is saved as it was on entry.
  for (int input : c.joint.write_back_inputs)
    for (Tensor& t : r.saved.values_)
      if (t.storage() == all[static_cast<size_t>(input)].storage()) t = t.clone();
  write_back_inputs(c.joint, all, {results.begin(), split});
  for (int out : c.differentiable_outputs) r.saved.output_sizes_.push_back(r.outputs[static_cast<size_t>(out)].sizes());
  r.saved.owner_ = compiled_;
  return r;
}

Expected<std::vector<Tensor>> GradFunction::backward(Saved&& saved, std::span<const Tensor> grad_outputs) const {
  const CompiledGrad& c = *compiled_;
  if (saved.empty())
    return make_error(
        "backward: this Saved is empty: it was already used by a backward (or moved from); run forward "
        "again for another backward");
  if (saved.owner_ != compiled_)
    return make_error("backward: this Saved comes from the forward of another function, not of graph @",
                      c.partition.forward->name());
  KILN_ASSIGN_OR_RETURN(std::vector<Tensor> tangents, output_gradients(c, saved.output_sizes_, grad_outputs));

  Saved consumed = std::move(saved);
  std::vector<Tensor> all = std::move(consumed.values_);
  all.insert(all.end(), tangents.begin(), tangents.end());
  return c.backward_runner->run(all);
}

Expected<ValueAndGrad> GradFunction::operator()(std::span<const Tensor> inputs,
                                                std::span<const Tensor> grad_outputs) const {
  KILN_ASSIGN_OR_RETURN(ForwardResult f, forward(inputs));
  KILN_ASSIGN_OR_RETURN(std::vector<Tensor> grads, backward(std::move(f.saved), grad_outputs));
  return ValueAndGrad{std::move(f.outputs), std::move(grads)};
}

int GradFunction::num_user_inputs() const { return compiled_->num_user_inputs; }

int64_t GradFunction::rng_offset() const { return compiled_->next_rng_offset; }

int GradFunction::num_differentiable_outputs() const {
  return static_cast<int>(compiled_->differentiable_outputs.size());
}

const JointGraph& GradFunction::joint() const { return compiled_->joint; }

const Partition& GradFunction::partition() const { return compiled_->partition; }

const PhaseTimes& GradFunction::phase_times() const { return compiled_->times; }

}  // namespace kiln
