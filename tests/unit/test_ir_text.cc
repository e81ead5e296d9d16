// The graph text form: printing and parsing round-trip exactly, parse errors point at the
// offending token, and the verifier catches graphs built wrong through the C++ API.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace kiln {
namespace {

// Parses `text`, which must be in printed form, and expects it to print back unchanged.
void expect_round_trip(const std::string& text) {
  auto g = parse_graph(text, "t.kir");
  ASSERT_TRUE(g.has_value()) << g.error().to_string();
  EXPECT_EQ(print_graph(**g), text);
}

// The diagnostic parse_graphs gives for `text`, as "file:line:col: error: message".
std::string parse_error(const std::string& text) {
  auto g = parse_graphs(text, "t.kir");
  if (g) return "parsed";
  return g.error().loc().to_string() + ": " + g.error().message();
}

TEST(IrText, MlpRoundTrip) {
  expect_round_trip(
      "graph @mlp(%x: f32[B,16], %w: param f32[16,32], %b: param f32[32]) -> (f32[B,16], f32[B,16]) {\n"
      "  %0 = matmul(%x, %w) : f32[B,32]\n"
      "  %1 = add(%0, %b) : f32[B,32]\n"
      "  %2 = sum(%1) {dim=[1], keepdim=true} : f32[B,1]\n"
      "  %3 = mul(%2, 0.5) : f32[B,1]\n"
      "  %4 = sub(%1, %3) : f32[B,32]\n"
      "  %5, %6 = split(%4) {dim=1, split_size=16} : (f32[B,16], f32[B,16])\n"
      "  return %5, %6\n"
      "}\n");
}

TEST(IrText, EveryLiteralKindRoundTrips) {
  expect_round_trip(
      "graph @lits(%x: f32[4], %i: i64[4], %m: bool[4]) -> (f32[4], f32[4], f32[4], f32[4], i64[4], i64[4], f32[4], "
      "f32[4]) {\n"
      "  %0 = mul(%x, 0.5) : f32[4]\n"
      "  %1 = add(%x, 2) : f32[4]\n"
      "  %2 = add(%x, -1) : f32[4]\n"
      "  %3 = mul(%x, inf) : f32[4]\n"
      "  %4 = add(%i, true) : i64[4]\n"
      "  %5 = add(%i, -9223372036854775808) : i64[4]\n"
      "  %6 = masked_fill(%x, %m, -inf) : f32[4]\n"
      "  %7 = mul(%x, nan) : f32[4]\n"
      "  return %0, %1, %2, %3, %4, %5, %6, %7\n"
      "}\n");
  expect_round_trip(
      "graph @opt(%x: f32[2,3], %w: f32[4,3], %i: i64[5]) -> (f32[2,4], f32[5,3]) {\n"
      "  %0 = linear(%x, %w, none) : f32[2,4]\n"
      "  %1 = index(%x, none, %i) : f32[2,5]\n"
      "  %2 = index(%w, %i) : f32[5,3]\n"
      "  return %0, %2\n"
      "}\n");
}

TEST(IrText, FloatLiteralsKeepTheirExactValue) {
  expect_round_trip(
      "graph @f(%x: f64[2]) -> (f64[2], f64[2], f64[2], f64[2]) {\n"
      "  %0 = mul(%x, 0.1) : f64[2]\n"
      "  %1 = mul(%x, 1e-300) : f64[2]\n"
      "  %2 = mul(%x, -0.0) : f64[2]\n"
      "  %3 = mul(%x, 1.0) : f64[2]\n"
      "  return %0, %1, %2, %3\n"
      "}\n");
  auto g = parse_graph("graph @f(%x: f64[2]) -> (f64[2]) {\n  %0 = mul(%x, 2.5e+3) : f64[2]\n  return %0\n}\n");
  ASSERT_TRUE(g.has_value()) << g.error().to_string();
  Node* n = (*g)->first_node();
  EXPECT_TRUE(n->operand(1).literal.is_float());
  EXPECT_EQ(n->operand(1).literal.to_double(), 2500.0);
}

TEST(IrText, AttributesOfEveryTypeRoundTrip) {
  expect_round_trip(
      "graph @attrs(%x: f32[2,3], %y: f32[2,3], %i: i64[2,3]) -> (f32[2,3], f32[2,3], f64[], f32[3,2], f32[2,3], "
      "f32[2,3], "
      "f32[2,3], f32[2,3], i64[2,3], f32[2,3]) {\n"
      "  %0 = gelu(%x) {approximate=\"tanh\"} : f32[2,3]\n"
      "  %1 = add(%x, %y) {alpha=2} : f32[2,3]\n"
      "  %2 = sum(%x) {dtype=f64} : f64[]\n"
      "  %3 = permute(%x) {dims=[1, 0]} : f32[3,2]\n"
      "  %4 = layer_norm(%x) {eps=0.001, normalized_shape=[3]} : f32[2,3]\n"
      "  %5 = sum(%x) {dim=none, dtype=none, keepdim=false} : f32[]\n"
      "  %6 = clamp(%x) {max=1.5, min=-1} : f32[2,3]\n"
      "  %7 = div(%x, %y) {rounding_mode=none} : f32[2,3]\n"
      "  %8 = div(%x, %y) {rounding_mode=\"floor\"} : f32[2,3]\n"
      "  %9 = div(%i, 2) {rounding_mode=\"trunc\"} : i64[2,3]\n"
      "  %10 = add(%x, %y) {alpha=0.5} : f32[2,3]\n"
      "  %11 = sum(%x) {dim=[], keepdim=true} : f32[1,1]\n"
      "  return %0, %1, %2, %3, %4, %4, %6, %7, %9, %10\n"
      "}\n");
}

TEST(IrText, IntegerForFloatAttributeIsStoredAsDouble) {
  auto g = parse_graph(
      "graph @g(%x: f32[2,3]) -> (f32[2,3]) {\n"
      "  %0 = layer_norm(%x) {eps=1, normalized_shape=[3]} : f32[2,3]\n"
      "  return %0\n"
      "}\n");
  ASSERT_TRUE(g.has_value()) << g.error().to_string();
  const AttrValue* eps = (*g)->first_node()->attrs().find("eps");
  ASSERT_NE(eps, nullptr);
  EXPECT_TRUE(eps->is_float());
  EXPECT_NE(print_graph(**g).find("eps=1.0"), std::string::npos);
}

TEST(IrText, StringEscapesRoundTrip) {
  auto g = parse_graph(
      "graph @g(%x: f32[2]) -> (f32[2]) {\n"
      "  %0 = gelu(%x) {approximate=\"tanh\"} : f32[2]\n"
      "  return %0\n"
      "}\n");
  ASSERT_TRUE(g.has_value());
  (*g)->first_node()->mutable_attrs().set("approximate", std::string("a\"b\\c\n\x01"));
  std::string text = print_graph(**g);
  EXPECT_NE(text.find("approximate=\"a\\\"b\\\\c\\n\\x01\""), std::string::npos) << text;
  // The verifier does not look at string contents, so the odd value parses back.
  auto again = parse_graph(text);
  ASSERT_TRUE(again.has_value()) << again.error().to_string();
  EXPECT_EQ((*again)->first_node()->attrs().find("approximate")->as_string(), "a\"b\\c\n\x01");
}

TEST(IrText, InputRolesAndNamesRoundTrip) {
  expect_round_trip(
      "graph @roles(%fc1.weight: param f32[4,4], %running_mean: buffer f32[4], %g: tangent f32[4], %x_0: f32[4]) -> "
      "(f32[4,4]) {\n"
      "  %0 = mul(%fc1.weight, %g) : f32[4,4]\n"
      "  return %0\n"
      "}\n");
}

TEST(IrText, ResultNumbersSkipInputNames) {
  expect_round_trip(
      "graph @skip(%0: f32[2], %2: f32[2]) -> (f32[2]) {\n"
      "  %1 = neg(%0) : f32[2]\n"
      "  %3 = add(%1, %2) : f32[2]\n"
      "  return %3\n"
      "}\n");
}

TEST(IrText, ResultNamesInTheTextAreRenumbered) {
  auto g = parse_graph(
      "graph @g(%x: f32[2]) -> (f32[2]) {\n"
      "  %a = neg(%x) : f32[2]\n"
      "  %b.c = exp(%a) : f32[2]\n"
      "  return %b.c\n"
      "}\n");
  ASSERT_TRUE(g.has_value()) << g.error().to_string();
  EXPECT_EQ(print_graph(**g),
            "graph @g(%x: f32[2]) -> (f32[2]) {\n"
            "  %0 = neg(%x) : f32[2]\n"
            "  %1 = exp(%0) : f32[2]\n"
            "  return %1\n"
            "}\n");
}

TEST(IrText, WhitespaceAndCommentsAreIgnored) {
  auto g = parse_graph(
      "// RUN: something\n"
      "graph   @g ( %x :f32[ B , 2 ] )->(f32[B,2]){ // trailing\n"
      "\t%0=neg( %x ):f32[B,2]\n\n"
      "  return   %0 }");
  ASSERT_TRUE(g.has_value()) << g.error().to_string();
  EXPECT_EQ(print_graph(**g),
            "graph @g(%x: f32[B,2]) -> (f32[B,2]) {\n"
            "  %0 = neg(%x) : f32[B,2]\n"
            "  return %0\n"
            "}\n");
}

TEST(IrText, ZeroDimTypesAndEmptyReturn) {
  expect_round_trip(
      "graph @scalars(%x: f32[], %n: i64[0,3]) -> (f32[]) {\n"
      "  %0 = exp(%x) : f32[]\n"
      "  return %0\n"
      "}\n");
  expect_round_trip(
      "graph @nothing(%x: f32[2]) -> () {\n"
      "  return\n"
      "}\n");
}

TEST(IrText, SubgraphsRoundTrip) {
  expect_round_trip(
      "graph @branch(%p: bool[], %x: f32[4]) -> (f32[4]) {\n"
      "  %0 = cond(%p, %x) : f32[4] {\n"
      "    true_fn = graph(%a: f32[4]) -> (f32[4]) {\n"
      "      %0 = neg(%a) : f32[4]\n"
      "      return %0\n"
      "    }\n"
      "    false_fn = graph(%a: f32[4]) -> (f32[4]) {\n"
      "      return %a\n"
      "    }\n"
      "  }\n"
      "  return %0\n"
      "}\n");
  expect_round_trip(
      "graph @loop(%i: i64[], %x: f32[3]) -> (i64[], f32[3]) {\n"
      "  %0, %1 = while_loop(%i, %x) : (i64[], f32[3]) {\n"
      "    cond_fn = graph(%i: i64[], %x: f32[3]) -> (bool[]) {\n"
      "      %0 = lt(%i, 10) : bool[]\n"
      "      return %0\n"
      "    }\n"
      "    body_fn = graph(%i: i64[], %x: f32[3]) -> (i64[], f32[3]) {\n"
      "      %0 = add(%i, 1) : i64[]\n"
      "      %1 = mul(%x, 2.0) : f32[3]\n"
      "      %2 = lt(%0, 5) : bool[]\n"
      "      %3 = cond(%2, %1) : f32[3] {\n"
      "        true_fn = graph(%a: f32[3]) -> (f32[3]) {\n"
      "          return %a\n"
      "        }\n"
      "        false_fn = graph(%a: f32[3]) -> (f32[3]) {\n"
      "          %0 = exp(%a) : f32[3]\n"
      "          return %0\n"
      "        }\n"
      "      }\n"
      "      return %0, %3\n"
      "    }\n"
      "  }\n"
      "  return %0, %1\n"
      "}\n");
}

TEST(IrText, SeveralGraphsInOneFile) {
  auto gs = parse_graphs(
      "graph @a(%x: f32[2]) -> (f32[2]) {\n  return %x\n}\n"
      "graph @b(%x: f32[2]) -> (f32[2]) {\n  %0 = neg(%x) : f32[2]\n  return %0\n}\n");
  ASSERT_TRUE(gs.has_value()) << gs.error().to_string();
  ASSERT_EQ(gs->size(), 2u);
  EXPECT_EQ((*gs)[0]->name(), "a");
  EXPECT_EQ((*gs)[1]->name(), "b");
  EXPECT_EQ(parse_error("graph @a(%x: f32[2]) -> (f32[2]) {\n  return %x\n}\n"
                        "graph @b(%x: f32[2]) -> (f32[2]) {\n  return %x\n}\n")
                .substr(0, 6),
            "parsed");
  auto one =
      parse_graph("graph @a(%x: f32[2]) -> (f32[2]) {\n  return %x\n}\ngraph @b() -> () {\n  return\n}\n", "t.kir");
  ASSERT_FALSE(one.has_value());
  EXPECT_EQ(one.error().loc().to_string(), "t.kir:4:1");
}

TEST(IrText, UseListsAreExactAfterParsing) {
  auto g = parse_graph(
      "graph @g(%x: f32[2]) -> (f32[2], f32[2]) {\n"
      "  %0 = add(%x, %x) : f32[2]\n"
      "  %1 = mul(%0, %x) : f32[2]\n"
      "  return %1, %0\n"
      "}\n");
  ASSERT_TRUE(g.has_value()) << g.error().to_string();
  Value* x = (*g)->input(0);
  std::vector<Node*> nodes = (*g)->nodes();
  ASSERT_EQ(x->uses().size(), 3u);
  EXPECT_EQ(x->uses()[0], (Use{nodes[0], 0}));
  EXPECT_EQ(x->uses()[1], (Use{nodes[0], 1}));
  EXPECT_EQ(x->uses()[2], (Use{nodes[1], 1}));
  ASSERT_EQ(nodes[0]->result()->uses().size(), 1u);
  EXPECT_EQ(nodes[0]->result()->uses()[0], (Use{nodes[1], 0}));
  EXPECT_FALSE(nodes[1]->result()->has_uses());
  EXPECT_EQ((*g)->outputs()[1], nodes[0]->result());
}

TEST(IrText, NodesRecordTheirSourceLocation) {
  auto g = parse_graph(
      "graph @g(%x: f32[2]) -> (f32[2]) {\n  %0 = neg(%x) : f32[2]\n    %1 = neg(%0) : f32[2]\n  return %1\n}\n",
      "f.kir");
  ASSERT_TRUE(g.has_value());
  std::vector<Node*> nodes = (*g)->nodes();
  EXPECT_EQ(nodes[0]->loc().to_string(), "f.kir:2:3");
  EXPECT_EQ(nodes[1]->loc().to_string(), "f.kir:3:5");
}

TEST(IrText, PrintNodeUsesGraphNames) {
  auto g = parse_graph(
      "graph @g(%p: bool[], %x: f32[4]) -> (f32[4]) {\n"
      "  %0 = add(%x, %x) {alpha=2} : f32[4]\n"
      "  %1 = cond(%p, %0) : f32[4] {\n"
      "    true_fn = graph(%a: f32[4]) -> (f32[4]) {\n"
      "      return %a\n"
      "    }\n"
      "    false_fn = graph(%a: f32[4]) -> (f32[4]) {\n"
      "      return %a\n"
      "    }\n"
      "  }\n"
      "  return %1\n"
      "}\n");
  ASSERT_TRUE(g.has_value()) << g.error().to_string();
  std::vector<Node*> nodes = (*g)->nodes();
  EXPECT_EQ(print_node(*nodes[0]), "%0 = add(%x, %x) {alpha=2} : f32[4]");
  EXPECT_EQ(print_node(*nodes[1]),
            "%1 = cond(%p, %0) : f32[4] {true_fn = graph(%a: f32[4]) -> (f32[4]) {...}, "
            "false_fn = graph(%a: f32[4]) -> (f32[4]) {...}}");
}

TEST(IrText, PrinterNumbersInputsWithoutPrintableNames) {
  Graph g("g");
  Value* a = g.add_input("", {DType::F32, Shape{2}});
  Value* b = g.add_input("a b", {DType::F32, Shape{2}});
  Value* c = g.add_input("x", {DType::F32, Shape{2}});
  Value* d = g.add_input("x", {DType::F32, Shape{2}});
  Node* n = g.append({OpKind::Add, {a, b}, {}, {{DType::F32, Shape{2}}}});
  Node* m = g.append({OpKind::Add, {c, d}, {}, {{DType::F32, Shape{2}}}});
  g.set_outputs({n->result(), m->result()});
  std::string text = print_graph(g);
  EXPECT_EQ(text,
            "graph @g(%0: f32[2], %1: f32[2], %x: f32[2], %2: f32[2]) -> (f32[2], f32[2]) {\n"
            "  %3 = add(%0, %1) : f32[2]\n"
            "  %4 = add(%x, %2) : f32[2]\n"
            "  return %3, %4\n"
            "}\n");
  expect_round_trip(text);
}

// ---- parse errors: each names the problem at the offending token ----

TEST(IrTextErrors, Syntax) {
  EXPECT_EQ(parse_error("graph @g(%x: f32[2]) -> (f32[2]) {\n  %0 = neg(%x) f32[2]\n  return %0\n}\n"),
            "t.kir:2:16: expected ':' after operand list");
  EXPECT_EQ(parse_error("graph @g(%x: f32[2]) -> (f32[2]) {\n  %0 = addd(%x, %x) : f32[2]\n  return %0\n}\n"),
            "t.kir:2:8: unknown op 'addd'");
  EXPECT_EQ(parse_error("graph @g(%x: f32[2]) -> (f32[2]) {\n  %0 = neg(%7) : f32[2]\n  return %0\n}\n"),
            "t.kir:2:12: use of undefined value %7");
  EXPECT_EQ(
      parse_error(
          "graph @g(%x: f32[2]) -> (f32[2]) {\n  %0 = neg(%x) : f32[2]\n  %0 = neg(%x) : f32[2]\n  return %0\n}\n"),
      "t.kir:3:3: redefinition of value %0");
  EXPECT_EQ(parse_error("graph @g(%x: f33[2]) -> (f32[2]) {\n  return %x\n}\n"), "t.kir:1:14: unknown dtype 'f33'");
  EXPECT_EQ(parse_error("graph @g(%x: f32[2]) -> (f32[2]) {\n  %0 = mul(%x, 1.5e) : f32[2]\n  return %0\n}\n"),
            "t.kir:2:16: malformed number '1.5e'");
  EXPECT_EQ(parse_error(
                "graph @g(%x: f32[2]) -> (f32[2]) {\n  %0 = mul(%x, 99999999999999999999) : f32[2]\n  return %0\n}\n"),
            "t.kir:2:16: integer literal '99999999999999999999' out of range");
  EXPECT_EQ(parse_error("graph @g(%x: f32[2]) -> (f32[2]) {\n  %0 = mul(%x, 1e999) : f32[2]\n  return %0\n}\n"),
            "t.kir:2:16: float literal '1e999' out of range");
  EXPECT_EQ(parse_error(
                "graph @g(%x: f32[2]) -> (f32[2]) {\n  %0 = gelu(%x) {approximate=\"tanh} : f32[2]\n  return %0\n}\n"),
            "t.kir:2:30: unterminated string");
  EXPECT_EQ(parse_error("graph @g(%x: f32[-2]) -> (f32[2]) {\n  return %x\n}\n"), "t.kir:1:18: negative dimension -2");
  EXPECT_EQ(parse_error("graph @g(%x: f32[2]) -> (f32[2]) {\n  %0 = neg(%x) : f32[2]\n}\n"),
            "t.kir:3:1: expected 'return' at the end of the graph");
  EXPECT_EQ(parse_error(""), "t.kir:1:1: expected 'graph': the input holds no graph");
  EXPECT_EQ(parse_error("graph @g(%x: f32[2]) -> (f32[2]) {\n  return %x\n}\n$"),
            "t.kir:4:1: unexpected character '$'");
}

TEST(IrTextErrors, Schema) {
  EXPECT_EQ(parse_error("graph @g(%x: f32[2]) -> (f32[]) {\n  %0 = sum(%x) {dims=[0]} : f32[]\n  return %0\n}\n"),
            "t.kir:2:17: op 'sum' has no attribute 'dims'");
  EXPECT_EQ(parse_error("graph @g(%x: f32[2]) -> (f32[]) {\n  %0 = sum(%x) {keepdim=1} : f32[]\n  return %0\n}\n"),
            "t.kir:2:25: attribute 'keepdim' of sum expects bool, got int");
  EXPECT_EQ(
      parse_error(
          "graph @g(%x: f32[2]) -> (f32[]) {\n  %0 = sum(%x) {keepdim=true, keepdim=true} : f32[]\n  return %0\n}\n"),
      "t.kir:2:31: duplicate attribute 'keepdim'");
  EXPECT_EQ(parse_error("graph @g(%x: f32[2]) -> (f32[2]) {\n  %0 = add(%x, %x, %x) : f32[2]\n  return %0\n}\n"),
            "t.kir:2:8: add expects 2 operands, got 3");
  EXPECT_EQ(parse_error("graph @g(%x: f32[2]) -> (f32[2]) {\n  %0 = add(1, %x) : f32[2]\n  return %0\n}\n"),
            "t.kir:2:12: literal operand not allowed for operand 'self' of add (Tensor)");
  EXPECT_EQ(parse_error("graph @g(%x: f32[2]) -> (f32[2]) {\n  %0 = add(%x, none) : f32[2]\n  return %0\n}\n"),
            "t.kir:2:16: 'none' not allowed for operand 'other' of add (Tensor|Scalar)");
  EXPECT_EQ(parse_error("graph @g(%x: f32[2]) -> (f32[2]) {\n  %0 = permute(%x) : f32[2]\n  return %0\n}\n"),
            "t.kir:2:8: permute requires attribute 'dims'");
  EXPECT_EQ(parse_error("graph @g(%x: f32[2]) -> (f32[2]) {\n  %0, %1 = neg(%x) : (f32[2], f32[2])\n  return %0\n}\n"),
            "t.kir:2:3: neg has 1 result, got 2");
  EXPECT_EQ(parse_error("graph @g(%x: f32[2]) -> (f32[2]) {\n  %0, %1 = neg(%x) : f32[2]\n  return %0\n}\n"),
            "t.kir:2:22: 2 result names but 1 result type");
  EXPECT_EQ(parse_error("graph @g(%x: f32[2]) -> (f32[2], f32[2]) {\n  return %x\n}\n"),
            "t.kir:2:3: return has 1 value but the signature declares 2 (f32[2], f32[2])");
  EXPECT_EQ(parse_error("graph @g(%x: f32[2]) -> (f32[3]) {\n  return %x\n}\n"),
            "t.kir:2:10: return value %x has type f32[2] but the signature declares f32[3]");
}

TEST(IrTextErrors, Subgraphs) {
  const std::string head = "graph @g(%p: bool[], %x: f32[4]) -> (f32[4]) {\n  %0 = cond(%p, %x) : f32[4]";
  EXPECT_EQ(parse_error(head + "\n  return %0\n}\n"), "t.kir:2:8: missing subgraph 'true_fn' of cond");
  EXPECT_EQ(
      parse_error(head +
                  " {\n    true_fn = graph(%a: f32[4]) -> (f32[4]) {\n      return %a\n    }\n  }\n  return %0\n}\n"),
      "t.kir:6:3: missing subgraph 'false_fn' of cond");
  EXPECT_EQ(
      parse_error(head +
                  " {\n    false_fn = graph(%a: f32[4]) -> (f32[4]) {\n      return %a\n    }\n  }\n  return %0\n}\n"),
      "t.kir:3:5: expected subgraph 'true_fn' of cond, got 'false_fn'");
  // Subgraphs are closed: they see only their own inputs.
  EXPECT_EQ(parse_error(
                head + " {\n    true_fn = graph(%a: f32[4]) -> (f32[4]) {\n      return %x\n    }\n"
                       "    false_fn = graph(%a: f32[4]) -> (f32[4]) {\n      return %a\n    }\n  }\n  return %0\n}\n"),
            "t.kir:4:14: use of undefined value %x");
  EXPECT_EQ(parse_error("graph @g(%x: f32[4]) -> (f32[4]) {\n  %0 = neg(%x) : f32[4] {\n  }\n  return %0\n}\n"),
            "t.kir:2:25: op 'neg' has no subgraphs");
}

TEST(IrTextErrors, DeepNestingIsRefused) {
  std::string text = "graph @g(%p: bool[], %x: f32[4]) -> (f32[4]) {\n";
  for (int i = 0; i < 200; ++i)
    text += "%0 = cond(%p, %x) : f32[4] { true_fn = graph(%p: bool[], %x: f32[4]) -> (f32[4]) {\n";
  std::string msg = parse_error(text);
  EXPECT_NE(msg.find("subgraphs nested deeper than 64 levels"), std::string::npos) << msg;
}

// ---- the verifier on parsed and on hand-built graphs ----

TEST(IrVerifier, ResultTypeMismatchNamesTheNode) {
  auto g =
      parse_graphs("graph @g(%x: f32[4,4]) -> (f32[3,4]) {\n  %0 = add(%x, %x) : f32[3,4]\n  return %0\n}\n", "t.kir");
  ASSERT_FALSE(g.has_value());
  EXPECT_EQ(g.error().to_string(),
            "t.kir:2:3: error: add: result type f32[3,4] does not match inferred f32[4,4]\n"
            "  at %0 = add(%x, %x) : f32[3,4]");
}

TEST(IrVerifier, RuleErrorsCarryTheNodeLocation) {
  auto g = parse_graphs("graph @g(%x: f32[4], %y: f32[5]) -> (f32[4]) {\n  %0 = add(%x, %y) : f32[4]\n  return %0\n}\n",
                        "t.kir");
  ASSERT_FALSE(g.has_value());
  EXPECT_EQ(g.error().loc().to_string(), "t.kir:2:3");
  EXPECT_EQ(g.error().message().rfind("add", 0), 0u) << g.error().message();
}

TEST(IrVerifier, AcceptsWellFormedBuiltGraph) {
  Graph g("g");
  Value* x = g.add_input("x", {DType::F32, Shape{2, 3}});
  Node* n = g.append({OpKind::Sum, {x}, {{"dim", AttrValue::Ints{1}}, {"keepdim", true}}, {{DType::F32, Shape{2, 1}}}});
  g.set_outputs({n->result()});
  Status s = verify_graph(g);
  EXPECT_TRUE(s.is_ok()) << s.error().to_string();
}

TEST(IrVerifier, RejectsBadAttributesOperandsAndSubgraphs) {
  Graph g("g");
  Value* x = g.add_input("x", {DType::F32, Shape{2}});
  Node* n = g.append({OpKind::Sum, {x}, {{"keepdim", int64_t{1}}}, {{DType::F32, Shape{}}}});
  g.set_outputs({n->result()});
  Status s = verify_graph(g);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.error().message(), "attribute 'keepdim' of sum expects bool, got int");
  EXPECT_EQ(s.error().context(), "  at %0 = sum(%x) {keepdim=1} : f32[]");

  Graph h("h");
  Value* y = h.add_input("y", {DType::F32, Shape{2}});
  Node* m = h.append({OpKind::Neg, {Scalar(1.0)}, {}, {{DType::F32, Shape{2}}}});
  h.set_outputs({y, m->result()});
  s = verify_graph(h);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.error().message(), "literal operand not allowed for operand 'self' of neg (Tensor)");

  Graph c("c");
  Value* p = c.add_input("p", {DType::Bool, Shape{}});
  Node* k = c.append({OpKind::Cond, {p}, {}, {}});
  c.set_outputs({});
  (void)k;
  s = verify_graph(c);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.error().message(), "cond expects 2 subgraphs, got 0");
}

TEST(IrVerifier, RejectsUseBeforeDefinition) {
  Graph g("g");
  Value* x = g.add_input("x", {DType::F32, Shape{2}});
  Node* a = g.append({OpKind::Neg, {x}, {}, {{DType::F32, Shape{2}}}});
  Node* b = g.append({OpKind::Neg, {a->result()}, {}, {{DType::F32, Shape{2}}}});
  g.set_outputs({b->result()});
  g.move_before(b, a);
  Status s = verify_graph(g);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.error().message(), "neg: operand 0 is used before it is defined");
}

TEST(IrVerifier, ChecksSubgraphsRecursively) {
  Graph g("g");
  Value* p = g.add_input("p", {DType::Bool, Shape{}});
  Value* x = g.add_input("x", {DType::F32, Shape{4}});
  auto branch = [](bool wrong) {
    auto sg = std::make_unique<Graph>("fn");
    Value* a = sg->add_input("a", {DType::F32, Shape{4}});
    Node* n = sg->append({OpKind::Neg, {a}, {}, {{DType::F32, Shape{wrong ? 5 : 4}}}});
    sg->set_outputs({n->result()});
    return sg;
  };
  std::vector<std::unique_ptr<Graph>> subgraphs;
  subgraphs.push_back(branch(false));
  subgraphs.push_back(branch(true));
  Node* c = g.append({OpKind::Cond, {p, x}, {}, {{DType::F32, Shape{4}}}, std::move(subgraphs)});
  g.set_outputs({c->result()});
  Status s = verify_graph(g);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.error().message(), "neg: result type f32[5] does not match inferred f32[4]");
}

}  // namespace
}  // namespace kiln
