#include "ops/schema.h"

#include <cctype>
#include <charconv>

namespace kiln {

namespace {

struct TypeName {
  std::string_view text;
  ArgType type;
};

constexpr TypeName kTypeNames[] = {
    {"Tensor", ArgType::Tensor},
    {"Tensor?", ArgType::OptionalTensor},
    {"Tensor[]", ArgType::TensorList},
    {"Tensor?[]", ArgType::OptionalTensorList},
    {"Tensor|Scalar", ArgType::TensorOrScalar},
    {"Tensor|Scalar[]", ArgType::TensorOrScalarList},
    {"Scalar", ArgType::Scalar},
    {"Scalar?", ArgType::OptionalScalar},
    {"int", ArgType::Int},
    {"int?", ArgType::OptionalInt},
    {"int[]", ArgType::Ints},
    {"int[]?", ArgType::OptionalInts},
    {"SymInt[]", ArgType::SymInts},
    {"SymScalar", ArgType::SymScalar},
    {"float", ArgType::Float},
    {"float?", ArgType::OptionalFloat},
    {"bool", ArgType::Bool},
    {"str", ArgType::Str},
    {"str?", ArgType::OptionalStr},
    {"ScalarType?", ArgType::OptionalDType},
    {"Graph", ArgType::Graph},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits on commas that are not inside brackets or quotes.
std::vector<std::string_view> split_args(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (!trim(s.substr(start)).empty()) out.push_back(trim(s.substr(start)));
  return out;
}

std::optional<int64_t> parse_int(std::string_view s) {
  int64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

Expected<AttrValue> parse_default(std::string_view text, ArgType type, std::string_view arg) {
  auto bad = [&] { return make_error("schema default '", text, "' of argument '", arg, "' does not fit its type"); };
  if (text == "None") return AttrValue();
  if (text == "True" || text == "False") return AttrValue(text == "True");
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"')
    return AttrValue(std::string(text.substr(1, text.size() - 2)));
  if (text.front() == '[') {
    AttrValue::Ints ints;
    for (std::string_view item : split_args(text.substr(1, text.size() - 2))) {
      auto v = parse_int(item);
      if (!v) return bad();
      ints.push_back(*v);
    }
    return AttrValue(std::move(ints));
  }
  if (auto v = parse_int(text)) {
    if (type == ArgType::Float || type == ArgType::OptionalFloat) return AttrValue(static_cast<double>(*v));
    return AttrValue(*v);
  }
  double d = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), d);
  if (r.ec == std::errc() && r.ptr == text.data() + text.size()) return AttrValue(d);
  return bad();
}

}  // namespace

std::string_view arg_type_name(ArgType t) {
  for (const TypeName& n : kTypeNames)
    if (n.type == t) return n.text;
  return "?";
}

bool arg_type_is_operand(ArgType t) {
  return t == ArgType::Tensor || t == ArgType::OptionalTensor || t == ArgType::TensorList ||
         t == ArgType::OptionalTensorList || t == ArgType::TensorOrScalar || t == ArgType::TensorOrScalarList;
}

bool arg_type_is_optional(ArgType t) {
  return t == ArgType::OptionalTensor || t == ArgType::OptionalScalar || t == ArgType::OptionalInt ||
         t == ArgType::OptionalInts || t == ArgType::OptionalFloat || t == ArgType::OptionalStr ||
         t == ArgType::OptionalDType;
}

Expected<OpSchema> parse_schema(std::string_view text) {
  OpSchema schema;
  size_t open = text.find('(');
  size_t arrow = text.rfind("->");
  size_t close = text.rfind(')', arrow);
  if (open == std::string_view::npos || arrow == std::string_view::npos || close == std::string_view::npos ||
      close < open)
    return make_error("malformed schema '", text, "'");
  schema.name = std::string(trim(text.substr(0, open)));
  bool kwarg_only = false;
  for (std::string_view item : split_args(text.substr(open + 1, close - open - 1))) {
    if (item == "*") {
      kwarg_only = true;
      continue;
    }
    std::string_view decl = item;
    std::optional<std::string_view> def;
    if (size_t eq = item.find('='); eq != std::string_view::npos) {
      decl = trim(item.substr(0, eq));
      def = trim(item.substr(eq + 1));
    }
    size_t space = decl.rfind(' ');
    if (space == std::string_view::npos) return make_error("schema argument '", item, "' has no name");
    std::string_view type_text = trim(decl.substr(0, space));
    ArgSchema arg;
    arg.name = std::string(trim(decl.substr(space + 1)));
    arg.kwarg_only = kwarg_only;
    bool found = false;
    for (const TypeName& n : kTypeNames) {
      if (n.text == type_text) {
        arg.type = n.type;
        found = true;
      }
    }
    if (!found) return make_error("unknown schema type '", type_text, "' in '", text, "'");
    if (def) {
      KILN_ASSIGN_OR_RETURN(AttrValue v, parse_default(*def, arg.type, arg.name));
      arg.default_value = std::move(v);
    }
    schema.args.push_back(std::move(arg));
  }
  std::string_view ret = trim(text.substr(arrow + 2));
  if (ret == "Tensor") {
    schema.num_results = 1;
  } else if (ret == "Tensor[]") {
    schema.variadic_results = true;
    schema.num_results = 0;
  } else if (ret.size() > 2 && ret.front() == '(' && ret.back() == ')') {
    schema.num_results = static_cast<int>(split_args(ret.substr(1, ret.size() - 2)).size());
  } else {
    return make_error("unsupported schema result '", ret, "'");
  }
  return schema;
}

std::vector<const ArgSchema*> OpSchema::operand_args() const {
  std::vector<const ArgSchema*> out;
  for (const ArgSchema& a : args)
    if (a.is_operand()) out.push_back(&a);
  return out;
}

std::vector<const ArgSchema*> OpSchema::attr_args() const {
  std::vector<const ArgSchema*> out;
  for (const ArgSchema& a : args)
    if (a.is_attr()) out.push_back(&a);
  return out;
}

std::vector<const ArgSchema*> OpSchema::subgraph_args() const {
  std::vector<const ArgSchema*> out;
  for (const ArgSchema& a : args)
    if (a.is_subgraph()) out.push_back(&a);
  return out;
}

const ArgSchema* OpSchema::find_arg(std::string_view n) const {
  for (const ArgSchema& a : args)
    if (a.name == n) return &a;
  return nullptr;
}

bool OpSchema::has_variadic_operand() const {
  for (const ArgSchema* a : operand_args())
    if (a->is_variadic()) return true;
  return false;
}

int OpSchema::min_operands() const {
  int n = 0;
  for (const ArgSchema* a : operand_args())
    if (!a->is_variadic()) ++n;
  return n;
}

Expected<std::vector<std::pair<int, int>>> OpSchema::operand_ranges(int num_operands) const {
  std::vector<const ArgSchema*> ops = operand_args();
  int fixed = min_operands();
  bool variadic = has_variadic_operand();
  // Trailing optional operands (`linear(%x, %w)` without bias) may be left out.
  int optional_tail = 0;
  if (!variadic) {
    for (size_t i = ops.size(); i-- > 0 && ops[i]->default_value.has_value();) ++optional_tail;
  }
  if (variadic ? num_operands < fixed : (num_operands > fixed || num_operands < fixed - optional_tail)) {
    std::string expected =
        variadic ? "at least " + std::to_string(fixed)
                 : (optional_tail ? std::to_string(fixed - optional_tail) + " to " : "") + std::to_string(fixed);
    return make_error(name, " expects ", expected, " operands, got ", num_operands);
  }
  std::vector<std::pair<int, int>> ranges;
  int pos = 0;
  for (const ArgSchema* a : ops) {
    int count = a->is_variadic() ? num_operands - fixed : (pos < num_operands ? 1 : 0);
    ranges.emplace_back(pos, pos + count);
    pos += count;
  }
  return ranges;
}

std::string OpSchema::to_string() const {
  std::string s = name + "(";
  bool kw = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgSchema& a = args[i];
    if (i) s += ", ";
    if (a.kwarg_only && !kw) {
      s += "*, ";
      kw = true;
    }
    s += std::string(arg_type_name(a.type)) + " " + a.name;
    if (a.default_value) {
      const AttrValue& d = *a.default_value;
      s += "=";
      s += d.is_none() ? "None" : d.is_bool() ? (d.as_bool() ? "True" : "False") : d.to_string();
    }
  }
  s += ") -> ";
  if (variadic_results) return s + "Tensor[]";
  if (num_results == 1) return s + "Tensor";
  s += "(";
  for (int i = 0; i < num_results; ++i) s += i ? ", Tensor" : "Tensor";
  return s + ")";
}

}  // namespace kiln
