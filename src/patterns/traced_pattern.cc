// register_replacement: tracing pattern functions and the re-tracing extra_check.
#include "patterns/traced_pattern.h"

#include <algorithm>
#include <map>
#include <memory>

#include "frontend/capture.h"

namespace kiln {

namespace {

struct Traced {
  std::shared_ptr<const Graph> search;
  std::shared_ptr<const Graph> replacement;
};

Expected<std::shared_ptr<const Graph>> trace(const Replacement& r, const PatternFn& fn, const char* what,
                                             std::vector<Tensor> inputs, std::vector<Scalar> scalars,
                                             std::vector<DynamicDim> dynamic) {
  CaptureOptions options{.dynamic = std::move(dynamic), .for_pattern = true, .name = what, .input_names = r.input_names};
  KILN_ASSIGN_OR_RETURN(Captured captured,
                        capture(CaptureFn([&](std::span<const Tensor> in) { return fn(in, scalars); }),
                                std::move(inputs), options));
  if (!captured.lifted.empty())
    return make_error("pattern '", r.name, "': the ", what, " function reads a tensor that is not one of its inputs");
  return std::shared_ptr<const Graph>(std::move(captured.graph));
}

Expected<Traced> trace_both(const Replacement& r, std::vector<Tensor> inputs, std::vector<Scalar> scalars,
                            const std::vector<DynamicDim>& dynamic) {
  Traced t;
  KILN_ASSIGN_OR_RETURN(t.search, trace(r, r.search, "search", inputs, scalars, dynamic));
  KILN_ASSIGN_OR_RETURN(t.replacement, trace(r, r.replace, "replacement", std::move(inputs), std::move(scalars), dynamic));
  return t;
}

// Tensors of the wildcards' real types; a symbolic dim gets one stand-in size per symbol and
// stays symbolic in the trace.
std::vector<Tensor> inputs_like(const Match& m, std::vector<DynamicDim>& dynamic) {
  std::map<std::string, int64_t> stand_in;
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < m.wildcards.size(); ++i) {
    const TensorType& type = m.wildcards[i]->type();
    std::vector<int64_t> sizes;
    for (int d = 0; d < type.shape.rank(); ++d) {
      const Dim& dim = type.shape[d];
      if (dim.is_static()) {
        sizes.push_back(dim.value());
        continue;
      }
      auto [it, fresh] = stand_in.emplace(dim.symbol_name(), 0);
      if (fresh) it->second = 5 + static_cast<int64_t>(stand_in.size());
      sizes.push_back(it->second);
      dynamic.push_back(DynamicDim{d, dim.symbol_name(), static_cast<int>(i)});
    }
    inputs.push_back(Tensor::zeros(sizes, type.dtype));
  }
  return inputs;
}

std::vector<Node*> sorted(std::vector<Node*> nodes) {
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

// The reference's check_fn.
bool retrace_check(const Replacement& r, Match& m) {
  std::vector<DynamicDim> dynamic;
  std::vector<Tensor> inputs = inputs_like(m, dynamic);
  std::vector<Scalar> scalars;
  for (const AttrValue& v : m.scalars) scalars.push_back(v.as_scalar());
  Expected<Traced> traced = trace_both(r, std::move(inputs), std::move(scalars), dynamic);
  if (!traced) return false;
  for (size_t j = 0; j < m.outputs.size(); ++j)
    if (j >= traced->replacement->outputs().size() ||
        !(traced->replacement->outputs()[j]->type() == m.outputs[j]->type()))
      return false;
  PatternSet exact(r.name);
  if (!exact.add(Pattern{.name = r.name, .search = traced->search, .replacement = traced->replacement})) return false;
  std::optional<Match> again = match_pattern(exact, 0, m.anchor);
  if (!again || again->wildcards != m.wildcards || sorted(again->nodes) != sorted(m.nodes)) return false;
  if (r.extra_check && !r.extra_check(*again)) return false;
  m.replacement = traced->replacement;
  return true;
}

}  // namespace

Expected<Pattern> trace_replacement(const Replacement& r, const Pattern* serialized) {
  Pattern p{.name = r.name, .ignore_literals = true, .scalar_params = r.scalar_params};
  if (serialized) {
    if (serialized->name != r.name)
      return make_error("pattern '", r.name, "': the serialized pattern is named '", serialized->name, "'");
    p.search = serialized->search;
    p.replacement = serialized->replacement;
  } else {
    std::vector<Scalar> magic;
    for (const ScalarParam& s : r.scalar_params) magic.emplace_back(s.magic);
    Expected<Traced> traced = trace_both(r, r.example_inputs, std::move(magic), {});
    if (!traced) {
      Diagnostic d = traced.error();
      d.add_context("while tracing pattern '" + r.name + "'");
      return d;
    }
    p.search = traced->search;
    p.replacement = traced->replacement;
  }
  auto shared = std::make_shared<Replacement>(r);
  p.extra_check = [shared](Match& m) { return retrace_check(*shared, m); };
  return p;
}

Status register_replacement(PatternSet& set, const Replacement& r, const Pattern* serialized) {
  KILN_ASSIGN_OR_RETURN(Pattern p, trace_replacement(r, serialized));
  return set.add(std::move(p));
}

}  // namespace kiln
