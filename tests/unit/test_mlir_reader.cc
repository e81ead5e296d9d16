// The MLIR text reader (kernels/mlir_reader.h) on Triton's TTIR: ops, results (`%x:2`, `%a, %b`)
// and operands (`%x#1`) in order, regions, blocks and their arguments (from op headers and from
// `^bb0(...)` labels), generic-form ops, attributes, locations with `#loc` aliases, and every
// malformed-input error at its file:line:col.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "kernels/mlir_reader.h"
#include "test_files.h"

namespace kiln::kernels {
namespace {

const std::string kHand = std::string(KILN_SOURCE_DIR) + "/tests/kernels/ttir_hand";

using test::read_file;

MlirModule read_ok(const std::string& text) {
  Expected<MlirModule> m = read_mlir(text, "t.ttir");
  EXPECT_TRUE(m) << m.error().to_string();
  return m ? std::move(*m) : MlirModule{};
}

std::string read_error(const std::string& text) {
  Expected<MlirModule> m = read_mlir(text, "bad.ttir");
  return m ? std::string("(read without error)") : m.error().to_string();
}

// The ops of a block, by name.
std::vector<std::string> names(const MlirModule& m, const MlirBlock& b) {
  std::vector<std::string> out;
  for (MlirOpId id : b.ops) out.push_back(m.op(id).name);
  return out;
}

// The first op of this name, in text order.
const MlirOp& find_op(const MlirModule& m, const std::string& name, int nth = 0) {
  for (const MlirOp& op : m.ops)
    if (op.name == name && nth-- == 0) return op;
  ADD_FAILURE() << "no op " << name;
  static MlirOp none;
  return none;
}

std::string value_name(const MlirModule& m, MlirValueId v) { return m.value(v).name; }

std::vector<std::string> operand_names(const MlirModule& m, const MlirOp& op) {
  std::vector<std::string> out;
  for (MlirValueId v : op.operands) out.push_back(value_name(m, v));
  return out;
}

// The body of the first function of the module.
const MlirBlock& body(const MlirModule& m) { return find_op(m, "tt.func").regions.at(0).blocks.at(0); }

constexpr const char* kOps = R"(module {
  tt.func public @k(%arg0: !tt.ptr<f32>, %arg1: i32) attributes {noinline = false} {
    %c1_i32 = arith.constant 1 : i32
    %0 = tt.addptr %arg0, %c1_i32 : !tt.ptr<f32>, i32
    %1 = arith.cmpi slt, %arg1, %c1_i32 : i32
    %2:2 = tt.split %t : tensor<4x2xf32> -> tensor<4xf32>
    %a, %b = "test.pair"() : () -> (i32, i32)
    %3 = arith.addf %2#1, %2#0 : tensor<4xf32>
    tt.store %0, %b : !tt.ptr<f32>
    tt.return
  }
}
)";

TEST(MlirReader, OpsResultsAndOperandsInOrder) {
  // %t is used before any definition: a forward reference, defined at the end of the body.
  std::string text = kOps;
  text.insert(text.find("    tt.return"),
              "    %t = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<4x2xf32>\n");
  MlirModule m = read_ok(text);
  ASSERT_EQ(m.top_level.size(), 1u);
  EXPECT_EQ(m.op(m.top_level[0]).name, "module");
  EXPECT_EQ(names(m, body(m)),
            (std::vector<std::string>{"arith.constant", "tt.addptr", "arith.cmpi", "tt.split", "test.pair",
                                      "arith.addf", "tt.store", "tt.make_range", "tt.return"}));
  const MlirOp& addptr = find_op(m, "tt.addptr");
  EXPECT_EQ(operand_names(m, addptr), (std::vector<std::string>{"%arg0", "%c1_i32"}));
  EXPECT_EQ(addptr.type_text, "!tt.ptr<f32>, i32");
  EXPECT_EQ(find_op(m, "arith.cmpi").keyword, "slt");
  const MlirOp& split = find_op(m, "tt.split");
  ASSERT_EQ(split.results.size(), 2u);
  EXPECT_EQ(value_name(m, split.results[1]), "%2#1");
  EXPECT_EQ(m.value(split.results[1]).index, 1);
  EXPECT_EQ(split.operands[0], find_op(m, "tt.make_range").results[0]);  // the forward reference resolved
  const MlirOp& pair = find_op(m, "test.pair");
  EXPECT_TRUE(pair.generic);
  EXPECT_EQ(operand_names(m, find_op(m, "arith.addf")), (std::vector<std::string>{"%2#1", "%2#0"}));
  EXPECT_EQ(find_op(m, "arith.addf").operands[0], split.results[1]);
  EXPECT_EQ(find_op(m, "tt.store").operands[1], pair.results[1]);  // %b is the pair's second result
  const MlirOp& func = find_op(m, "tt.func");
  EXPECT_EQ(func.keyword, "public");
  EXPECT_EQ(func.symbol, "k");
  ASSERT_NE(func.attribute("noinline"), nullptr);
  EXPECT_EQ(func.attribute("noinline")->as_bool(), false);
  const std::vector<MlirValueId>& params = func.regions[0].blocks[0].args;
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(m.value(params[0]).type, "!tt.ptr<f32>");
  EXPECT_EQ(m.value(params[1]).type, "i32");
  EXPECT_TRUE(m.value(params[1]).is_block_arg());
  EXPECT_EQ(find_op(m, "tt.store").loc.to_string(), "t.ttir:9:5");
  EXPECT_EQ(find_op(m, "tt.store").parent, m.value(params[0]).op);
}

// scf.for names its region's arguments in its header: %iv, then iter_args; the operands are
// lb, ub, step, inits. scf.while's "before" arguments come from its header, "after"'s from a
// label; the two regions each define their own %0 and %p.
constexpr const char* kLoops = R"(module {
  tt.func public @loops(%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:2 = scf.for %iv = %c0 to %n step %c1 iter_args(%p = %a, %q = %b) -> (!tt.ptr<f32>, !tt.ptr<f32>)  : i32 {
      %x = tt.addptr %p, %iv : !tt.ptr<f32>, i32
      scf.yield %q, %x : !tt.ptr<f32>, !tt.ptr<f32>
    } {tt.num_stages = 3 : i32}
    %w:2 = scf.while (%p = %a, %i = %c0) : (!tt.ptr<f32>, i32) -> (!tt.ptr<f32>, i32) {
      %0 = arith.cmpi slt, %i, %n : i32
      scf.condition(%0) %p, %i : !tt.ptr<f32>, i32
    } do {
    ^bb0(%p: !tt.ptr<f32> loc("p"), %i: i32):
      %0 = arith.addi %i, %c1 : i32
      scf.yield %p, %0 : !tt.ptr<f32>, i32
    }
    %s = scf.if %c0 -> (!tt.ptr<f32>) {
      scf.yield %r#0 : !tt.ptr<f32>
    } else {
      scf.yield %w#0 : !tt.ptr<f32>
    }
    tt.return
  }
}
)";

TEST(MlirReader, RegionsBlocksAndHeaderDefinitions) {
  MlirModule m = read_ok(kLoops);
  const MlirOp& loop = find_op(m, "scf.for");
  EXPECT_EQ(operand_names(m, loop), (std::vector<std::string>{"%c0", "%n", "%c1", "%a", "%b"}));
  ASSERT_EQ(loop.regions.size(), 1u);
  const MlirBlock& lb = loop.regions[0].blocks.at(0);
  ASSERT_EQ(lb.args.size(), 3u);
  EXPECT_EQ(value_name(m, lb.args[0]), "%iv");
  EXPECT_EQ(value_name(m, lb.args[2]), "%q");
  EXPECT_EQ(m.value(lb.args[2]).index, 2);
  EXPECT_EQ(names(m, lb), (std::vector<std::string>{"tt.addptr", "scf.yield"}));
  EXPECT_EQ(find_op(m, "tt.addptr").operands[0], lb.args[1]);
  EXPECT_EQ(loop.attribute("tt.num_stages")->as_int(), 3);  // an attribute after the region
  EXPECT_EQ(loop.type_text, "i32");

  const MlirOp& wh = find_op(m, "scf.while");
  EXPECT_EQ(operand_names(m, wh), (std::vector<std::string>{"%a", "%c0"}));
  ASSERT_EQ(wh.regions.size(), 2u);
  const MlirBlock& before = wh.regions[0].blocks.at(0);
  const MlirBlock& after = wh.regions[1].blocks.at(0);
  EXPECT_EQ(before.args.size(), 2u);
  EXPECT_EQ(after.label, "^bb0");
  ASSERT_EQ(after.args.size(), 2u);
  EXPECT_EQ(m.value(after.args[0]).loc_names, std::vector<std::string>{"p"});
  EXPECT_EQ(m.value(after.args[0]).region, 1);
  const MlirOp& cond = find_op(m, "scf.condition");
  EXPECT_EQ(cond.operands, (std::vector<MlirValueId>{m.op(before.ops[0]).results[0], before.args[0], before.args[1]}));
  const MlirOp& after_yield = m.op(after.ops.back());
  EXPECT_EQ(after_yield.operands[0], after.args[0]);  // "after"'s %p, not "before"'s
  EXPECT_EQ(after_yield.operands[1], m.op(after.ops[0]).results[0]);

  const MlirOp& sel = find_op(m, "scf.if");
  ASSERT_EQ(sel.regions.size(), 2u);
  EXPECT_EQ(find_op(m, "scf.yield", 2).operands[0], loop.results[0]);
  EXPECT_EQ(find_op(m, "scf.yield", 3).operands[0], wh.results[0]);
  EXPECT_EQ(m.op(m.op(sel.regions[1].blocks[0].ops[0]).parent).name, "scf.if");
}

// Triton prints tt.reduce in generic form: quoted name, properties, a region in parentheses
// whose block has a label with arguments, and the functional type after the region.
TEST(MlirReader, GenericForm) {
  const char* text = R"(module {
  tt.func private @sum(%input: tensor<16x16xf32> loc("input"(#loc9))) -> tensor<16xf32> attributes {noinline = false} {
    %0 = "tt.reduce"(%input) <{axis = 1 : i32}> ({
    ^bb0(%arg1: f32 loc(unknown), %arg2: f32 loc(unknown)):
      %2 = arith.addf %arg1, %arg2 : f32 loc(#loc10)
      "tt.reduce.return"(%2) : (f32) -> () loc(#loc10)
    }) : (tensor<16x16xf32>) -> tensor<16xf32> loc(#loc10)
    tt.return %0 : tensor<16xf32> loc(#loc12)
  ^bb1:  // no predecessors
    %1 = ub.poison : tensor<16xf32> loc(#loc9)
    tt.return %1 : tensor<16xf32> loc(#loc9)
  } loc(#loc9)
} loc(#loc9)
#loc9 = loc("standard.py":310:1)
#loc10 = loc("standard.py":314:12)
#loc12 = loc("standard.py":314:5)
)";
  MlirModule m = read_ok(text);
  const MlirOp& red = find_op(m, "tt.reduce");
  EXPECT_TRUE(red.generic);
  EXPECT_EQ(red.attribute("axis")->as_int(), 1);
  EXPECT_EQ(red.type_text, "(tensor<16x16xf32>) -> tensor<16xf32>");
  EXPECT_EQ(red.source, "standard.py:314:12");
  ASSERT_EQ(red.regions.size(), 1u);
  const MlirBlock& combine = red.regions[0].blocks.at(0);
  EXPECT_EQ(combine.args.size(), 2u);
  EXPECT_EQ(names(m, combine), (std::vector<std::string>{"arith.addf", "tt.reduce.return"}));
  const MlirOp& func = find_op(m, "tt.func");
  EXPECT_EQ(func.keyword, "private");
  ASSERT_EQ(func.regions[0].blocks.size(), 2u);
  EXPECT_EQ(func.regions[0].blocks[1].label, "^bb1");
  EXPECT_EQ(names(m, func.regions[0].blocks[1]), (std::vector<std::string>{"ub.poison", "tt.return"}));
  EXPECT_EQ(m.value(func.regions[0].blocks[0].args[0]).loc_names, std::vector<std::string>{"input"});
}

// Names come from loc("name"(...)) written in place or through #loc aliases defined after the
// module; a renamed parameter keeps its first name innermost.
TEST(MlirReader, LocationsAndAliases) {
  const char* text = R"(#loc = loc("k.py":16:1)
#loc11 = loc("in0"(#loc))
module {
  tt.func public @k(%arg0: !tt.ptr<f32> loc(#loc11), %b: !tt.ptr<f32> loc("b"(#loc15)), %n: i32 loc("n"(#loc))) {
    %pid = tt.get_program_id x : i32 loc(#loc16)
    %offs = tt.splat %pid : i32 -> tensor<4xi32> loc("offs"(#loc2))
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc1 = loc("k.py":17:11)
#loc2 = loc("k.py":18:3)
#loc15 = loc("in1"(#loc))
#loc16 = loc("pid"(#loc1))
)";
  MlirModule m = read_ok(text);
  const std::vector<MlirValueId>& params = find_op(m, "tt.func").regions[0].blocks[0].args;
  EXPECT_EQ(m.value(params[0]).loc_names, std::vector<std::string>{"in0"});
  EXPECT_EQ(m.value(params[1]).loc_names, (std::vector<std::string>{"b", "in1"}));
  EXPECT_EQ(m.value(params[2]).loc_names, std::vector<std::string>{"n"});
  const MlirOp& pid = find_op(m, "tt.get_program_id");
  EXPECT_EQ(pid.loc_name, "pid");
  EXPECT_EQ(pid.source, "k.py:17:11");
  EXPECT_EQ(pid.keyword, "x");
  EXPECT_EQ(pid.loc.to_string(), "t.ttir:5:5");
  EXPECT_EQ(find_op(m, "tt.splat").loc_name, "offs");
  EXPECT_EQ(find_op(m, "tt.splat").source, "k.py:18:3");
  EXPECT_EQ(find_op(m, "tt.return").source, "k.py:16:1");
}

TEST(MlirReader, AttributesAndSymbols) {
  const char* text = R"(tt.func @k(%x: tensor<16xi32>, %p: tensor<16x!tt.ptr<f32>>, %v: tensor<16xf32>) {
  %0 = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %x : tensor<16xi32> -> tensor<16xi32>
  %1 = tt.atomic_rmw fadd, acq_rel, gpu, %p, %v : (tensor<16x!tt.ptr<f32>>, tensor<16xf32>) -> tensor<16xf32>
  %2 = tt.call @"helper.f"(%x) : (tensor<16xi32>) -> tensor<16xi32>
  "test.op"() {"quoted.key" = "a\22b", flag, sym = @target, arr = array<i32: 1, 0>, neg = -7} : () -> ()
  tt.return
}
)";
  MlirModule m = read_ok(text);
  const MlirOp& asm_op = find_op(m, "tt.elementwise_inline_asm");
  EXPECT_EQ(asm_op.attribute("constraints")->as_string(), "=r,r");
  EXPECT_EQ(asm_op.attribute("pure")->as_bool(), true);
  EXPECT_EQ(asm_op.attribute("packed_element")->as_int(), 1);
  EXPECT_EQ(asm_op.attribute("packed_element")->as_bool(), std::nullopt);
  EXPECT_EQ(operand_names(m, asm_op), std::vector<std::string>{"%x"});
  const MlirOp& rmw = find_op(m, "tt.atomic_rmw");
  EXPECT_EQ(rmw.keyword, "fadd");
  EXPECT_EQ(operand_names(m, rmw), (std::vector<std::string>{"%p", "%v"}));
  EXPECT_EQ(find_op(m, "tt.call").symbol, "helper.f");
  const MlirOp& t = find_op(m, "test.op");
  EXPECT_EQ(t.attribute("quoted.key")->as_string(), "a\"b");
  EXPECT_EQ(t.attribute("flag")->value, "");
  EXPECT_EQ(t.attribute("flag")->as_bool(), true);
  EXPECT_EQ(t.attribute("sym")->as_symbol(), "target");
  EXPECT_EQ(t.attribute("arr")->value, "array<i32: 1, 0>");
  EXPECT_EQ(t.attribute("neg")->as_int(), -7);
  EXPECT_EQ(t.attribute("missing"), nullptr);
  EXPECT_EQ(m.top_level.size(), 1u);  // a function without a module around it
}

// Unstructured control flow (Triton's early return): blocks with comments, branches to labels;
// a value of the entry block is used in a later block, and branch operands are uses.
TEST(MlirReader, BranchesAndComments) {
  const char* text = R"(// a comment before everything
tt.func public @k(%out: !tt.ptr<f32>, %n: i32) {
  %pid = tt.get_program_id x : i32
  %0 = arith.cmpi sge, %pid, %n : i32
  cf.cond_br %0, ^bb1, ^bb2(%out : !tt.ptr<f32>)  // a trailing comment
^bb1:  // pred: ^bb0
  tt.return
^bb2(%p: !tt.ptr<f32>):  // pred: ^bb0
  tt.store %p, %pid : !tt.ptr<f32>
  tt.return
}
)";
  MlirModule m = read_ok(text);
  const MlirOp& func = find_op(m, "tt.func");
  ASSERT_EQ(func.regions[0].blocks.size(), 3u);
  const MlirOp& br = find_op(m, "cf.cond_br");
  EXPECT_EQ(operand_names(m, br), (std::vector<std::string>{"%0", "%out"}));
  const MlirBlock& bb2 = func.regions[0].blocks[2];
  ASSERT_EQ(bb2.args.size(), 1u);
  EXPECT_EQ(m.value(bb2.args[0]).block, 2);
  const MlirOp& store = find_op(m, "tt.store");
  EXPECT_EQ(store.operands[0], bb2.args[0]);
  EXPECT_EQ(m.op(m.value(store.operands[1]).op).name, "tt.get_program_id");
}

// Every Triton-made file of the tests reads, and its structure is consistent.
TEST(MlirReader, ReadsTritonFiles) {
  int files = 0;
  for (const auto& dir : {kHand, std::string(KILN_SOURCE_DIR) + "/tests/kernels/ttir"}) {
    if (!std::filesystem::exists(dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".ttir") continue;
      ++files;
      SCOPED_TRACE(entry.path().string());
      Expected<MlirModule> m = read_mlir(read_file(entry.path().string()), entry.path().filename().string());
      ASSERT_TRUE(m) << m.error().to_string();
      for (const MlirOp& op : m->ops) {
        for (MlirValueId v : op.operands) ASSERT_GE(m->value(v).op, 0) << op.name;
        for (size_t k = 0; k < op.results.size(); ++k) EXPECT_EQ(m->value(op.results[k]).index, static_cast<int>(k));
      }
      EXPECT_FALSE(find_op(*m, "tt.func").regions.empty());
    }
  }
  EXPECT_GE(files, 20);
  // One fact per file kind: add_kernel's store writes through an addptr of a splat of `out`.
  MlirModule m = read_ok(read_file(kHand + "/add_kernel.ttir"));
  const MlirOp& store = find_op(m, "tt.store");
  const MlirOp& addptr = m.op(m.value(store.operands[0]).op);
  EXPECT_EQ(addptr.name, "tt.addptr");
  const MlirOp& splat = m.op(m.value(addptr.operands[0]).op);
  EXPECT_EQ(splat.name, "tt.splat");
  const MlirValue& out = m.value(splat.operands[0]);
  EXPECT_TRUE(out.is_block_arg());
  EXPECT_EQ(out.name, "%out");
  EXPECT_EQ(out.loc_names, std::vector<std::string>{"out"});
}

struct BadInput {
  const char* what;
  const char* text;
  const char* error;
};

class MlirReaderErrors : public ::testing::TestWithParam<BadInput> {};

TEST_P(MlirReaderErrors, SaysWhereAndWhat) { EXPECT_EQ(read_error(GetParam().text), GetParam().error); }

INSTANTIATE_TEST_SUITE_P(
    MlirMalformed, MlirReaderErrors,
    ::testing::Values(
        BadInput{"unterminated_region", "module {\n  tt.func @f() {\n    tt.return\n  }\n",
                 "bad.ttir:1:8: error: unterminated region: no '}' closes this '{'"},
        BadInput{"bad_value_name", "tt.func @f() {\n  % = arith.constant 1 : i32\n}\n",
                 "bad.ttir:2:3: error: expected a value name after '%'"},
        BadInput{"unknown_loc_alias", "tt.func @f() {\n  tt.return loc(#loc9)\n} loc(#loc)\n#loc = loc(\"f.py\":1:1)\n",
                 "bad.ttir:2:17: error: unknown location alias '#loc9'"},
        BadInput{"missing_equals", "tt.func @f() {\n  %0 arith.constant 1 : i32\n}\n",
                 "bad.ttir:2:6: error: expected '=' after the result list"},
        BadInput{"stray_brace", "tt.func @f() {\n  tt.return\n}\n}\n", "bad.ttir:4:1: error: unexpected '}'"},
        BadInput{"unterminated_string", "tt.func @f() {\n  %0 = tt.elementwise_inline_asm \"mov $0 %1 : i32\n}\n",
                 "bad.ttir:2:34: error: unterminated string"},
        BadInput{"undefined_value", "tt.func @f() {\n  tt.store %p, %v : !tt.ptr<f32>\n}\n",
                 "bad.ttir:2:12: error: use of undefined value '%p'"},
        BadInput{"redefinition", "tt.func @f() {\n  %0 = arith.constant 1 : i32\n  %0 = arith.constant 2 : i32\n}\n",
                 "bad.ttir:3:3: error: redefinition of value '%0'"},
        BadInput{"unclosed_paren", "tt.func @f(%a: i32 {\n  tt.return\n}\n",
                 "bad.ttir:1:11: error: this bracket is not closed on its line"},
        BadInput{"unexpected_paren", "tt.func @f() {\n  %0 = \"x.y\"()) : () -> i32\n}\n",
                 "bad.ttir:2:15: error: unexpected ')'"},
        BadInput{"no_op_name", "tt.func @f() {\n  %0 = 42\n}\n",
                 "bad.ttir:2:8: error: expected an operation name, found '42'"},
        BadInput{"bad_result_count", "tt.func @f() {\n  %0:0 = x.y\n}\n",
                 "bad.ttir:2:6: error: expected a result count (1 to 4096) after ':'"},
        BadInput{"bad_block_arg", "tt.func @f() {\n^bb0(%a):\n  tt.return\n}\n",
                 "bad.ttir:2:6: error: expected a block argument '%name: type'"},
        BadInput{"bad_attribute", "tt.func @f() {\n  x.y {= 1} : () -> ()\n}\n",
                 "bad.ttir:2:8: error: expected an attribute name, found '='"},
        BadInput{"unexpected_byte", "tt.func @f() {\n  \x01\n}\n",
                 "bad.ttir:2:3: error: unexpected character (byte 1)"},
        BadInput{"unclosed_attribute", "x.y {a = 1", "bad.ttir:1:5: error: no closing bracket for this '{'"},
        BadInput{"mismatched_bracket", "x.y {a = (1]}\n", "bad.ttir:1:12: error: unexpected ']'"},
        BadInput{"no_attribute_value", "x.y {a = }\n", "bad.ttir:1:10: error: expected an attribute value after '='"},
        BadInput{"attribute_without_comma", "x.y {a b}\n",
                 "bad.ttir:1:8: error: expected ',' or '}' in the attributes"},
        BadInput{"unterminated_resources", "x.y\n{-# blob\n",
                 "bad.ttir:2:1: error: unterminated '{-#' resource section"},
        BadInput{"bad_block_name", "tt.func @f() {\n^ :\n}\n", "bad.ttir:2:1: error: expected a block name after '^'"},
        BadInput{"bad_symbol_name", "tt.call @ ()\n", "bad.ttir:1:9: error: expected a symbol name after '@'"},
        BadInput{"bad_result_name", "%a, 5 = x.y\n", "bad.ttir:1:5: error: expected a result name, found '5'"},
        BadInput{"numbered_result", "%a#1 = x.y\n", "bad.ttir:1:1: error: a result name cannot have a '#' number"},
        BadInput{"numbered_definition", "scf.for %i#1 = %a to %b step %c {\n}\n",
                 "bad.ttir:1:9: error: a definition cannot have a '#' number"},
        BadInput{"block_args_without_comma", "tt.func @f() {\n^bb0(%a: i32 loc(unknown) x):\n}\n",
                 "bad.ttir:2:27: error: expected ',' or ')' in the block arguments"},
        BadInput{"label_without_colon", "tt.func @f() {\n^bb0\n  tt.return\n}\n",
                 "bad.ttir:3:3: error: expected ':' after the block label"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return std::string(info.param.what); });

// Nesting deeper than the reader allows is an error, not a stack overflow.
TEST(MlirReader, DeepNestingIsAnError) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "scf.execute_region {\n";
  std::string error = read_error(text);
  EXPECT_NE(error.find("error: regions nested too deeply"), std::string::npos) << error;
  std::string locs = "tt.return loc(";
  for (int i = 0; i < 100; ++i) locs += "\"a\"(";
  locs += std::string(100, ')') + ")\n";
  error = read_error(locs);
  EXPECT_NE(error.find("error: location nested too deeply"), std::string::npos) << error;
}

}  // namespace
}  // namespace kiln::kernels
