// Exporters of the higher-order ops, each to ONNX's control flow with subgraphs:
//   cond(pred, ops...)        -> If: each branch is the kiln branch inlined, reading the
//                                operands from the enclosing scope (If branches have no inputs).
//   while_loop(carried...)    -> Loop with no trip count: the first condition is cond_fn
//                                inlined before the loop; the body runs body_fn and then
//                                cond_fn on the new values, giving the next condition.
//   scan(init..., xs...)      -> Scan: the carries are its state, xs its scan inputs and
//                                combine_fn's extra outputs its scan outputs, with `dim`
//                                moved to the front and back by Transposes.
//   map(xs..., extra...)      -> Scan without state over dim 0; the extra operands are read
//                                from the enclosing scope.
#include "onnx/export_util.h"

namespace kiln::onnx {

namespace {

using Names = std::vector<std::string>;

std::vector<std::string> value_operands(ExportContext& cx, int begin, int end) {
  Names out;
  for (int i = begin; i < end; ++i) out.push_back(cx.operand(i));
  return out;
}

// An ONNX subgraph built by `body` into a fresh builder, named for the kiln graph.
template <typename F>
Expected<std::shared_ptr<::onnx::GraphProto>> subgraph(ExportContext& cx, const Graph& g, F body) {
  std::shared_ptr<::onnx::GraphProto> proto = new_graph_proto();
  OnnxBuilder sb(*proto, &cx.b);
  sb.set_name(sb.fresh(g.name()));
  KILN_TRY(body(sb));
  return proto;
}

// Declares g's outputs as the subgraph's outputs (each through an Identity: an ONNX graph
// output must be produced inside the graph and named once).
void add_outputs(OnnxBuilder& sb, const Graph& g, const Names& outs) {
  for (size_t i = 0; i < outs.size(); ++i) {
    const std::string out = sb.op("Identity", {outs[i]});
    sb.add_output(out, g.outputs()[i]->type());
  }
}

Expected<Names> cond(ExportContext& cx) {
  const std::string pred = cx.b.op("Reshape", {cx.operand_as(0, DType::Bool), cx.b.ints({})});
  const Names operands = value_operands(cx, 1, cx.num_operands());
  std::vector<std::shared_ptr<::onnx::GraphProto>> branches;
  for (int i = 0; i < 2; ++i) {
    const Graph& g = *cx.node.subgraph(i);
    KILN_ASSIGN_OR_RETURN(auto proto, subgraph(cx, g, [&](OnnxBuilder& sb) -> Status {
                            KILN_ASSIGN_OR_RETURN(Names outs, cx.inline_graph(g, sb, operands));
                            add_outputs(sb, g, outs);
                            return Status::ok();
                          }));
    branches.push_back(std::move(proto));
  }
  return cx.b.node("If", {pred}, {{"then_branch", branches[0]}, {"else_branch", branches[1]}}, cx.node.num_results());
}

// The loop condition as ONNX's Loop wants it: a bool scalar.
std::string as_condition(OnnxBuilder& b, const std::string& v, DType d) {
  return b.op("Reshape", {b.cast(v, d, DType::Bool), b.ints({})});
}

Expected<Names> while_loop(ExportContext& cx) {
  const Graph& cond_fn = *cx.node.subgraph(0);
  const Graph& body_fn = *cx.node.subgraph(1);
  const Names carried = value_operands(cx, 0, cx.num_operands());
  KILN_ASSIGN_OR_RETURN(Names first, cx.inline_graph(cond_fn, cx.b, carried));
  const DType cond_dtype = cond_fn.outputs()[0]->type().dtype;
  const std::string first_cond = as_condition(cx.b, first[0], cond_dtype);
  KILN_ASSIGN_OR_RETURN(
      auto body, subgraph(cx, body_fn, [&](OnnxBuilder& sb) -> Status {
        sb.add_input(sb.fresh("iteration"), DType::I64, 0);
        sb.add_input(sb.fresh("condition"), DType::Bool, 0);
        Names in;
        for (int i = 0; i < body_fn.num_inputs(); ++i) {
          in.push_back(sb.fresh("carried"));
          sb.add_input(in.back(), body_fn.input(i)->type());
        }
        KILN_ASSIGN_OR_RETURN(Names next, cx.inline_graph(body_fn, sb, in));
        KILN_ASSIGN_OR_RETURN(Names again, cx.inline_graph(cond_fn, sb, next));
        sb.add_output(sb.op("Identity", {as_condition(sb, again[0], cond_dtype)}), TensorType{DType::Bool, Shape()});
        add_outputs(sb, body_fn, next);
        return Status::ok();
      }));
  Names inputs = {"", first_cond};
  inputs.insert(inputs.end(), carried.begin(), carried.end());
  return cx.b.node("Loop", inputs, {{"body", body}}, cx.node.num_results());
}

// Scan over `dim` with `num_state` state values from the operands [0, num_state) and scan
// inputs [num_state, num_state + num_scanned); the remaining operands are read by the body
// from the enclosing scope.
Expected<Names> scan_like(ExportContext& cx, int num_state, int num_scanned, int64_t dim) {
  const Graph& body_fn = *cx.node.subgraph(0);
  const Names operands = value_operands(cx, 0, cx.num_operands());
  const int num_outputs = static_cast<int>(body_fn.outputs().size());
  KILN_ASSIGN_OR_RETURN(auto body, subgraph(cx, body_fn, [&](OnnxBuilder& sb) -> Status {
                          Names in;
                          for (int i = 0; i < body_fn.num_inputs(); ++i) {
                            if (i < num_state + num_scanned) {
                              in.push_back(sb.fresh("element"));
                              sb.add_input(in.back(), body_fn.input(i)->type());
                            } else {
                              in.push_back(operands[static_cast<size_t>(i)]);
                            }
                          }
                          KILN_ASSIGN_OR_RETURN(Names outs, cx.inline_graph(body_fn, sb, in));
                          add_outputs(sb, body_fn, outs);
                          return Status::ok();
                        }));
  // The scanned dim is moved to the front and back again with Transposes rather than given
  // as scan_input_axes/scan_output_axes: ONNX's reference evaluator scans axis 0 only.
  auto to_front = [&](int rank) {
    std::vector<int64_t> perm = {dim};
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim) perm.push_back(d);
    return perm;
  };
  auto from_front = [&](int rank) {
    std::vector<int64_t> perm;
    for (int64_t d = 1; d < rank; ++d) {
      if (d == dim + 1) perm.push_back(0);
      perm.push_back(d);
    }
    if (dim + 1 >= rank) perm.push_back(0);
    return perm;
  };
  Names inputs(operands.begin(), operands.begin() + num_state);
  for (int i = num_state; i < num_state + num_scanned; ++i) {
    const std::string& x = operands[static_cast<size_t>(i)];
    inputs.push_back(dim == 0 ? x : cx.b.op("Transpose", {x}, {{"perm", to_front(cx.rank(i))}}));
  }
  Names outs = cx.b.node("Scan", inputs, {{"body", body}, {"num_scan_inputs", int64_t{num_scanned}}}, num_outputs);
  for (int i = num_state; i < num_outputs && dim != 0; ++i)
    outs[static_cast<size_t>(i)] =
        cx.b.op("Transpose", {outs[static_cast<size_t>(i)]}, {{"perm", from_front(cx.result_type(i).shape.rank())}});
  return outs;
}

Expected<Names> scan(ExportContext& cx) {
  const int num_init = static_cast<int>(cx.call.attr_int("num_init"));
  const int rank = cx.num_operands() > num_init ? cx.rank(num_init) : 1;
  const int64_t dim = wrap_axes({cx.call.attr_int("dim")}, rank)[0];
  return scan_like(cx, num_init, cx.num_operands() - num_init, dim);
}

Expected<Names> map(ExportContext& cx) { return scan_like(cx, 0, static_cast<int>(cx.call.attr_int("num_mapped")), 0); }

}  // namespace

std::vector<OpExporterEntry> control_flow_exporters() {
  return {
      {OpKind::Cond, cond},
      {OpKind::WhileLoop, while_loop},
      {OpKind::Scan, scan},
      {OpKind::Map, map},
  };
}

}  // namespace kiln::onnx
