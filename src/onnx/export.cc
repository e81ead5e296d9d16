// The export driver: runs the export passes, exports inputs, initializers, every node (through
// the per-op exporters) and outputs, then checks the model with ONNX's checker and shape
// inference and compares the inferred shapes with kiln's.
#include "onnx/export.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <unordered_map>

#include "ir/printer.h"
#include "onnx/model_file.h"
#include "onnx/op_exporter.h"
#include "passes/pass_manager.h"

namespace kiln::onnx {

struct ExportedModel::Proto {
  ::onnx::ModelProto model;
};

ExportedModel::ExportedModel() : proto_(std::make_unique<Proto>()) {}
ExportedModel::~ExportedModel() = default;
ExportedModel::ExportedModel(ExportedModel&&) noexcept = default;
ExportedModel& ExportedModel::operator=(ExportedModel&&) noexcept = default;

size_t ExportedModel::num_nodes() const { return static_cast<size_t>(proto_->model.graph().node_size()); }

std::string ExportedModel::serialize() const { return proto_->model.SerializeAsString(); }

namespace {

// "cannot write PATH: Is a directory": why the stream of external data failed to open or write
// (it is written as it is made, not held whole as write_model_file would).
Status write_error(const std::string& path) { return make_error("cannot write ", path, ": ", std::strerror(errno)); }

}  // namespace

Status ExportedModel::save(const std::string& path, int64_t external_data_threshold) const {
  int64_t weight_bytes = 0;
  for (const ::onnx::TensorProto& t : proto_->model.graph().initializer())
    weight_bytes += static_cast<int64_t>(t.raw_data().size());
  if (weight_bytes <= external_data_threshold) {
    return write_model_file(path, proto_->model);
  }
  // External data: every initializer's bytes go to <path>.data, 64-byte aligned, and the
  // proto keeps their location, offset and length.
  ::onnx::ModelProto copy = proto_->model;
  const std::string data_path = path + ".data";
  const std::string location = data_path.substr(data_path.find_last_of('/') + 1);
  std::ofstream data(data_path, std::ios::binary);
  if (!data) return write_error(data_path);
  int64_t offset = 0;
  for (::onnx::TensorProto& t : *copy.mutable_graph()->mutable_initializer()) {
    const int64_t pad = (64 - offset % 64) % 64;
    data.write(std::string(static_cast<size_t>(pad), '\0').data(), pad);
    offset += pad;
    const std::string& raw = t.raw_data();
    data.write(raw.data(), static_cast<std::streamsize>(raw.size()));
    t.set_data_location(::onnx::TensorProto::EXTERNAL);
    auto add = [&](const std::string& k, const std::string& v) {
      ::onnx::StringStringEntryProto* e = t.add_external_data();
      e->set_key(k);
      e->set_value(v);
    };
    add("location", location);
    add("offset", std::to_string(offset));
    add("length", std::to_string(raw.size()));
    offset += static_cast<int64_t>(raw.size());
    t.clear_raw_data();
  }
  if (!data) return write_error(data_path);
  return write_model_file(path, copy);
}

namespace {

// Where each symbolic dim can be read at run time: a graph input whose dim `dim` is it.
struct DimSource {
  std::string input;
  int dim;
};

// ONNX's inferred types of the exported values must agree with kiln's: dtype, rank and
// every dim both sides know statically.
Status compare_inferred_shapes(const ::onnx::GraphProto& inferred,
                               const std::vector<std::pair<const Value*, std::string>>& value_names) {
  std::unordered_map<std::string, const ::onnx::ValueInfoProto*> by_name;
  for (const ::onnx::ValueInfoProto& vi : inferred.value_info()) by_name[vi.name()] = &vi;
  for (const auto& [v, name] : value_names) {
    auto it = by_name.find(name);
    if (it == by_name.end() || !it->second->type().has_tensor_type()) continue;
    const ::onnx::TypeProto_Tensor& tt = it->second->type().tensor_type();
    const TensorType& want = v->type();
    std::string why;
    if (tt.elem_type() != onnx_dtype(want.dtype)) {
      why = "element type " + std::to_string(tt.elem_type()) + ", kiln's is " + std::string(dtype_name(want.dtype));
    } else if (tt.has_shape()) {
      if (tt.shape().dim_size() != want.shape.rank()) {
        why = "rank " + std::to_string(tt.shape().dim_size()) + ", kiln's is " + std::to_string(want.shape.rank());
      } else {
        for (int d = 0; d < want.shape.rank(); ++d) {
          const ::onnx::TensorShapeProto_Dimension& od = tt.shape().dim(d);
          if (od.has_dim_value() && want.shape[d].is_static() && od.dim_value() != want.shape[d].value())
            why = "size " + std::to_string(od.dim_value()) + " in dim " + std::to_string(d) + ", kiln's type is " +
                  want.to_string();
        }
      }
    }
    if (!why.empty())
      return make_error("ONNX shape inference gives ", name, " ", why, "\n  at ", print_node(*v->producer()));
  }
  return Status::ok();
}

}  // namespace

class Exporter {
 public:
  explicit Exporter(const ExportOptions& o) : o_(o) {}

  Expected<ExportedModel> run(const Graph& source, std::span<const Tensor> params, bool intermediates);

 private:
  // Exports g's nodes into b; `names` maps g's values (inputs filled by the caller) to ONNX names.
  Status export_nodes(const Graph& g, OnnxBuilder& b, std::unordered_map<const Value*, std::string>& names,
                      const std::map<std::string, DimSource>& dims);
  Expected<std::vector<std::string>> export_inline(const Graph& g, OnnxBuilder& b,
                                                   const std::vector<std::string>& inputs,
                                                   const std::map<std::string, DimSource>& outer);

  const ExportOptions& o_;
};

namespace {

void collect_dims(const Graph& g, const std::vector<std::string>& input_names, std::map<std::string, DimSource>& out) {
  for (int i = 0; i < g.num_inputs(); ++i) {
    const Shape& s = g.input(i)->type().shape;
    for (int d = 0; d < s.rank(); ++d)
      if (s[d].is_symbolic()) out.emplace(s[d].to_string(), DimSource{input_names[static_cast<size_t>(i)], d});
  }
}

}  // namespace

Status Exporter::export_nodes(const Graph& g, OnnxBuilder& b, std::unordered_map<const Value*, std::string>& names,
                              const std::map<std::string, DimSource>& dims) {
  std::map<std::string, std::string> dim_values;  // symbol text -> 0-d int64 value, built once per graph
  auto dim_value = [&](const std::string& text) -> std::optional<std::string> {
    if (auto it = dim_values.find(text); it != dim_values.end()) return it->second;
    auto src = dims.find(text);
    if (src == dims.end()) return std::nullopt;
    const std::string shape = b.op("Shape", {src->second.input});
    const std::string v = b.op("Gather", {shape, b.int_scalar(src->second.dim)}, {{"axis", int64_t{0}}});
    dim_values.emplace(text, v);
    return v;
  };
  for (Node* n : g.nodes()) {
    const OpExporter* fn = find_exporter(n->op());
    auto where = [&](const Diagnostic& d) {
      return make_error("cannot export to ONNX (opset ", o_.opset, "): ", d.message(), "\n  at ", print_node(*n))
          .with_loc(n->loc());
    };
    if (n->op() == OpKind::KernelCall || n->op() == OpKind::KernelCallFunctional)
      return where(
          make_error("user kernel '", n->attrs().find("kernel")->as_string(),
                     "' is not exportable to ONNX: it runs the user's own GPU code, which no ONNX op expresses"));
    if (fn == nullptr)
      return where(make_error("op '", n->info().name(), "' has no ONNX mapping (docs/ONNX.md lists the ops that do)"));
    ExportContext cx{b, *n, OpCallBase(n->op(), n->attrs()), {}, o_.opset, o_.training, nullptr, dim_value};
    cx.inline_graph = [this, &dims](const Graph& sub, OnnxBuilder& into, const std::vector<std::string>& inputs) {
      return export_inline(sub, into, inputs, dims);
    };
    for (const Operand& op : n->operands()) cx.inputs.push_back(op.is_value() ? names.at(op.value) : std::string());
    Expected<std::vector<std::string>> outs = (*fn)(cx);
    if (!outs) return where(outs.error());
    if (static_cast<int>(outs->size()) != n->num_results())
      return where(make_error("the exporter of '", n->info().name(), "' gave ", outs->size(), " results for ",
                              n->num_results()));
    for (int i = 0; i < n->num_results(); ++i) names[n->result(i)] = (*outs)[static_cast<size_t>(i)];
  }
  return Status::ok();
}

Expected<std::vector<std::string>> Exporter::export_inline(const Graph& g, OnnxBuilder& b,
                                                           const std::vector<std::string>& inputs,
                                                           const std::map<std::string, DimSource>& outer) {
  std::unordered_map<const Value*, std::string> names;
  for (int i = 0; i < g.num_inputs(); ++i) names[g.input(i)] = inputs.at(static_cast<size_t>(i));
  std::map<std::string, DimSource> dims = outer;
  collect_dims(g, inputs, dims);
  KILN_TRY(export_nodes(g, b, names, dims));
  std::vector<std::string> outs;
  for (const Value* v : g.outputs()) outs.push_back(names.at(v));
  return outs;
}

Expected<ExportedModel> Exporter::run(const Graph& source, std::span<const Tensor> params, bool intermediates) {
  if (o_.opset < kMinOpset || o_.opset > kMaxOpset)
    return make_error("ONNX opset ", o_.opset, " is not supported: kiln exports opsets ", kMinOpset, " to ", kMaxOpset);
  ExportedModel m;
  m.opset_ = o_.opset;
  std::shared_ptr<Graph> g(source.clone());
  const int num_source_outputs = static_cast<int>(g->outputs().size());

  // ---- export passes ----
  if (o_.dynamic_batch) {
    bool any = false;
    for (Value* in : g->inputs()) {
      if (in->role() != InputRole::Input || in->type().shape.rank() == 0) continue;
      TensorType t = in->type();
      t.shape[0] = Dim::symbol("batch");
      in->set_type(t);
      any = true;
    }
    if (!any) return make_error("--dynamic: the graph has no input of role input with a dim to make dynamic");
    Status s = run_passes(*g, "propagate-shapes");
    if (!s) return make_error("--dynamic: making dim 0 of the inputs dynamic fails: ", s.error().message());
  }
  PassManagerOptions passes;
  passes.functionalize.keep_input_mutations = false;
  PipelineFacts facts;
  KILN_TRY(run_passes(*g, "functionalize,fold-constants,dce", passes, &facts));
  const ViewAndMutationInfo& mutation = *facts.mutation_info;
  m.num_user_outputs_ = mutation.num_user_outputs;
  m.write_back_inputs_ = mutation.write_back_inputs;

  // ---- inputs and initializers ----
  ::onnx::ModelProto& model = m.proto_->model;
  model.set_ir_version(8);
  model.set_producer_name("kiln");
  model.set_producer_version("0.1.0");
  ::onnx::OperatorSetIdProto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(o_.opset);
  ::onnx::GraphProto& gp = *model.mutable_graph();
  gp.set_name(g->name());
  OnnxBuilder b(gp);

  std::vector<int> param_inputs;
  for (int i = 0; i < g->num_inputs(); ++i)
    if (g->input(i)->role() == InputRole::Param || g->input(i)->role() == InputRole::Buffer) param_inputs.push_back(i);
  if (!params.empty() && params.size() != param_inputs.size())
    return make_error("export: ", params.size(), " parameter values given for ", param_inputs.size(),
                      " inputs of role param or buffer");
  const size_t num_model_inputs = params.empty() ? static_cast<size_t>(g->num_inputs())
                                                 : static_cast<size_t>(g->num_inputs()) - param_inputs.size();
  if (!o_.input_names.empty() && o_.input_names.size() != num_model_inputs &&
      o_.input_names.size() != static_cast<size_t>(g->num_inputs()))
    return make_error("export: ", o_.input_names.size(), " input names given for ", num_model_inputs, " inputs");

  std::unordered_map<const Value*, std::string> names;
  std::vector<std::string> all_input_names;
  size_t next_user_name = 0;
  size_t next_param = 0;
  for (int i = 0; i < g->num_inputs(); ++i) {
    const Value* in = g->input(i);
    const bool is_param = !params.empty() && (in->role() == InputRole::Param || in->role() == InputRole::Buffer);
    std::string name = in->name().empty() ? "input" + std::to_string(i) : in->name();
    if (!o_.input_names.empty()) {
      if (o_.input_names.size() == static_cast<size_t>(g->num_inputs()))
        name = o_.input_names[static_cast<size_t>(i)];
      else if (!is_param)
        name = o_.input_names[next_user_name++];
    }
    names[in] = name;
    all_input_names.push_back(name);
    if (is_param) {
      const Tensor& value = params[next_param++];
      if (value.sizes() != in->type().shape.sizes() || value.dtype() != in->type().dtype)
        return make_error("export: the value of parameter '", name, "' has type ", dtype_name(value.dtype()), " ",
                          Shape::from_sizes(value.sizes()).to_string(), ", the graph says ", in->type().to_string());
      fill_tensor_proto(value, name, *gp.add_initializer());
      if (!o_.keep_initializers_as_inputs) continue;
    }
    b.add_input(name, in->type());
    m.input_names_.push_back(name);
    m.model_inputs_.push_back(i);
  }

  // ---- nodes ----
  std::map<std::string, DimSource> dims;
  collect_dims(*g, all_input_names, dims);
  KILN_TRY(export_nodes(*g, b, names, dims));

  // ---- outputs ----
  std::vector<std::string> out_names = o_.output_names;
  const size_t num_outputs = g->outputs().size();
  if (!out_names.empty() && out_names.size() != static_cast<size_t>(num_source_outputs) &&
      out_names.size() != num_outputs)
    return make_error("export: ", out_names.size(), " output names given for ", num_source_outputs, " outputs");
  for (size_t i = out_names.size(); i < num_outputs; ++i) {
    if (i < static_cast<size_t>(m.num_user_outputs_)) {
      out_names.push_back("output" + std::to_string(i));
    } else {
      const int input = mutation.write_back_inputs[i - static_cast<size_t>(m.num_user_outputs_)];
      out_names.push_back(all_input_names[static_cast<size_t>(input)] + ".updated");
    }
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    const Value* v = g->outputs()[i];
    b.node("Identity", {names.at(v)}, {}, 0);
    gp.mutable_node(gp.node_size() - 1)->add_output(out_names[i]);
    b.add_output(out_names[i], v->type());
  }
  m.output_names_ = out_names;
  for (Node* n : g->nodes())
    for (int i = 0; i < n->num_results(); ++i) m.value_names_.emplace_back(n->result(i), names.at(n->result(i)));
  if (intermediates) {
    for (const auto& [v, name] : m.value_names_) b.add_output(name, v->type());
  }
  m.exported_graph_ = std::move(g);

  // ---- check ----
  if (o_.check && o_.opset <= 17) {
    // Debian's ONNX library knows opsets up to 17; higher opsets are checked by ONNX from
    // PyPI in the tests (onnx.checker.check_model(full_check=True)).
    try {
      ::onnx::checker::check_model(model);
      // Inferred in place (a copy would copy the weights), compared, then dropped again.
      ::onnx::ShapeInferenceOptions so(/*check_type=*/true, /*error_mode=*/1);
      ::onnx::shape_inference::InferShapes(model, ::onnx::OpSchemaRegistry::Instance(), so);
      Status agree = compare_inferred_shapes(model.graph(), m.value_names_);
      model.mutable_graph()->clear_value_info();
      KILN_TRY(agree);
    } catch (const std::exception& e) {
      return make_error("the exported model fails ONNX's checks: ", e.what());
    }
  }
  return m;
}

Expected<ExportedModel> export_graph(const Graph& g, std::span<const Tensor> param_values, const ExportOptions& options,
                                     bool expose_intermediates) {
  return Exporter(options).run(g, param_values, expose_intermediates);
}

Status check_model_file(const std::string& path) {
  KILN_TRY(read_model_file(path));
  try {
    ::onnx::checker::check_model(path);  // by path: external data is found beside it
  } catch (const std::exception& e) {
    return make_error(path, ": fails ONNX's checker: ", e.what());
  }
  return Status::ok();
}

}  // namespace kiln::onnx
