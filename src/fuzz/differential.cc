#include "fuzz/differential.h"

#include <algorithm>
#include <cstdio>

#include "core/tensor_compare.h"
#include "fuzz/fuzz_inputs.h"
#include "fuzz/merge_graphs.h"
#include "fuzz/tensor_values.h"
#include "fuzz/tolerance.h"
#include "interp/interpreter.h"
#include "support/check.h"

namespace kiln::fuzz {
namespace {

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string element_text(const Tensor& t, int64_t flat) {
  char buf[64];
  if (is_floating(t.dtype()))
    std::snprintf(buf, sizeof buf, "%.9g", t.contiguous().item_double(flat));
  else
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(t.contiguous().item_int(flat)));
  return buf;
}

std::string index_text(const std::vector<int64_t>& sizes, int64_t flat) {
  std::string s;
  for (size_t d = sizes.size(); d-- > 0;) {
    s = std::to_string(flat % sizes[d]) + (s.empty() ? "" : ", ") + s;
    flat /= sizes[d];
  }
  return "[" + s + "]";
}

// Where the tolerance cannot be estimated (functionalizing the graph fails, and so will its
// compilation): the dtype's default (core/tensor_compare.h).
ElementTolerance default_element_tolerance(const Tensor& want) {
  const Tolerance t = default_tolerance(want.dtype());
  ElementTolerance out(static_cast<size_t>(want.numel()));
  const Tensor w = want.contiguous();
  for (int64_t i = 0; i < w.numel(); ++i) out[static_cast<size_t>(i)] = t.atol + t.rtol * std::abs(w.item_double(i));
  return out;
}

std::string compare_tensor(const std::string& what, const Tensor& want, const Tensor& got,
                           const ElementTolerance& tol) {
  if (want.type() != got.type())
    return what + ": the interpreter gives " + want.type().to_string() + ", the cpu backend " + got.type().to_string();
  const int64_t i = first_disagreement(want, got, tol);
  if (i < 0) return "";
  char t[32];
  std::snprintf(t, sizeof t, "%.3g", tol[static_cast<size_t>(i)]);
  return what + " " + want.type().to_string() + " differs at " + index_text(want.sizes(), i) + ": interpreter " +
         element_text(want, i) + ", cpu " + element_text(got, i) + " (tolerance " + t + ")";
}

// A case's inputs and the interpreter's outcome on them.
struct Prepared {
  const FuzzCase* c;
  std::vector<Tensor> inputs;
  Outcome interpreted;
};

std::string check_alone(const Prepared& p, const Backend& backend) {
  const CheckContext context("checking fuzz seed " + std::to_string(p.c->seed));
  return compare_outcomes(*p.c->graph, p.inputs, p.interpreted, compiled_outcome(*p.c->graph, p.inputs, backend));
}

// Compiles the batch as one graph; each case whose part disagrees is checked alone again.
void check_batch(std::span<const Prepared* const> batch, const Backend& backend, std::vector<Finding>& out) {
  std::vector<const Graph*> parts;
  std::vector<Tensor> inputs;
  const CheckContext context("compiling fuzz seeds " + std::to_string(batch.front()->c->seed) + " to " +
                             std::to_string(batch.back()->c->seed) + " as one graph");
  for (const Prepared* p : batch) {
    parts.push_back(p->c->graph.get());
    inputs.insert(inputs.end(), p->inputs.begin(), p->inputs.end());
  }
  const Outcome merged = compiled_outcome(*merge_graphs(parts), inputs, backend);
  size_t next_output = 0, next_input = 0;
  for (const Prepared* p : batch) {
    const Graph& g = *p->c->graph;
    std::string why;
    if (merged.error.empty()) {
      Outcome mine;
      auto take = [](const std::vector<Tensor>& all, size_t& next, size_t n) {
        std::vector<Tensor> part(all.begin() + static_cast<long>(next), all.begin() + static_cast<long>(next + n));
        next += n;
        return part;
      };
      mine.outputs = take(merged.outputs, next_output, g.outputs().size());
      mine.inputs_after = take(merged.inputs_after, next_input, static_cast<size_t>(g.num_inputs()));
      why = compare_outcomes(g, p->inputs, p->interpreted, mine);
      if (why.empty()) continue;
    }
    // The batch failed as a whole or this part of it differs: the graph alone decides.
    const std::string alone = check_alone(*p, backend);
    if (!alone.empty())
      out.push_back({p->c->seed, alone});
    else if (!why.empty())
      out.push_back({p->c->seed, "compiled with other graphs: " + why});
  }
}

}  // namespace

Outcome interpret_outcome(const Graph& g, std::span<const Tensor> inputs) {
  Outcome o;
  o.inputs_after = clones(inputs);
  Expected<std::vector<Tensor>> r = interpret(g, o.inputs_after);
  if (r)
    o.outputs = std::move(*r);
  else
    o.error = r.error().to_string();
  return o;
}

Outcome compiled_outcome(const Graph& g, std::span<const Tensor> inputs, const Backend& backend) {
  Outcome o;
  o.inputs_after = clones(inputs);
  Expected<CompiledGraph> compiled = compile_graph(g, backend);
  if (!compiled) {
    o.error = compiled.error().to_string();
    return o;
  }
  Expected<std::vector<Tensor>> r = compiled->run(o.inputs_after);
  if (r)
    o.outputs = std::move(*r);
  else
    o.error = r.error().to_string();
  return o;
}

std::string compare_outcomes(const Graph& g, std::span<const Tensor> inputs, const Outcome& interpreted,
                             const Outcome& compiled) {
  if (!interpreted.error.empty() && compiled.error.empty())
    return "the interpreter fails (" + first_line(interpreted.error) + ") but the cpu backend runs it";
  if (interpreted.error.empty() && !compiled.error.empty())
    return "the cpu backend fails (" + first_line(compiled.error) + ") but the interpreter runs it";
  if (!interpreted.error.empty()) return "";
  if (compiled.outputs.size() != interpreted.outputs.size())
    return "the interpreter gives " + std::to_string(interpreted.outputs.size()) + " outputs, the cpu backend " +
           std::to_string(compiled.outputs.size());
  Expected<GraphTolerance> tol = estimate_tolerance(g, inputs);
  for (size_t i = 0; i < interpreted.outputs.size(); ++i) {
    const Tensor& want = interpreted.outputs[i];
    std::string why = compare_tensor("output " + std::to_string(i), want, compiled.outputs[i],
                                     tol ? tol->outputs[i] : default_element_tolerance(want));
    if (!why.empty()) return why;
  }
  for (int i = 0; i < g.num_inputs(); ++i) {
    const Tensor& want = interpreted.inputs_after[static_cast<size_t>(i)];
    std::string why = compare_tensor("input " + std::to_string(i) + " after the run", want,
                                     compiled.inputs_after[static_cast<size_t>(i)],
                                     tol ? tol->inputs[static_cast<size_t>(i)] : default_element_tolerance(want));
    if (!why.empty()) return why;
  }
  return "";
}

std::vector<Finding> check_cases(std::span<const FuzzCase> cases, const DifferentialOptions& options) {
  std::vector<Prepared> prepared;
  for (const FuzzCase& c : cases) {
    const CheckContext context("interpreting fuzz seed " + std::to_string(c.seed));
    std::vector<Tensor> inputs = fuzz_inputs(*c.graph, c.seed);
    Outcome interpreted = interpret_outcome(*c.graph, inputs);
    prepared.push_back({&c, std::move(inputs), std::move(interpreted)});
  }
  const CpuBackend backend(options.cpu);
  std::vector<Finding> findings;
  std::vector<const Prepared*> batch;
  auto flush = [&] {
    if (!batch.empty()) check_batch(batch, backend, findings);
    batch.clear();
  };
  for (const Prepared& p : prepared) {
    if (!p.interpreted.error.empty()) {  // errors are compared graph by graph
      if (std::string why = check_alone(p, backend); !why.empty()) findings.push_back({p.c->seed, why});
      continue;
    }
    batch.push_back(&p);
    if (static_cast<int>(batch.size()) >= options.batch) flush();
  }
  flush();
  std::sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) { return a.seed < b.seed; });
  return findings;
}

}  // namespace kiln::fuzz
