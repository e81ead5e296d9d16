// The pointwise check of higher-order ops' bodies (subgraph.h): classifies each body node as
// inlinable, buffer-creating, or buffer-mutating, in body order, and reports the first
// offender.
#include "lower/subgraph.h"

#include "ir/written_operands.h"
#include "ops/op_info.h"

namespace kiln {

namespace {

std::string body_name(const Node& hop, int index) {
  return std::string(hop.info().schema.subgraph_args()[static_cast<size_t>(index)]->name);
}

bool mutates(const Node& n) { return writes_operands(n); }

bool has_static_types(const Node& n) {
  for (int r = 0; r < n.num_results(); ++r)
    if (!n.result(r)->type().shape.is_static()) return false;
  return true;
}

}  // namespace

Status check_pointwise_subgraph(const Node& hop, int index, const OpSet& allowed_mutations,
                                InlinesAsPointwise inlines) {
  const Graph& body = *hop.subgraph(index);
  const std::string prefix = std::string(hop.info().name()) + ": " + body_name(hop, index) + " is not pointwise: ";
  for (int i = 0; i < body.num_inputs(); ++i)
    if (!body.input(i)->type().shape.is_static())
      return make_error(prefix, "input %", body.input(i)->name(), " has symbolic shape ",
                        body.input(i)->type().to_string(), "; only static shapes are lowered");
  for (const Node* n : body.nodes()) {
    const std::string op = "'" + std::string(n->info().name()) + "'";
    if (!has_static_types(*n))
      return make_error(prefix, op, " has a symbolic result shape; only static shapes are lowered");
    const bool nested = n->num_subgraphs() > 0 || n->info().has(kHigherOrder);
    const bool approved = allowed_mutations.contains(n->op());
    if (!nested && !mutates(*n) && n->num_results() == 1 && inlines(*n)) continue;
    if (!approved) {
      if (mutates(*n))
        return make_error(prefix, op, " would mutate a buffer (subgraph lowering allows only pointwise ops)");
      if (nested)
        return make_error(
            prefix, op,
            " is a higher-order op and would create a buffer (subgraph lowering allows only pointwise ops)");
      if (n->info().has(kView))
        return make_error(prefix, op,
                          " is a view and would need a buffer (subgraph lowering allows only pointwise ops)");
      return make_error(prefix, op, " would create a buffer (subgraph lowering allows only pointwise ops)");
    }
    return make_error(prefix, op,
                      " is approved to create or mutate buffers but is not supported in a subgraph (missing lowering)");
  }
  return Status::ok();
}

}  // namespace kiln
