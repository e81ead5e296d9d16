#include "onnx/onnx_builder.h"

#include <onnx/onnx_pb.h>

#include <cstring>

namespace kiln::onnx {

int onnx_dtype(DType d) {
  switch (d) {
    case DType::Bool: return ::onnx::TensorProto::BOOL;
    case DType::U8: return ::onnx::TensorProto::UINT8;
    case DType::I8: return ::onnx::TensorProto::INT8;
    case DType::I16: return ::onnx::TensorProto::INT16;
    case DType::I32: return ::onnx::TensorProto::INT32;
    case DType::I64: return ::onnx::TensorProto::INT64;
    case DType::F16: return ::onnx::TensorProto::FLOAT16;
    case DType::BF16: return ::onnx::TensorProto::BFLOAT16;
    case DType::F32: return ::onnx::TensorProto::FLOAT;
    case DType::F64: return ::onnx::TensorProto::DOUBLE;
  }
  return ::onnx::TensorProto::UNDEFINED;
}

void fill_tensor_proto(const Tensor& t, const std::string& name, ::onnx::TensorProto& out) {
  out.set_name(name);
  out.set_data_type(onnx_dtype(t.dtype()));
  for (int64_t s : t.sizes()) out.add_dims(s);
  const Tensor c = t.contiguous();
  const size_t bytes = static_cast<size_t>(c.numel()) * static_cast<size_t>(dtype_size(c.dtype()));
  out.mutable_raw_data()->assign(reinterpret_cast<const char*>(c.data_bytes()), bytes);
}

OnnxBuilder::OnnxBuilder(::onnx::GraphProto& graph, OnnxBuilder* parent)
    : graph_(&graph), counter_(parent ? parent->counter_ : std::make_shared<int64_t>(0)) {}

std::string OnnxBuilder::fresh(const std::string& hint) { return "_" + std::to_string((*counter_)++) + "_" + hint; }

std::vector<std::string> OnnxBuilder::node(const std::string& op_type, const std::vector<std::string>& inputs,
                                           const std::vector<OnnxAttr>& attrs, int num_outputs,
                                           const std::string& domain) {
  ::onnx::NodeProto* n = graph_->add_node();
  n->set_op_type(op_type);
  if (!domain.empty()) n->set_domain(domain);
  n->set_name(fresh(op_type));
  for (const std::string& in : inputs) n->add_input(in);
  std::vector<std::string> outs;
  for (int i = 0; i < num_outputs; ++i) {
    outs.push_back(fresh(op_type));
    n->add_output(outs.back());
  }
  for (const OnnxAttr& a : attrs) {
    ::onnx::AttributeProto* p = n->add_attribute();
    p->set_name(a.name);
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, int64_t>) {
            p->set_type(::onnx::AttributeProto::INT);
            p->set_i(v);
          } else if constexpr (std::is_same_v<V, double>) {
            p->set_type(::onnx::AttributeProto::FLOAT);
            p->set_f(static_cast<float>(v));
          } else if constexpr (std::is_same_v<V, std::string>) {
            p->set_type(::onnx::AttributeProto::STRING);
            p->set_s(v);
          } else if constexpr (std::is_same_v<V, std::vector<int64_t>>) {
            p->set_type(::onnx::AttributeProto::INTS);
            for (int64_t x : v) p->add_ints(x);
          } else if constexpr (std::is_same_v<V, std::vector<float>>) {
            p->set_type(::onnx::AttributeProto::FLOATS);
            for (float x : v) p->add_floats(x);
          } else if constexpr (std::is_same_v<V, Tensor>) {
            p->set_type(::onnx::AttributeProto::TENSOR);
            fill_tensor_proto(v, "", *p->mutable_t());
          } else {
            p->set_type(::onnx::AttributeProto::GRAPH);
            *p->mutable_g() = *v;
          }
        },
        a.value);
  }
  return outs;
}

std::string OnnxBuilder::op(const std::string& op_type, const std::vector<std::string>& inputs,
                            const std::vector<OnnxAttr>& attrs) {
  return node(op_type, inputs, attrs, 1)[0];
}

std::string OnnxBuilder::constant(const Tensor& t) {
  const Tensor c = t.contiguous();
  std::string key = std::string(dtype_name(c.dtype())) + "[";
  for (int64_t s : c.sizes()) key += std::to_string(s) + ",";
  key += "]";
  key.append(reinterpret_cast<const char*>(c.data_bytes()),
             static_cast<size_t>(c.numel()) * static_cast<size_t>(dtype_size(c.dtype())));
  auto it = interned_.find(key);
  if (it != interned_.end()) return it->second;
  std::string name;
  if (c.numel() <= 64) {
    name = node("Constant", {}, {{"value", c}})[0];
  } else {
    name = fresh("const");
    fill_tensor_proto(c, name, *graph_->add_initializer());
  }
  interned_.emplace(std::move(key), name);
  return name;
}

std::string OnnxBuilder::scalar(double v, DType d) { return constant(Tensor::full({}, Scalar(v), d)); }

std::string OnnxBuilder::ints(const std::vector<int64_t>& v) {
  return constant(Tensor::from_ints(v, {static_cast<int64_t>(v.size())}, DType::I64));
}

std::string OnnxBuilder::int_scalar(int64_t v) { return constant(Tensor::from_ints({v}, {}, DType::I64)); }

std::string OnnxBuilder::cast(const std::string& x, DType from, DType to) {
  if (from == to) return x;
  return op("Cast", {x}, {{"to", static_cast<int64_t>(onnx_dtype(to))}});
}

std::shared_ptr<::onnx::GraphProto> new_graph_proto() { return std::make_shared<::onnx::GraphProto>(); }

namespace {

void set_value_type(::onnx::ValueInfoProto& vi, const std::string& name, DType d, const Shape* shape, int rank) {
  vi.set_name(name);
  ::onnx::TypeProto_Tensor* tt = vi.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx_dtype(d));
  if (shape == nullptr && rank < 0) return;
  ::onnx::TensorShapeProto* sp = tt->mutable_shape();
  if (shape == nullptr) {
    for (int i = 0; i < rank; ++i) sp->add_dim();
    return;
  }
  for (const Dim& dim : shape->dims()) {
    ::onnx::TensorShapeProto_Dimension* pd = sp->add_dim();
    if (dim.is_static())
      pd->set_dim_value(dim.value());
    else
      pd->set_dim_param(dim.to_string());
  }
}

}  // namespace

void OnnxBuilder::add_input(const std::string& name, const TensorType& t) {
  set_value_type(*graph_->add_input(), name, t.dtype, &t.shape, t.shape.rank());
}
void OnnxBuilder::add_input(const std::string& name, DType d, int rank) {
  set_value_type(*graph_->add_input(), name, d, nullptr, rank);
}
void OnnxBuilder::add_output(const std::string& name, const TensorType& t) {
  set_value_type(*graph_->add_output(), name, t.dtype, &t.shape, t.shape.rank());
}
void OnnxBuilder::set_name(const std::string& name) { graph_->set_name(name); }

}  // namespace kiln::onnx
