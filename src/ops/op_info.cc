#include "ops/op_info.h"

#include <unordered_map>

#include "ops/kernels.h"
#include "ops/type_rules.h"
#include "support/check.h"

namespace kiln {

namespace {

struct OpRow {
  OpKind kind;
  std::string_view enum_name;
  std::string_view schema;
  Traits traits;
  ShapeRule shape_rule;
  DTypeRule dtype_rule;
  Kernel kernel;
};

constexpr OpRow kRows[] = {
#define KILN_OP(E, schema, traits, shape_rule, dtype_rule, kernel) \
  {OpKind::E, #E, schema, traits, &shape_rule, &dtype_rule, &kernel},
#include "ops/ops.def"
#undef KILN_OP
};
static_assert(sizeof(kRows) / sizeof(kRows[0]) == kNumOps, "ops.def rows and OpKind disagree");

struct Table {
  std::vector<OpInfo> ops;
  std::unordered_map<std::string_view, OpKind> by_name;

  Table() {
    ops.reserve(kNumOps);
    for (const OpRow& row : kRows) {
      auto schema = parse_schema(row.schema);
      KILN_CHECK(schema.has_value()) << "ops.def row " << row.enum_name << ": " << schema.error().message();
      ops.push_back(
          {row.kind, row.enum_name, std::move(schema.value()), row.traits, row.shape_rule, row.dtype_rule, row.kernel});
    }
    for (const OpInfo& op : ops) {
      bool inserted = by_name.emplace(op.name(), op.kind).second;
      KILN_CHECK(inserted) << "duplicate op name " << op.name();
    }
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

const OpInfo& op_info(OpKind kind) { return table().ops[static_cast<size_t>(kind)]; }

std::optional<OpKind> op_from_name(std::string_view name) {
  const auto& m = table().by_name;
  auto it = m.find(name);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

std::span<const OpInfo> all_ops() { return table().ops; }

std::string traits_to_string(Traits t) {
  static constexpr std::pair<Traits, std::string_view> kNames[] = {
      {kElementwise, "elementwise"},
      {kReduction, "reduction"},
      {kView, "view"},
      {kInplace, "inplace"},
      {kRandom, "random"},
      {kSideEffect, "side_effect"},
      {kCreation, "creation"},
      {kHigherOrder, "higher_order"},
      {kMatmul, "matmul"},
      {kScan, "scan"},
  };
  std::string s;
  for (const auto& [bit, name] : kNames) {
    if (!(t & bit)) continue;
    if (!s.empty()) s += "|";
    s += name;
  }
  return s.empty() ? "-" : s;
}

}  // namespace kiln
