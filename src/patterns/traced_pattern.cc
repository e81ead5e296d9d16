// register_replacement: tracing pattern functions and the re-tracing extra_check.
#include "patterns/traced_pattern.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "frontend/capture.h"
#include "ops/op_info.h"

namespace kiln {

namespace {

struct Traced {
  std::shared_ptr<const Graph> search;
  std::shared_ptr<const Graph> replacement;
  int traced_search_nodes = 0;  // nodes of the search function's own graph
};

Expected<std::shared_ptr<const Graph>> trace(const Replacement& r, const PatternFn& fn, const char* what,
                                             std::vector<Tensor> inputs, std::vector<Scalar> scalars,
                                             std::vector<DynamicDim> dynamic) {
  CaptureOptions options{
      .dynamic = std::move(dynamic), .for_pattern = true, .name = what, .input_names = r.input_names};
  KILN_ASSIGN_OR_RETURN(
      Captured captured,
      capture(CaptureFn([&](std::span<const Tensor> in) { return fn(in, scalars); }), std::move(inputs), options));
  if (!captured.lifted.empty())
    return make_error("pattern '", r.name, "': the ", what, " function reads a tensor that is not one of its inputs");
  return std::shared_ptr<const Graph>(std::move(captured.graph));
}

// r.transform applied to a traced graph, checked to keep the traced inputs and nodes first.
Expected<std::shared_ptr<const Graph>> transformed(const Replacement& r, const char* what,
                                                   std::shared_ptr<const Graph> traced) {
  if (!r.transform) return traced;
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const Graph> g, r.transform(*traced));
  const std::vector<Node*>& before = traced->nodes();
  bool keeps = g->num_inputs() >= traced->num_inputs() && g->nodes().size() >= before.size();
  for (int i = 0; keeps && i < traced->num_inputs(); ++i) keeps = g->input(i)->name() == traced->input(i)->name();
  for (size_t i = 0; keeps && i < before.size(); ++i) keeps = g->nodes()[i]->op() == before[i]->op();
  if (!keeps)
    return make_error("pattern '", r.name, "': the transform of the ", what,
                      " graph does not start with the traced graph's inputs and nodes");
  return g;
}

// The replacement with the search graph's inputs: a wildcard it does not take (a joint search
// graph's generator state, when the replacement draws nothing) becomes an unused input.
Expected<std::shared_ptr<const Graph>> with_search_inputs(const Replacement& r, const Graph& search,
                                                          std::shared_ptr<const Graph> replacement) {
  if (replacement->num_inputs() == search.num_inputs()) return replacement;
  auto g = std::make_shared<Graph>(replacement->name());
  std::vector<Value*> mapped;
  for (int i = 0, j = 0; i < search.num_inputs(); ++i) {
    const Value& in = *search.input(i);
    Value* v = g->add_input(in.name(), in.type(), in.role());
    if (j < replacement->num_inputs() && replacement->input(j)->name() == in.name()) {
      mapped.push_back(v);
      ++j;
    }
  }
  if (static_cast<int>(mapped.size()) != replacement->num_inputs())
    return make_error("pattern '", r.name, "': the replacement graph's inputs are not among the search graph's");
  GraphBuilder b(*g);
  g->set_outputs(b.inline_graph(*replacement, mapped));
  return std::shared_ptr<const Graph>(std::move(g));
}

Expected<Traced> trace_both(const Replacement& r, std::vector<Tensor> inputs, std::vector<Scalar> scalars,
                            const std::vector<DynamicDim>& dynamic) {
  Traced t;
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const Graph> search, trace(r, r.search, "search", inputs, scalars, dynamic));
  t.traced_search_nodes = static_cast<int>(search->nodes().size());
  KILN_ASSIGN_OR_RETURN(t.search, transformed(r, "search", std::move(search)));
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const Graph> replacement,
                        trace(r, r.replace, "replacement", std::move(inputs), std::move(scalars), dynamic));
  KILN_ASSIGN_OR_RETURN(replacement, transformed(r, "replacement", std::move(replacement)));
  KILN_ASSIGN_OR_RETURN(t.replacement, with_search_inputs(r, *t.search, std::move(replacement)));
  return t;
}

// Tensors of the real types of the wildcards the functions take (the first `count`); a symbolic
// dim gets one stand-in size per symbol and stays symbolic in the trace.
std::vector<Tensor> inputs_like(const Match& m, size_t count, std::vector<DynamicDim>& dynamic) {
  std::map<std::string, int64_t> stand_in;
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < count && i < m.wildcards.size(); ++i) {
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

// A re-trace for one set of wildcard types and scalars: the replacement to use and the exact
// pattern to match again.
struct Retraced {
  std::shared_ptr<const Graph> replacement;
  PatternSet exact;
};

// Re-traces keyed by the traced wildcards' types and the scalars found: the layers of a model
// repeat one shape, so one trace serves them all. The pattern may be applied from several
// threads (the registry's sets are shared), hence the lock; the traces themselves are
// immutable once made.
class RetraceCache {
 public:
  std::shared_ptr<const Retraced> get(const Replacement& r, const Match& m) {
    std::string key;
    for (size_t i = 0; i < r.example_inputs.size() && i < m.wildcards.size(); ++i)
      key += m.wildcards[i]->type().to_string() + ";";
    for (const AttrValue& v : m.scalars) key += "|" + v.to_string();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = entries_.find(key); it != entries_.end()) return it->second;
    }
    std::shared_ptr<const Retraced> made = retrace(r, m);
    std::lock_guard<std::mutex> lock(mutex_);
    if (entries_.size() >= kMaxEntries) entries_.clear();
    entries_.emplace(key, made);
    return made;
  }

 private:
  static constexpr size_t kMaxEntries = 256;

  // Null when the functions do not trace on these types or the types do not fit.
  static std::shared_ptr<const Retraced> retrace(const Replacement& r, const Match& m) {
    std::vector<DynamicDim> dynamic;
    std::vector<Tensor> inputs = inputs_like(m, r.example_inputs.size(), dynamic);
    std::vector<Scalar> scalars;
    for (const AttrValue& v : m.scalars) scalars.push_back(v.as_scalar());
    Expected<Traced> traced = trace_both(r, std::move(inputs), std::move(scalars), dynamic);
    if (!traced) return nullptr;
    for (size_t j = 0; j < m.outputs.size(); ++j)
      if (j >= traced->replacement->outputs().size() ||
          !(traced->replacement->outputs()[j]->type() == m.outputs[j]->type()))
        return nullptr;
    auto made = std::make_shared<Retraced>(Retraced{traced->replacement, PatternSet(r.name)});
    if (!made->exact.add(Pattern{.name = r.name, .search = traced->search, .replacement = traced->replacement}))
      return nullptr;
    return made;
  }

  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const Retraced>> entries_;
};

// The reference's check_fn: the functions re-traced with the real types and scalars must match
// exactly the nodes the literal-ignoring match found.
bool retrace_check(const Replacement& r, RetraceCache& cache, Match& m) {
  std::shared_ptr<const Retraced> retraced = cache.get(r, m);
  if (!retraced) return false;
  std::optional<Match> again = match_pattern(retraced->exact, 0, m.anchor);
  if (!again || again->wildcards != m.wildcards || sorted(again->nodes) != sorted(m.nodes)) return false;
  if (r.extra_check && !r.extra_check(*again)) return false;
  m.replacement = retraced->replacement;
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
    p.scalar_nodes = serialized->scalar_nodes;
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
    if (r.transform) p.scalar_nodes = traced->traced_search_nodes;
    const std::vector<Node*>& nodes = p.search->nodes();
    for (OpKind op : r.required_ops)
      if (std::none_of(nodes.begin(), nodes.end(), [op](const Node* n) { return n->op() == op; }))
        return make_error("pattern '", r.name, "': required op '", op_info(op).name(),
                          "' is not in the traced search graph");
  }
  auto shared = std::make_shared<Replacement>(r);
  auto cache = std::make_shared<RetraceCache>();
  p.extra_check = [shared, cache](Match& m) { return retrace_check(*shared, *cache, m); };
  return p;
}

Status register_replacement(PatternSet& set, const Replacement& r, const Pattern* serialized) {
  KILN_ASSIGN_OR_RETURN(Pattern p, trace_replacement(r, serialized));
  return set.add(std::move(p));
}

}  // namespace kiln
