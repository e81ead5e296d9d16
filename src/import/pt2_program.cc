// Reading models/model.json and the weights' config into pt2_program.h's structs. The JSON is
// parsed by nlohmann-json; the shape of the document is checked as it is read (json_cursor.h),
// and the first mismatch becomes a Diagnostic naming the entry and the JSON path.
#include "import/pt2_program.h"

#include <set>

#include "import/json_cursor.h"

namespace kiln::pt2 {
namespace {

// A dim's sympy expression as a reader knows it: "s77" for serde's
// "Symbol('s77', positive=True, integer=True)", the text itself otherwise ("2*s77").
std::string readable_expr(const std::string& expr) {
  constexpr std::string_view kSymbol = "Symbol('";
  if (expr.rfind(kSymbol, 0) != 0) return expr;
  size_t end = expr.find('\'', kSymbol.size());
  return end == std::string::npos ? expr : expr.substr(kSymbol.size(), end - kSymbol.size());
}

SymSize read_sym_size(const JsonCursor& c) {
  auto [key, value] = c.union_member();
  SymSize s;
  if (key == "as_int") {
    s.value = value.integer();
  } else if (key == "as_expr") {
    s.sympy = value["expr_str"].string();
    s.expr = readable_expr(s.sympy);
  } else {
    c.fail("expected as_int or as_expr, got " + key);
  }
  return s;
}

TensorMeta read_tensor_meta(const JsonCursor& c) {
  TensorMeta m;
  m.dtype = static_cast<int>(c["dtype"].integer());
  for (const JsonCursor& d : c["sizes"].elements()) m.sizes.push_back(read_sym_size(d));
  for (const JsonCursor& d : c["strides"].elements()) m.strides.push_back(read_sym_size(d));
  if (m.strides.size() != m.sizes.size())
    c.fail(std::to_string(m.sizes.size()) + " sizes but " + std::to_string(m.strides.size()) + " strides");
  std::optional<JsonCursor> offset = c.find("storage_offset");
  m.storage_offset = offset ? read_sym_size(*offset) : SymSize{0, ""};
  return m;
}

// A tensor argument {"name": "x"}.
std::string read_tensor_name(const JsonCursor& c) { return c["name"].string(); }

// {"as_name": "s0"} or {"as_int": 3}: a SymIntArgument (also SymBool/SymFloat's form).
void read_sym_int(const JsonCursor& c, Argument& a) {
  auto [key, value] = c.union_member();
  if (key == "as_int") {
    a.ints.push_back(value.integer());
    a.sym_names.emplace_back();
  } else {
    a.symbolic = true;
    a.string = key == "as_name" ? value.string() : key;
    a.ints.push_back(0);
    a.sym_names.push_back(a.string);
  }
}

Argument read_argument(const JsonCursor& c) {
  auto [key, v] = c.union_member();
  Argument a;
  a.key = key;
  using K = Argument::Kind;
  if (key == "as_none") {
    a.kind = K::None;
  } else if (key == "as_tensor") {
    a.kind = K::Tensor;
    a.names.push_back(read_tensor_name(v));
  } else if (key == "as_tensors") {
    a.kind = K::Tensors;
    for (const JsonCursor& t : v.elements()) a.names.push_back(read_tensor_name(t));
  } else if (key == "as_optional_tensors") {
    a.kind = K::OptionalTensors;
    for (const JsonCursor& t : v.elements()) {
      auto [tkey, tvalue] = t.union_member();
      if (tkey == "as_tensor") {
        a.names.push_back(read_tensor_name(tvalue));
      } else {
        a.names.push_back(std::nullopt);
      }
    }
  } else if (key == "as_int" || key == "as_scalar_type" || key == "as_memory_format" || key == "as_layout") {
    a.kind = key == "as_int"             ? K::Int
             : key == "as_scalar_type"   ? K::ScalarType
             : key == "as_memory_format" ? K::MemoryFormat
                                         : K::Layout;
    a.ints.push_back(v.integer());
  } else if (key == "as_sym_int") {
    a.kind = K::Int;
    read_sym_int(v, a);
  } else if (key == "as_ints") {
    a.kind = K::Ints;
    for (const JsonCursor& i : v.elements()) a.ints.push_back(i.integer());
  } else if (key == "as_sym_ints") {
    a.kind = K::Ints;
    for (const JsonCursor& i : v.elements()) read_sym_int(i, a);
  } else if (key == "as_float") {
    a.kind = K::Float;
    a.floats.push_back(v.number());
  } else if (key == "as_floats") {
    a.kind = K::Floats;
    for (const JsonCursor& f : v.elements()) a.floats.push_back(f.number());
  } else if (key == "as_bool") {
    a.kind = K::Bool;
    a.bools.push_back(v.boolean());
  } else if (key == "as_bools") {
    a.kind = K::Bools;
    for (const JsonCursor& b : v.elements()) a.bools.push_back(b.boolean());
  } else if (key == "as_string") {
    a.kind = K::String;
    a.string = v.string();
  } else if (key == "as_device") {
    a.kind = K::Device;
    a.string = v["type"].string();
  } else {
    a.kind = K::Other;
  }
  return a;
}

Node read_node(const JsonCursor& c) {
  Node n;
  n.target = c["target"].string();
  for (const JsonCursor& in : c["inputs"].elements())
    n.inputs.push_back({in["name"].string(), read_argument(in["arg"])});
  for (const JsonCursor& out : c["outputs"].elements()) n.outputs.push_back(read_argument(out));
  if (std::optional<JsonCursor> meta = c.find("metadata")) {
    if (std::optional<JsonCursor> trace = meta->find("stack_trace")) n.stack_trace = trace->string();
  }
  if (std::optional<JsonCursor> name = c.find("name")) n.name = name->string();
  return n;
}

InputSpec read_input_spec(const JsonCursor& c) {
  auto [key, v] = c.union_member();
  InputSpec s;
  s.kind_key = key;
  if (key == "user_input") {
    s.kind = InputSpec::Kind::UserInput;
    auto [akey, arg] = v["arg"].union_member();
    // A user input that is not a tensor (an int, a symbol) stays Other: the mapping names it.
    if (akey == "as_tensor") {
      s.arg = read_tensor_name(arg);
    } else {
      s.kind = InputSpec::Kind::Other;
      s.kind_key = "user_input " + akey;
    }
    return s;
  }
  if (key == "parameter") {
    s.kind = InputSpec::Kind::Parameter;
    s.target = v["parameter_name"].string();
  } else if (key == "buffer") {
    s.kind = InputSpec::Kind::Buffer;
    s.target = v["buffer_name"].string();
  } else if (key == "tensor_constant") {
    s.kind = InputSpec::Kind::Constant;
    s.target = v["tensor_constant_name"].string();
  } else {
    return s;
  }
  s.arg = read_tensor_name(v["arg"]);
  return s;
}

OutputSpec read_output_spec(const JsonCursor& c) {
  auto [key, v] = c.union_member();
  OutputSpec s;
  s.kind_key = key;
  if (std::optional<JsonCursor> arg = v.find("arg")) {
    if (arg->is_object() && arg->json().contains("name")) {
      s.arg = read_tensor_name(*arg);
    } else {
      auto [akey, a] = arg->union_member();
      if (akey == "as_tensor") s.arg = read_tensor_name(a);
    }
  }
  return s;
}

Program read_program(const JsonCursor& root) {
  Program p;
  JsonCursor version = root["schema_version"];
  p.schema_major = static_cast<int>(version["major"].integer());
  p.schema_minor = static_cast<int>(version["minor"].integer());
  if (p.schema_major != kSchemaMajor)
    version.fail("schema version " + std::to_string(p.schema_major) + "." + std::to_string(p.schema_minor) +
                 " is not supported (kiln reads schema " + std::to_string(kSchemaMajor) +
                 ".x, written by PyTorch 2.15; docs/IMPORT.md)");
  if (std::optional<JsonCursor> tv = root.find("torch_version")) p.torch_version = tv->string();
  JsonCursor module = root["graph_module"];
  JsonCursor graph = module["graph"];
  for (const JsonCursor& in : graph["inputs"].elements()) {
    Argument a = read_argument(in);
    if (a.kind != Argument::Kind::Tensor) in.fail("graph input is " + a.key + ", not a tensor");
    p.inputs.push_back(*a.names[0]);
  }
  for (const JsonCursor& out : graph["outputs"].elements()) p.outputs.push_back(read_argument(out));
  for (const JsonCursor& n : graph["nodes"].elements()) p.nodes.push_back(read_node(n));
  for (const auto& [name, meta] : graph["tensor_values"].members()) p.tensor_values[name] = read_tensor_meta(meta);
  JsonCursor signature = module["signature"];
  for (const JsonCursor& s : signature["input_specs"].elements()) p.input_specs.push_back(read_input_spec(s));
  for (const JsonCursor& s : signature["output_specs"].elements()) p.output_specs.push_back(read_output_spec(s));
  if (std::optional<JsonCursor> ranges = root.find("range_constraints")) {
    for (const auto& [symbol, range] : ranges->members()) {
      RangeConstraint r;
      // An unbounded side is null, or a number past int64 (sympy's oo written as a float).
      if (std::optional<JsonCursor> lo = range.find("min_val"); lo && lo->json().is_number_integer())
        r.min = lo->integer();
      if (std::optional<JsonCursor> hi = range.find("max_val"); hi && hi->json().is_number_integer())
        r.max = hi->integer();
      p.range_constraints[symbol] = r;
    }
  }
  return p;
}

WeightsConfig read_weights_config(const JsonCursor& root) {
  WeightsConfig out;
  for (const auto& [name, entry] : root["config"].members()) {
    WeightConfig w;
    w.path_name = entry["path_name"].string();
    if (std::optional<JsonCursor> pickle = entry.find("use_pickle")) w.use_pickle = pickle->boolean();
    w.meta = read_tensor_meta(entry["tensor_meta"]);
    out[name] = std::move(w);
  }
  return out;
}

// Parses `json` and runs `read` on it; a syntax error or a mismatch of the document's shape
// becomes a Diagnostic naming `entry` (and the byte or the JSON path).
template <typename Read>
auto parse_with(std::string_view json, std::string_view entry, Read read)
    -> Expected<decltype(read(std::declval<JsonCursor>()))> {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json.begin(), json.end());
  } catch (const nlohmann::json::exception& e) {
    // parse_error for bad syntax, out_of_range for a number past double's range (1e999).
    return make_error(entry, ": corrupt JSON: ", e.what());
  }
  try {
    return read(JsonCursor(doc, ""));
  } catch (const JsonShapeError& e) {
    return make_error(entry, ": ", e.path().empty() ? "the document" : e.path(), ": ", e.what());
  }
}

}  // namespace

Expected<Program> parse_program(std::string_view json, std::string_view entry) {
  return parse_with(json, entry, read_program);
}

Expected<WeightsConfig> parse_weights_config(std::string_view json, std::string_view entry) {
  return parse_with(json, entry, read_weights_config);
}

}  // namespace kiln::pt2
