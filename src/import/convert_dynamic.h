// Dynamic shapes of an exported program: the sympy expressions of its dynamic dims become kiln
// dim expressions (symbols keep the archive's names, `s21`), `sym_size.int` nodes become the
// dims they read (no node: a kiln attribute holds the expression, `view {size=[s21, -1]}`),
// SymInt arguments become symbolic attributes, and range constraints become graph guards
// (`guard s21 >= 1`). pt2_to_graph.cc calls these through DynamicSizes.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "core/sym_expr.h"
#include "core/tensor_type.h"
#include "import/pt2_program.h"
#include "ir/graph.h"
#include "ops/schema.h"

namespace kiln::pt2 {

// The kiln expression of a sympy expression as the archive writes it (srepr): Symbol, Integer,
// Add, Mul, and FloorDiv by a positive integer. Anything else is an error naming it.
Expected<SymExpr> sym_expr_from_sympy(std::string_view text);

// The shape of archive sizes: static sizes as they are, dynamic ones as expressions.
Expected<Shape> archive_shape(const std::vector<SymSize>& sizes, const std::string& what);

// The symbolic ints of one program: what each sym_size.int node read.
class DynamicSizes {
 public:
  // Whether `n` is a sym_size.int node (handled by record, not by the op table).
  static bool is_sym_size(const Node& n);
  // Records the dim that sym_size.int node `n` reads from the graph value it names.
  Status record(const Node& n, const std::map<std::string, Value*>& values);
  // The attribute value of a symbolic argument `a` (`as_sym_int` or `as_sym_ints` naming
  // recorded sizes) for kiln argument `arg`: an error unless `arg` may hold symbols (SymInt[],
  // SymScalar) and every name was recorded.
  Expected<AttrValue> attr_value(const Argument& a, const ArgSchema& arg) const;

 private:
  std::map<std::string, SymExpr> sizes_;  // sym_size.int's result name -> the dim
};

// Each range constraint of `p` whose symbol `g` uses, as guards: `s21 >= 1`, `16 >= s21`.
void add_range_guards(Graph& g, const Program& p);

}  // namespace kiln::pt2
