// The misc ops of issue 21's import (src/import/convert_misc.cc, the "misc ops" rows of
// aten_op_table.cc) and writes through a chain of slices (convert_text.cc): archives of tiny
// modules (tests/import/make_pt2_archives.py, save_misc) against PyTorch's outputs in the
// interpreter and compiled for the CPU.
#include <gtest/gtest.h>

#include <string>

#include "import/convert_misc.h"
#include "import/import_pt2.h"
#include "import_test_util.h"

namespace kiln {
namespace {

using test::check_matches_pytorch;
using test::import_data_path;

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(ImportMisc, UpsampleBilinearMatchesPyTorch) {
  SKIP_WITHOUT_PT2();
  // .vec by size and by scale factors (scales_h/scales_w), .default with output_size beside
  // its scales: each one upsample_bilinear2d node.
  const std::string text = check_matches_pytorch("upsample");
  EXPECT_TRUE(has(text, "upsample_bilinear2d(%x) {align_corners=false, output_size=[7, 5]}")) << text;
  EXPECT_TRUE(has(text, "{align_corners=true, output_size=none, scales_h=2.0, scales_w=1.5}")) << text;
  EXPECT_TRUE(has(text, "{align_corners=false, output_size=[5, 6], scales_h=1.7, scales_w=2.3}")) << text;
  EXPECT_TRUE(has(check_matches_pytorch("upsample_core"), "upsample_bilinear2d(")) << text;
}

TEST(ImportMisc, MoeOpsMatchPyTorch) {
  SKIP_WITHOUT_PT2();
  // floor_divide as div(rounding_mode="floor"), empty_like/empty_permuted as empty (then
  // fill_ as full_like), repeat_interleave as unsqueeze-expand-reshape, index_put_ as index_put.
  const std::string text = check_matches_pytorch("misc_ops");
  for (const char* op : {"rounding_mode=\"floor\"", "empty(", "expand(", "index_put(", "accumulate=true"})
    EXPECT_TRUE(has(text, op)) << op << "\n" << text;
  for (const char* op : {"index_put_(", "repeat_interleave", "floor_divide"}) EXPECT_FALSE(has(text, op)) << op;
  // The core form: empty_permuted, full_like, the functional index_put.
  EXPECT_TRUE(has(check_matches_pytorch("misc_ops_core"), "index_put("));
}

TEST(ImportMisc, FillThroughSliceOfSliceMatchesPyTorch) {
  SKIP_WITHOUT_PT2();
  // swin_t's mask: nine fill_ through a slice of a slice of new_zeros, each written back by a
  // slice_scatter per level.
  const std::string text = check_matches_pytorch("slice_of_slice_fill");
  EXPECT_TRUE(has(text, "slice_scatter(")) << text;
  EXPECT_FALSE(has(text, "fill_(")) << text;
}

TEST(ImportMisc, SliceOfSliceReadAfterTheWriteIsRefused) {
  SKIP_WITHOUT_PT2();
  Expected<ImportedProgram> m = import_pt2(import_data_path("slice_of_slice_read_later.pt2"));
  ASSERT_FALSE(m);
  EXPECT_TRUE(has(m.error().message(), "another view of it, is read later; kiln does not import that"))
      << m.error().message();
}

pt2::Argument tensor_arg(const std::string& name) {
  pt2::Argument a;
  a.kind = pt2::Argument::Kind::Tensor;
  a.names = {name};
  return a;
}

// One node `target` of `inputs` with the result `out` (f32[2]); its conversion's error message.
std::string misc_error(const std::string& target, std::vector<pt2::NamedArgument> inputs) {
  pt2::Program p;
  pt2::Node n;
  n.target = target;
  n.name = "out";
  n.inputs = std::move(inputs);
  n.outputs = {tensor_arg("out")};
  pt2::TensorMeta meta;
  meta.dtype = 7;
  meta.sizes = {pt2::SymSize{2, ""}};
  p.tensor_values["x"] = meta;
  p.tensor_values["out"] = meta;
  p.nodes = {n};
  Expected<pt2::Program> r = pt2::convert_misc_nodes(p);
  return r ? "" : r.error().message();
}

TEST(ImportMisc, MalformedMiscNodesAreErrors) {
  pt2::Argument scales;
  scales.kind = pt2::Argument::Kind::Floats;
  scales.floats = {2.0, 2.0, 2.0};
  EXPECT_EQ(
      misc_error("torch.ops.aten.upsample_bilinear2d.vec", {{"input", tensor_arg("x")}, {"scale_factors", scales}}),
      "node %out (aten.upsample_bilinear2d.vec): argument 'scale_factors' is not a list of 2 floats");
  pt2::Argument repeats;
  repeats.kind = pt2::Argument::Kind::Int;
  repeats.ints = {-1};
  EXPECT_EQ(misc_error("torch.ops.aten.repeat_interleave.self_int", {{"self", tensor_arg("x")}, {"repeats", repeats}}),
            "node %out (aten.repeat_interleave.self_int): repeats can not be negative, got -1");
  repeats.symbolic = true;
  EXPECT_EQ(misc_error("torch.ops.aten.repeat_interleave.self_int", {{"self", tensor_arg("x")}, {"repeats", repeats}}),
            "node %out (aten.repeat_interleave.self_int): argument 'repeats' is not a static int");
  pt2::Argument dim;
  dim.kind = pt2::Argument::Kind::Int;
  dim.ints = {3};
  repeats.symbolic = false;
  repeats.ints = {2};
  EXPECT_EQ(misc_error("torch.ops.aten.repeat_interleave.self_int",
                       {{"self", tensor_arg("x")}, {"repeats", repeats}, {"dim", dim}}),
            "node %out (aten.repeat_interleave.self_int): dim 3 is out of range for rank 1");
}

}  // namespace
}  // namespace kiln
