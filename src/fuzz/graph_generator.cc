// The generator's main loop: draw an op from the table, let its recipe fill a draft, keep it
// when the op's rules accept it; then every result no node reads becomes an output.
#include "fuzz/graph_generator.h"

#include <set>

#include "fuzz/gen_context.h"
#include "fuzz/op_recipes.h"
#include "ops/op_info.h"
#include "passes/dce.h"

namespace kiln::fuzz {
namespace {

constexpr ExcludedOp kExcluded[] = {
    {OpKind::KernelCall,
     "runs a registered user kernel (ops/user_kernel.h): a graph of drawn ops has none to call; tests/kernels "
     "and the kernel-registration unit tests run it"},
    {OpKind::KernelCallFunctional, "the functional form of kernel_call, as above"},
};

constexpr int kMaxDepth = 2;        // bodies of higher-order ops nest at most this deep
constexpr int kAttemptsPerOp = 24;  // drafts tried before a node is given up

bool excluded(OpKind op) {
  for (const ExcludedOp& e : kExcluded)
    if (e.op == op) return true;
  return false;
}

// The ops a context may draw: the table minus the exclusions, higher-order ops only above
// kMaxDepth, those options.draws accepts, elementwise ones in a pointwise body.
std::vector<OpKind> drawable_ops(const GenContext& ctx) {
  std::vector<OpKind> ops;
  for (const OpInfo& info : all_ops()) {
    if (excluded(info.kind)) continue;
    if (info.has(kHigherOrder) && (!ctx.options.control_flow || ctx.depth >= kMaxDepth)) continue;
    if (ctx.options.draws && !ctx.options.draws(info.kind)) continue;
    if (ctx.pointwise && (!info.has(kElementwise) || info.has(kInplace))) continue;
    ops.push_back(info.kind);
  }
  return ops;
}

// Node results no node reads (in-place results included: their write is seen only through them).
std::vector<Value*> unread_results(const Graph& g) {
  std::vector<Value*> out;
  for (Node* n : g.nodes())
    for (Value* v : n->results())
      if (!v->has_uses()) out.push_back(v);
  return out;
}

}  // namespace

std::span<const ExcludedOp> excluded_ops() { return kExcluded; }

void draw_ops(GenContext& ctx, int num_nodes) {
  const std::vector<OpKind> ops = drawable_ops(ctx);
  for (int i = 0; i < num_nodes; ++i) {
    for (int attempt = 0; attempt < kAttemptsPerOp; ++attempt) {
      OpDraft d{ctx.choices.pick(ops)};
      const GenContext::Checkpoint before = ctx.checkpoint();
      if (recipe_for(d.op)(ctx, d) && ctx.append(std::move(d))) break;
      ctx.rollback(before);
    }
  }
}

std::unique_ptr<Graph> draw_body(GenContext& outer, const std::vector<TensorType>& inputs,
                                 const std::vector<std::optional<TensorType>>& outputs, int num_nodes, bool pointwise) {
  auto body = std::make_unique<Graph>("body");
  for (size_t i = 0; i < inputs.size(); ++i) body->add_input("a" + std::to_string(i), inputs[i]);
  // A body's unread results are not outputs: its signature is fixed. So nothing in it may fail.
  GeneratorOptions options = outer.options;
  options.error_percent = 0;
  GenContext ctx(*body, outer.choices, options, outer.depth + 1, pointwise);
  draw_ops(ctx, num_nodes);
  std::vector<Value*> outs;
  for (const std::optional<TensorType>& t : outputs) {
    Value* v = t ? ctx.value_of_type(*t) : ctx.pick_value();
    if (!v) v = ctx.fresh_value(t ? *t : ctx.tensor_type());
    KILN_CHECK(v) << "fuzz: a pointwise body cannot make an output of type " << (t ? t->to_string() : "any");
    outs.push_back(v);
  }
  body->set_outputs(outs);
  // The compiled pipeline removes what no output reads; the interpreter would run it, and a
  // run error there (batch_norm of one value per channel) would be the interpreter's alone.
  eliminate_dead_code(*body);
  return body;
}

std::unique_ptr<Graph> generate_graph(Choices& choices, const GeneratorOptions& options) {
  auto g = std::make_unique<Graph>("fuzz");
  GenContext ctx(*g, choices, options, 0);
  for (int64_t i = 0, n = choices.between(1, 3); i < n; ++i) ctx.fresh_value(ctx.tensor_type());
  draw_ops(ctx, static_cast<int>(choices.between(1, options.max_nodes)));
  std::vector<Value*> outputs = unread_results(*g);
  if (outputs.empty()) outputs.push_back(ctx.pick_value());
  g->set_outputs(outputs);
  return g;
}

}  // namespace kiln::fuzz
