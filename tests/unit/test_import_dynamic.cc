// Dynamic shapes through the .pt2 import (import/convert_dynamic.h, docs/IMPORT.md): an
// archive exported with a dynamic batch and sequence imports with symbolic input dims,
// sym_size.int reads become symbolic attributes (view, reshape, expand, arange), range
// constraints become guards, and the one imported graph matches PyTorch at two sizes in the
// interpreter and compiled for the CPU (specialized to each size).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "import/convert_dynamic.h"
#include "import_test_util.h"
#include "passes/specialize_shapes.h"
#include "support/error.h"

namespace kiln {
namespace {

using test::expect_matches_pytorch;
using test::import_data_path;

std::vector<Tensor> read_inputs(const std::string& prefix) {
  std::vector<Tensor> out;
  for (size_t i = 0;; ++i) {
    const std::string path = import_data_path(prefix + std::to_string(i) + ".npy");
    if (!std::filesystem::exists(path)) break;
    out.push_back(value_or_throw(read_npy(path)));
  }
  return out;
}

// `name` run on the inputs of one size (`which` is "" or "other_") in the interpreter and
// specialized and compiled for the CPU, each against PyTorch's output.
void expect_size_matches(const ImportedProgram& m, const std::string& name, const std::string& which) {
  const std::vector<Tensor> user = read_inputs(name + "_" + which + "input");
  ASSERT_EQ(user.size(), 2u) << name << " " << which;
  const Tensor want = value_or_throw(read_npy(import_data_path(name + "_" + which + "output.npy")));
  const std::vector<Tensor> inputs = value_or_throw(m.inputs_with(user));
  Expected<std::vector<Tensor>> interpreted = interpret(*m.graph, inputs);
  ASSERT_TRUE(interpreted) << interpreted.error().to_string();
  expect_matches_pytorch(want, (*interpreted)[0], name + " " + which + "in the interpreter");
  Expected<Specialized> s = specialize_shapes(*m.graph, inputs);
  ASSERT_TRUE(s) << s.error().to_string();
  Expected<CompiledGraph> compiled = compile_graph(*s->graph, CpuBackend({.compile = test_compile_options()}));
  ASSERT_TRUE(compiled) << compiled.error().to_string();
  Expected<std::vector<Tensor>> ran = compiled->run(inputs);
  ASSERT_TRUE(ran) << ran.error().to_string();
  expect_matches_pytorch(want, (*ran)[0], name + " " + which + "compiled for the CPU");
}

TEST(ImportDynamic, TextMatchesPyTorchAtTwoSizes) {
  SKIP_WITHOUT_PT2();
  for (const std::string name : {"dynamic_text", "dynamic_text_core"}) {
    Expected<ImportedProgram> m = import_pt2(import_data_path(name + ".pt2"));
    ASSERT_TRUE(m) << m.error().to_string();
    const std::string text = print_graph(*m->graph);
    // The archive's symbols (s31: batch in [1, 8], s27: sequence in [2, 16]) stay symbols.
    EXPECT_NE(text.find("%x: f32[s31,s27,8], %mask: f32[s31,s27]"), std::string::npos) << text;
    EXPECT_NE(text.find("end=(s27), start=0} : i64[s27]"), std::string::npos) << text;
    EXPECT_NE(text.find("{size=[s31, s27, 2, 4]} : f32[s31,s27,2,4]"), std::string::npos) << text;
    EXPECT_NE(text.find("expand(%"), std::string::npos) << text;
    EXPECT_NE(text.find("{size=[s31, 1, s27, s27]} : f32[s31,1,s27,s27]"), std::string::npos) << text;
    EXPECT_NE(text.find("[s31, s27, 8]} : f32[s31,s27,8]"), std::string::npos) << text;
    EXPECT_NE(text.find("guard s31 >= 1"), std::string::npos) << text;
    EXPECT_NE(text.find("guard 8 >= s31"), std::string::npos) << text;
    EXPECT_NE(text.find("guard 16 >= s27"), std::string::npos) << text;
    EXPECT_EQ(text.find("sym_size"), std::string::npos) << text;
    Expected<std::unique_ptr<Graph>> parsed = parse_graph(text, name);
    ASSERT_TRUE(parsed) << parsed.error().to_string() << "\n" << text;
    EXPECT_EQ(print_graph(**parsed), text);
    expect_size_matches(*m, name, "");        // [2, 5]
    expect_size_matches(*m, name, "other_");  // [3, 7]
  }
}

TEST(ImportDynamic, SizeOutsideTheRangeFailsItsGuard) {
  SKIP_WITHOUT_PT2();
  Expected<ImportedProgram> m = import_pt2(import_data_path("dynamic_text.pt2"));
  ASSERT_TRUE(m) << m.error().to_string();
  std::vector<TensorType> types;
  for (const Value* in : m->graph->inputs()) types.push_back(in->type());
  types[types.size() - 2] = TensorType{DType::F32, Shape{9, 5, 8}};  // x: a batch of 9 > 8
  types[types.size() - 1] = TensorType{DType::F32, Shape{9, 5}};
  Expected<Specialized> s = specialize_shapes(*m->graph, types);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("guard 8 >= s31 does not hold for s27=5, s31=9"), std::string::npos)
      << s.error().message();
}

TEST(ImportDynamic, DynamicBatchMlpImports) {
  SKIP_WITHOUT_PT2();
  // The MLP of make_pt2_archives.py with a dynamic batch: linear needs no symbolic attribute.
  Expected<ImportedProgram> m = import_pt2(import_data_path("dynamic.pt2"));
  ASSERT_TRUE(m) << m.error().to_string();
  const std::string text = print_graph(*m->graph);
  EXPECT_NE(text.find("%x: f32[s77,4]) -> (f32[s77,3])"), std::string::npos) << text;
}

TEST(ImportDynamic, SympyExpressions) {
  using pt2::sym_expr_from_sympy;
  const std::string b = "Symbol('s1', positive=True, integer=True)", t = "Symbol('s2', positive=True, integer=True)";
  EXPECT_EQ(value_or_throw(sym_expr_from_sympy(b)).to_string(), "s1");
  EXPECT_EQ(value_or_throw(sym_expr_from_sympy("Mul(" + b + ", " + t + ")")).to_string(), "s1*s2");
  EXPECT_EQ(value_or_throw(sym_expr_from_sympy("Add(Mul(Integer(16), " + t + "), Integer(-1))")).to_string(),
            "16*s2-1");
  EXPECT_EQ(value_or_throw(sym_expr_from_sympy("FloorDiv(" + t + ", Integer(2))")).to_string(), "floor(s2/2)");
  Expected<SymExpr> max = sym_expr_from_sympy("Max(" + b + ", Integer(2))");
  ASSERT_FALSE(max);
  EXPECT_NE(max.error().message().find("'Max' is not supported"), std::string::npos) << max.error().message();
  Expected<SymExpr> div = sym_expr_from_sympy("FloorDiv(" + t + ", " + b + ")");
  ASSERT_FALSE(div);
  EXPECT_NE(div.error().message().find("FloorDiv needs a positive integer divisor"), std::string::npos);
  EXPECT_FALSE(sym_expr_from_sympy("Symbol('floor')"));  // not a kiln symbol name
  EXPECT_FALSE(sym_expr_from_sympy("Add(Integer(1), Integer(2)"));
  EXPECT_FALSE(sym_expr_from_sympy(std::string(100, '(')));
  // A product of 20 sums would have 2^20 terms: refused at the step that passes the bound.
  std::string product = "Mul(";
  for (int i = 0; i < 20; ++i)
    product += (i ? ", " : "") + std::string("Add(Symbol('a") + std::to_string(i) + "'), Symbol('b" +
               std::to_string(i) + "'))";
  Expected<SymExpr> big = sym_expr_from_sympy(product + ")");
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message().find("too many terms"), std::string::npos) << big.error().message();
}

TEST(ImportDynamic, SymbolicArgumentNeedsASymbolicAttribute) {
  pt2::DynamicSizes sizes;
  pt2::Argument a;
  a.kind = pt2::Argument::Kind::Ints;
  a.symbolic = true;
  a.string = "sym_size_int_3";
  a.ints = {0, 4};
  a.sym_names = {"sym_size_int_3", ""};
  // permute's dims is an int[]: no symbols there.
  ArgSchema dims;
  dims.name = "dims";
  dims.type = ArgType::Ints;
  Expected<AttrValue> v = sizes.attr_value(a, dims);
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message().find("kiln's int[] attribute holds static values only"), std::string::npos)
      << v.error().message();
  // A SymInt[] one, but the name was never recorded by a sym_size.int node.
  ArgSchema size = dims;
  size.name = "size";
  size.type = ArgType::SymInts;
  v = sizes.attr_value(a, size);
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message().find("no sym_size.int node defines"), std::string::npos) << v.error().message();
}

}  // namespace
}  // namespace kiln
