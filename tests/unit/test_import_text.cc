// Networks: transformers (import/convert_text.h, docs/IMPORT.md): archives of tiny modules
// with the mask, position and multi-result ops of the zoo's transformers
// (tests/import/make_pt2_archives.py: text_masks, text_splits, text_conv_inplace,
// text_loss, text_shift_right, text_core_attention and the core forms text_conv_core, text_loss_core,
// text_shift_right_core) match PyTorch in the
// interpreter and compiled for the CPU; _assert_tensor_metadata that disagrees with the
// graph is an error.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "backend/compile_graph.h"
#include "core/npy.h"
#include "core/tensor_compare.h"
#include "cpu_backend_util.h"
#include "import/convert_text.h"
#include "import/import_pt2.h"
#include "import_test_util.h"
#include "interp/interpreter.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "runtime/cpu/cpu_backend.h"
#include "support/error.h"

namespace kiln {
namespace {

using test::check_matches_pytorch;
using test::import_data_path;

TEST(ImportText, MasksAndPositionsMatchPyTorch) {
  SKIP_WITHOUT_PT2();
  std::string text = check_matches_pytorch("text_masks");
  // arange(n) became arange from 0 with the dtype PyTorch inferred; the comparisons, index
  // with two index tensors, masked_fill and where are kiln's own ops.
  EXPECT_NE(text.find("arange() {dtype=i64, end=5, start=0"), std::string::npos) << text;
  for (const char* op : {"le(", "index(", "masked_fill(", "where(", "tril(", "triu(", "cumsum(", "bitwise_and(", "any(",
                         "all(", "_to_copy("})
    EXPECT_NE(text.find(op), std::string::npos) << op << "\n" << text;
  EXPECT_EQ(text.find("assert"), std::string::npos) << text;
}

TEST(ImportText, SeveralResultsMatchPyTorch) {
  SKIP_WITHOUT_PT2();
  std::string text = check_matches_pytorch("text_splits");
  // split_with_sizes became three slices, unbind two selects; split and chunk are kiln's.
  EXPECT_NE(text.find("slice(%x) {dim=-1, end=10, start=5"), std::string::npos) << text;
  EXPECT_NE(text.find("select(%x) {dim=0, index=1}"), std::string::npos) << text;
  EXPECT_NE(text.find("split(%x)"), std::string::npos) << text;
  EXPECT_NE(text.find("chunk(%x)"), std::string::npos) << text;
}

TEST(ImportText, Conv1dAndInPlaceArithmeticMatchPyTorch) {
  SKIP_WITHOUT_PT2();
  std::string text = check_matches_pytorch("text_conv_inplace");
  // conv1d became conv2d on a height of 1; add_ and mul_ their out-of-place ops.
  EXPECT_NE(text.find("conv2d("), std::string::npos) << text;
  EXPECT_NE(text.find("{dilation=[1, 1], groups=2, padding=[0, 1], stride=[1, 2]}"), std::string::npos) << text;
  EXPECT_EQ(text.find("add_("), std::string::npos) << text;
  EXPECT_EQ(text.find("mul_("), std::string::npos) << text;
}

// The core form decomposes conv1d to convolution of a 3-D input (Whisper's encoder): conv2d on
// a height of 1 as conv1d is, where the vision pass would refuse a 1-D convolution.
TEST(ImportText, CoreFormConvolutionOfThreeDInputsMatchesPyTorch) {
  SKIP_WITHOUT_PT2();
  std::string text = check_matches_pytorch("text_conv_core");
  EXPECT_NE(text.find("conv2d("), std::string::npos) << text;
  EXPECT_NE(text.find("{dilation=[1, 1], groups=2, padding=[0, 1], stride=[1, 2]}"), std::string::npos) << text;
  EXPECT_EQ(text.find("convolution("), std::string::npos) << text;
}

// dropout in eval mode is its input, as PyTorch computes it: kept, it would sit between the
// softmax and the values' matmul, where the attention patterns do not look
// (lit cli/import_eager_attention.kir fuses this graph).
TEST(ImportText, EvalDropoutIsItsInput) {
  SKIP_WITHOUT_PT2();
  std::string text = check_matches_pytorch("text_eager_attention");
  EXPECT_EQ(text.find("dropout("), std::string::npos) << text;
  EXPECT_NE(text.find("= softmax("), std::string::npos) << text;
}

TEST(ImportText, TrainingLossMatchesPyTorch) {
  SKIP_WITHOUT_PT2();
  std::string text = check_matches_pytorch("text_loss");
  // pad became constant_pad_nd; cross_entropy_loss's reduction enum became its name.
  EXPECT_NE(text.find("constant_pad_nd(%labels) {pad=[0, 1], value=-100.0}"), std::string::npos) << text;
  EXPECT_NE(text.find("reduction=\"sum\""), std::string::npos) << text;
  EXPECT_NE(text.find("label_smoothing=0.1"), std::string::npos) << text;
}

TEST(ImportText, WritesThroughSlicesMatchPyTorch) {
  SKIP_WITHOUT_PT2();
  std::string text = check_matches_pytorch("text_shift_right");
  // copy_ into a slice and fill_ into a select of new_zeros became scatters into it.
  EXPECT_NE(text.find("slice_scatter("), std::string::npos) << text;
  EXPECT_NE(text.find("select_scatter("), std::string::npos) << text;
  EXPECT_NE(text.find("masked_fill("), std::string::npos) << text;
  EXPECT_EQ(text.find("fill_("), std::string::npos) << text;
}

TEST(ImportText, CoreFormViewOfTransposedAttentionMatchesPyTorch) {
  SKIP_WITHOUT_PT2();
  std::string text = check_matches_pytorch("text_core_attention");
  // PyTorch viewed the transpose of the CPU sdpa's [B,S,H,D]-strided result; kiln reshapes it.
  EXPECT_NE(text.find("= reshape(%"), std::string::npos) << text;
}

TEST(ImportText, CoreFormsOfLossAndShiftRightMatchPyTorch) {
  SKIP_WITHOUT_PT2();
  // nll_loss's reduction enum became its name; the functional copy its source.
  std::string loss = check_matches_pytorch("text_loss_core");
  EXPECT_NE(loss.find("nll_loss("), std::string::npos) << loss;
  EXPECT_NE(loss.find("nll_loss(%10, %9, none) {reduction=\"sum\"}"), std::string::npos) << loss;
  std::string shift = check_matches_pytorch("text_shift_right_core");
  EXPECT_EQ(shift.find("copy"), std::string::npos) << shift;
  EXPECT_NE(shift.find("slice_scatter("), std::string::npos) << shift;
}

pt2::Argument tensor(const std::string& name) {
  pt2::Argument a;
  a.kind = pt2::Argument::Kind::Tensor;
  a.names = {name};
  return a;
}

pt2::Node node(const std::string& target, std::vector<pt2::NamedArgument> inputs, const std::string& result) {
  pt2::Node n;
  n.target = "torch.ops.aten." + target;
  n.name = result;
  n.inputs = std::move(inputs);
  n.outputs = {tensor(result)};
  return n;
}

TEST(ImportText, InPlaceWritesThroughViewsOrToInputsAreErrors) {
  pt2::Argument dim;
  dim.kind = pt2::Argument::Kind::Int;
  dim.ints = {0};
  pt2::Program through_view;
  through_view.nodes = {node("unsqueeze.default", {{"self", tensor("x")}, {"dim", dim}}, "u"),
                        node("add_.Tensor", {{"self", tensor("u")}, {"other", tensor("x")}}, "add_")};
  Expected<pt2::Program> e = pt2::convert_text_nodes(through_view);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message().find("node %add_ (aten.add_.Tensor): it writes in place to 'u', a view made by "
                                     "aten.unsqueeze.default"),
            std::string::npos)
      << e.error().message();
  pt2::Program to_input;
  to_input.nodes = {node("mul_.Tensor", {{"self", tensor("x")}, {"other", tensor("x")}}, "mul_")};
  e = pt2::convert_text_nodes(to_input);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message().find("it writes in place to the graph input 'x'"), std::string::npos)
      << e.error().message();
  // A write through one slice while another view of the same base is read later.
  pt2::Argument one;
  one.kind = pt2::Argument::Kind::Int;
  one.ints = {1};
  pt2::Program two_views;
  two_views.tensor_values["s"] = pt2::TensorMeta{7, {{2, ""}}, {{1, ""}}, {0, ""}};
  two_views.nodes = {node("mul.Tensor", {{"self", tensor("x")}, {"other", tensor("x")}}, "m"),
                     node("slice.Tensor", {{"self", tensor("m")}, {"dim", dim}, {"end", one}}, "s"),
                     node("select.int", {{"self", tensor("m")}, {"dim", dim}, {"index", one}}, "v"),
                     node("fill_.Scalar", {{"self", tensor("s")}, {"value", one}}, "fill_"),
                     node("neg.default", {{"self", tensor("v")}}, "n")};
  e = pt2::convert_text_nodes(two_views);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message().find("a view of 'm', and 'v', another view of it, is read later"), std::string::npos)
      << e.error().message();
  // A write to a value whose view is read later (the view would see the write).
  pt2::Program base_written;
  base_written.nodes = {node("mul.Tensor", {{"self", tensor("x")}, {"other", tensor("x")}}, "m"),
                        node("select.int", {{"self", tensor("m")}, {"dim", dim}, {"index", one}}, "v"),
                        node("add_.Tensor", {{"self", tensor("m")}, {"other", tensor("x")}}, "add_"),
                        node("neg.default", {{"self", tensor("v")}}, "n")};
  e = pt2::convert_text_nodes(base_written);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message().find("it writes in place to 'm', and 'v', a view of it, is read later"),
            std::string::npos)
      << e.error().message();
  // On a fresh value, later uses read the written result.
  pt2::Program fresh;
  fresh.nodes = {node("mul.Tensor", {{"self", tensor("x")}, {"other", tensor("x")}}, "m"),
                 node("add_.Tensor", {{"self", tensor("m")}, {"other", tensor("x")}}, "add_"),
                 node("neg.default", {{"self", tensor("m")}}, "n")};
  Expected<pt2::Program> ok = pt2::convert_text_nodes(fresh);
  ASSERT_TRUE(ok) << ok.error().to_string();
  EXPECT_EQ(ok->nodes[1].target, "torch.ops.aten.add.Tensor");
  EXPECT_EQ(*ok->nodes[2].inputs[0].arg.names[0], "add_");
}

// A program of one user input `x` (f32[2,3]) and one _assert_tensor_metadata node on it with
// the dtype code `dtype` and sizes `sizes`.
pt2::Program asserting(int dtype, std::vector<int64_t> sizes) {
  pt2::Program p;
  p.inputs = {"x"};
  p.tensor_values["x"] = pt2::TensorMeta{7, {{2, ""}, {3, ""}}, {{3, ""}, {1, ""}}, {0, ""}};
  pt2::Node n;
  n.target = "torch.ops.aten._assert_tensor_metadata.default";
  n.name = "_assert_tensor_metadata_default";
  pt2::Argument a;
  a.kind = pt2::Argument::Kind::Tensor;
  a.names = {"x"};
  pt2::Argument d;
  d.kind = pt2::Argument::Kind::ScalarType;
  d.ints = {dtype};
  pt2::Argument s;
  s.kind = pt2::Argument::Kind::Ints;
  s.ints = std::move(sizes);
  n.inputs = {{"a", a}, {"dtype", d}, {"size", s}};
  p.nodes.push_back(n);
  return p;
}

TEST(ImportText, AssertedMetadataIsCheckedThenDropped) {
  Expected<pt2::Program> ok = pt2::convert_text_nodes(asserting(7, {2, 3}));
  ASSERT_TRUE(ok) << ok.error().to_string();
  EXPECT_TRUE(ok->nodes.empty());
  Expected<pt2::Program> wrong_dtype = pt2::convert_text_nodes(asserting(5, {2, 3}));
  ASSERT_FALSE(wrong_dtype);
  EXPECT_NE(wrong_dtype.error().message().find("it asserts that 'x' is int64 (5) but the graph records float32 (7)"),
            std::string::npos)
      << wrong_dtype.error().message();
  Expected<pt2::Program> wrong_sizes = pt2::convert_text_nodes(asserting(7, {3, 2}));
  ASSERT_FALSE(wrong_sizes);
  EXPECT_NE(wrong_sizes.error().message().find("differ from the recorded [2,3]"), std::string::npos)
      << wrong_sizes.error().message();
}

}  // namespace
}  // namespace kiln
