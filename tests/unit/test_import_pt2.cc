// kiln::import_pt2 (import/import_pt2.h, docs/IMPORT.md) on archives that PyTorch 2.15's
// torch.export.save wrote (tests/import/make_pt2_archives.py; committed under
// tests/import/data with each model's inputs and PyTorch's output): the imported graphs match
// PyTorch in the interpreter and compiled for the CPU, shared storages stay shared, and every
// malformed archive is a clear error. Without the .pt2 reader (no libzip or nlohmann-json at
// configure time) the archive tests skip with the error that says so.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "backend/compile_graph.h"
#include "core/npy.h"
#include "core/tensor_compare.h"
#include "cpu_backend_util.h"
#include "import/aten_op_table.h"
#include "import/import_pt2.h"
#include "import_test_util.h"
#include "interp/interpreter.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ops/op_info.h"
#include "runtime/cpu/cpu_backend.h"
#include "test_files.h"

#ifdef KILN_HAVE_PT2
#include <zip.h>
#endif

namespace kiln {
namespace {

using test::check_matches_pytorch;
using test::expect_matches_pytorch;
using test::import_data_path;

ImportedProgram import_ok(const std::string& file) {
  Expected<ImportedProgram> m = import_pt2(import_data_path(file));
  if (!m) ADD_FAILURE() << m.error().to_string();
  return m ? std::move(*m) : ImportedProgram{};
}

// The message import_pt2 gives for `path`, which must fail.
std::string import_error(const std::string& path) {
  Expected<ImportedProgram> m = import_pt2(path);
  if (m) {
    ADD_FAILURE() << path << " imported, expected an error";
    return "";
  }
  return m.error().message();
}

TEST(ImportPt2, MlpMatchesPyTorch) {
  SKIP_WITHOUT_PT2();
  check_matches_pytorch("mlp");
  ImportedProgram m = import_ok("mlp.pt2");
  // Parameters are param inputs carrying their tensors; the user input keeps its name.
  const std::string head =
      "graph @mlp(%l1.weight: param f32[8,4], %l1.bias: param f32[8], %l2.weight: param f32[3,8], %l2.bias: param "
      "f32[3], %x: f32[2,4]) -> (f32[2,3]) {";
  EXPECT_EQ(print_graph(*m.graph).substr(0, head.size()), head);
  EXPECT_EQ(m.weights.size(), 4u);
  EXPECT_EQ(m.user_inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(m.user_outputs, std::vector<std::string>{"linear_1"});
}

TEST(ImportPt2, BlockMatchesPyTorch) {
  SKIP_WITHOUT_PT2();
  check_matches_pytorch("block");
  // The buffer is a buffer input; gelu's approximate="tanh" became the attribute.
  ImportedProgram m = import_ok("block.pt2");
  std::string text = print_graph(*m.graph);
  EXPECT_NE(text.find("%scale: buffer f32[8]"), std::string::npos) << text;
  EXPECT_NE(text.find("gelu(%"), std::string::npos) << text;
  EXPECT_NE(text.find("{approximate=\"tanh\"}"), std::string::npos) << text;
  EXPECT_NE(text.find("layer_norm("), std::string::npos) << text;
  EXPECT_NE(text.find("softmax("), std::string::npos) << text;
}

TEST(ImportPt2, RestOfTheOpTableMatchesPyTorch) {
  SKIP_WITHOUT_PT2();
  check_matches_pytorch("ops");
  ImportedProgram m = import_ok("ops.pt2");
  EXPECT_EQ(m.user_inputs, (std::vector<std::string>{"idx", "x"}));
  std::string text = print_graph(*m.graph);
  // squeeze.dim's int became squeeze's int[]; sdpa's enable_gqa and embedding's
  // scale_grad_by_freq/sparse were dropped at their defaults; dropout in eval mode is its input.
  EXPECT_NE(text.find("= squeeze(%23) {dim=[0]} : f32[6,16]"), std::string::npos) << text;
  EXPECT_EQ(text.find("dropout("), std::string::npos) << text;
  EXPECT_NE(text.find("scaled_dot_product_attention(%3, %3, %3, none) {dropout_p=0.0, is_causal=true}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("embedding(%emb.weight, %idx)"), std::string::npos) << text;
}

TEST(ImportPt2, CoreAtenFormMatchesPyTorch) {
  SKIP_WITHOUT_PT2();
  check_matches_pytorch("mlp_core");
  std::string text = print_graph(*import_ok("mlp_core.pt2").graph);
  EXPECT_NE(text.find("addmm("), std::string::npos) << text;
  EXPECT_NE(text.find("permute("), std::string::npos) << text;
}

TEST(ImportPt2, SharedStorageTiedWeightsAndConstants) {
  SKIP_WITHOUT_PT2();
  check_matches_pytorch("views");
  ImportedProgram m = import_ok("views.pt2");
  // a.weight and b.weight are one tensor: one input, the other recorded as tied to it.
  ASSERT_EQ(m.tied.size(), 1u);
  EXPECT_EQ(m.tied.begin()->first, "b.weight");
  EXPECT_EQ(m.tied.begin()->second, "a.weight");
  EXPECT_EQ(m.weights.count("b.weight"), 0u);
  // c is base.t() (non-contiguous); d views the same storage at an offset.
  const Tensor& c = m.weights.at("c");
  const Tensor& d = m.weights.at("d");
  EXPECT_EQ(c.strides(), (std::vector<int64_t>{1, 6}));
  EXPECT_EQ(d.offset(), 8);
  EXPECT_EQ(c.storage(), d.storage());
  // The lifted constant and the non-persistent buffer are buffer inputs too.
  EXPECT_EQ(m.weights.count("k"), 1u);
  EXPECT_EQ(m.weights.count("nb"), 1u);
  // clamp's min was the JSON string "-Infinity".
  EXPECT_NE(print_graph(*m.graph).find("clamp(%x) {max=1.0, min=-inf}"), std::string::npos) << print_graph(*m.graph);
}

TEST(ImportPt2, GraphTextParsesBack) {
  SKIP_WITHOUT_PT2();
  for (const char* name : {"mlp.pt2", "block.pt2", "views.pt2", "ops.pt2", "mlp_core.pt2"}) {
    ImportedProgram m = import_ok(name);
    ASSERT_TRUE(m.graph);
    std::string text = print_graph(*m.graph);
    Expected<std::unique_ptr<Graph>> parsed = parse_graph(text, name);
    ASSERT_TRUE(parsed) << parsed.error().to_string() << "\n" << text;
    EXPECT_EQ(print_graph(**parsed), text);
  }
}

TEST(ImportPt2, UnsupportedOpsAreListedTogetherWithSourceLines) {
  SKIP_WITHOUT_PT2();
  std::string e = import_error(import_data_path("unsupported.pt2"));
  EXPECT_NE(e.find("2 nodes whose ops kiln does not import yet"), std::string::npos) << e;
  EXPECT_NE(e.find("aten.cummax.default (%cummax) at "), std::string::npos) << e;
  EXPECT_NE(e.find("aten.kthvalue.default (%kthvalue) at "), std::string::npos) << e;
  EXPECT_NE(e.find("make_pt2_archives.py:"), std::string::npos) << e;
  EXPECT_NE(e.find("torch.kthvalue(y, 2)"), std::string::npos) << e;
  EXPECT_EQ(e.find("relu"), std::string::npos) << e;
}

// ---- Networks: vision (convert_vision.cc and the vision rows) ----

TEST(ImportPt2, VisionOpsMatchPyTorch) {
  SKIP_WITHOUT_PT2();
  check_matches_pytorch("vision");
  std::string text = print_graph(*import_ok("vision.pt2").graph);
  // The in-place ops became functional; relu6 is hardtanh(0, 6); hardswish a composition;
  // dropout_ in eval mode is its input.
  for (const char* op : {"conv2d(", "batch_norm(", "max_pool2d(", "avg_pool2d(", "adaptive_avg_pool2d(", "relu(",
                         "silu(", "{max_val=6.0, min_val=0.0}"})
    EXPECT_NE(text.find(op), std::string::npos) << op << "\n" << text;
  EXPECT_EQ(text.find("relu_("), std::string::npos) << text;
  EXPECT_EQ(text.find("dropout"), std::string::npos) << text;
}

TEST(ImportPt2, VisionCoreFormMatchesPyTorch) {
  SKIP_WITHOUT_PT2();
  // convolution, _native_batch_norm_legit_no_training and max_pool2d_with_indices, each of
  // whose extra results is unused.
  check_matches_pytorch("vision_core");
  std::string text = print_graph(*import_ok("vision_core.pt2").graph);
  EXPECT_NE(text.find("conv2d("), std::string::npos) << text;
  EXPECT_NE(text.find("batch_norm("), std::string::npos) << text;
  EXPECT_NE(text.find("max_pool2d("), std::string::npos) << text;
}

TEST(ImportPt2, SeveralResultsMatchPyTorch) {
  SKIP_WITHOUT_PT2();
  // chunk, split and select by their rows; unbind as selects and split_with_sizes as slices
  // (convert_text.cc), unflatten as a reshape (convert_vision.cc), each result bound to its piece.
  check_matches_pytorch("pieces");
  check_matches_pytorch("pieces_core");
  std::string text = print_graph(*import_ok("pieces.pt2").graph);
  for (const char* op : {"chunk(", "split(", "select(", "slice(", "reshape(", "roll("})
    EXPECT_NE(text.find(op), std::string::npos) << op << "\n" << text;
}

TEST(ImportPt2, MixtureOfExpertsOpsMatchPyTorch) {
  SKIP_WITHOUT_PT2();
  // A router's topk, sort (default and stable overloads) and histc, in both forms; the
  // indices are compared as floats in the one concatenated output.
  check_matches_pytorch("moe_routing");
  check_matches_pytorch("moe_routing_core");
  std::string text = print_graph(*import_ok("moe_routing.pt2").graph);
  for (const char* op : {"= topk(", "{dim=0, k=3, largest=false}", "= sort(", "{descending=true, dim=0, stable=true}",
                         "histc(%", "{bins=4, max=3, min=0}"})
    EXPECT_NE(text.find(op), std::string::npos) << op << "\n" << text;
}

TEST(ImportPt2, GroupedMmFallbackMatchesPyTorch) {
  SKIP_WITHOUT_PT2();
  // transformers' custom op: a row's expert counted from offs, its matrix indexed, the rows
  // past the last group (expert 4, outside histc's range) 0, an empty group skipped.
  check_matches_pytorch("moe_grouped_mm");
  std::string text = print_graph(*import_ok("moe_grouped_mm.pt2").graph);
  for (const char* op : {"= ge(", "= index(%weight", "= bmm(", "= where("})
    EXPECT_NE(text.find(op), std::string::npos) << op << "\n" << text;
  EXPECT_EQ(text.find("grouped_mm_fallback"), std::string::npos) << text;
}

TEST(ImportPt2, MoeDispatchMatchesPyTorch) {
  SKIP_WITHOUT_PT2();
  // The slots ordered by expert: the inverse permutation written in place into an empty_like
  // buffer (index_put_; the core form's empty_permuted and index_put), tokens by floor_divide.
  // convert_misc.h makes empty_like an empty and floor_divide a floor division; convert_text.h
  // makes the in-place index_put_ into a fresh buffer the functional index_put.
  check_matches_pytorch("moe_dispatch");
  check_matches_pytorch("moe_dispatch_core");
  std::string text = print_graph(*import_ok("moe_dispatch.pt2").graph);
  for (const char* op : {"= empty(", "= index_put(", "{rounding_mode=\"floor\"}"})
    EXPECT_NE(text.find(op), std::string::npos) << op << "\n" << text;
  text = print_graph(*import_ok("moe_dispatch_core.pt2").graph);
  for (const char* op : {"= empty(", "= index_put("}) EXPECT_NE(text.find(op), std::string::npos) << op << "\n" << text;
}

TEST(ImportPt2, InplaceOpWhoseInputIsReadLaterIsRefused) {
  SKIP_WITHOUT_PT2();
  std::string e = import_error(import_data_path("mutated_then_read.pt2"));
  EXPECT_NE(e.find("aten.relu_.default"), std::string::npos) << e;
  EXPECT_NE(e.find("a later node reads 'view' (which shares memory with 'mul') after this in-place op mutates it"),
            std::string::npos)
      << e;
}

TEST(ImportPt2, ConvolutionsKilnLacksAreRefused) {
  SKIP_WITHOUT_PT2();
  std::string e = import_error(import_data_path("conv_transpose_core.pt2"));
  EXPECT_NE(e.find("aten.convolution.default"), std::string::npos) << e;
  EXPECT_NE(e.find("a transposed convolution; kiln has no transposed convolution yet"), std::string::npos) << e;
  e = import_error(import_data_path("conv3d_core.pt2"));
  EXPECT_NE(e.find("a 5-D convolution; kiln imports 2-D convolutions (4-D input) only"), std::string::npos) << e;
  // conv1d's core form, a convolution of a 3-D input, imports as conv2d on a height of 1
  // (convert_text.cc; ImportText.CoreFormConvolutionOfThreeDInputsMatchesPyTorch compares it).
  Expected<ImportedProgram> m = import_pt2(import_data_path("conv1d_core.pt2"));
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_NE(print_graph(*m->graph).find("conv2d("), std::string::npos);
}

TEST(ImportPt2, MaxPoolIndicesInUseAreRefused) {
  SKIP_WITHOUT_PT2();
  std::string e = import_error(import_data_path("max_pool_indices.pt2"));
  EXPECT_NE(e.find("aten.max_pool2d_with_indices.default"), std::string::npos) << e;
  EXPECT_NE(e.find("its result 1 ('getitem_1') is used; kiln's max_pool2d has only the first result"),
            std::string::npos)
      << e;
}

TEST(ImportPt2, BatchNormUpdatingRunningStatisticsIsRefused) {
  SKIP_WITHOUT_PT2();
  // Imported as kiln's pure batch_norm, the buffers would silently keep their values.
  std::string e = import_error(import_data_path("training_batch_norm.pt2"));
  EXPECT_NE(e.find("aten.batch_norm.default"), std::string::npos) << e;
  EXPECT_NE(e.find("batch_norm in training mode also updates its running statistics in place, which kiln does not "
                   "import yet"),
            std::string::npos)
      << e;
}

// ---- malformed archives: one test per error ----

class MalformedPt2 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!pt2_import_available()) GTEST_SKIP() << import_pt2("x.pt2").error().message();
    ASSERT_FALSE(dir_.path().empty());
  }
  std::string path(const std::string& name) const { return dir_.path() + "/" + name; }
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
    return path(name);
  }
#ifdef KILN_HAVE_PT2
  // A copy of mlp.pt2 with `entry` (below its "mlp/" folder) replaced by `bytes`, or removed.
  std::string rewritten(const std::string& entry, std::optional<std::string> bytes) const {
    std::string out = path("rewritten.pt2");
    std::filesystem::copy_file(import_data_path("mlp.pt2"), out, std::filesystem::copy_options::overwrite_existing);
    int code = 0;
    zip_t* z = zip_open(out.c_str(), 0, &code);
    EXPECT_TRUE(z);
    zip_int64_t index = zip_name_locate(z, ("mlp/" + entry).c_str(), 0);
    EXPECT_GE(index, 0) << entry;
    if (bytes) {
      zip_source_t* s = zip_source_buffer(z, bytes->data(), bytes->size(), 0);
      EXPECT_EQ(zip_file_replace(z, static_cast<zip_uint64_t>(index), s, 0), 0);
      EXPECT_EQ(zip_set_file_compression(z, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0), 0);
    } else {
      EXPECT_EQ(zip_delete(z, static_cast<zip_uint64_t>(index)), 0);
    }
    EXPECT_EQ(zip_close(z), 0);  // the buffer must live until here
    return out;
  }
#endif
  TempDir dir_{"kiln-pt2"};
};

TEST_F(MalformedPt2, MissingFile) {
  std::string e = import_error(path("absent.pt2"));
  EXPECT_NE(e.find("absent.pt2: cannot open"), std::string::npos) << e;
}

TEST_F(MalformedPt2, NotAZip) {
  std::string e = import_error(write("text.pt2", "graph @g() -> () {\n  return\n}\n"));
  EXPECT_NE(e.find("not a .pt2 archive: not a zip file"), std::string::npos) << e;
}

TEST_F(MalformedPt2, Truncated) {
  std::string whole = test::read_file(import_data_path("mlp.pt2"));
  ASSERT_GT(whole.size(), 1000u);
  std::string e = import_error(write("cut.pt2", whole.substr(0, whole.size() / 2)));
  EXPECT_NE(e.find("truncated or damaged .pt2 archive"), std::string::npos) << e;
}

TEST_F(MalformedPt2, ZipWithoutArchiveFormat) {
#ifdef KILN_HAVE_PT2
  std::string e = import_error(rewritten("archive_format", std::nullopt));
  EXPECT_NE(e.find("no archive_format entry"), std::string::npos) << e;
#endif
}

TEST_F(MalformedPt2, WrongArchiveVersion) {
#ifdef KILN_HAVE_PT2
  std::string e = import_error(rewritten("archive_version", "7"));
  EXPECT_NE(e.find("archive version '7' is not supported (kiln reads version 0"), std::string::npos) << e;
#endif
}

TEST_F(MalformedPt2, WrongSchemaVersion) {
#ifdef KILN_HAVE_PT2
  std::string model = R"({"schema_version": {"major": 9, "minor": 1}, "graph_module": {}})";
  std::string e = import_error(rewritten("models/model.json", model));
  EXPECT_NE(e.find("models/model.json: schema_version: schema version 9.1 is not supported (kiln reads schema 8.x"),
            std::string::npos)
      << e;
#endif
}

TEST_F(MalformedPt2, CorruptJson) {
#ifdef KILN_HAVE_PT2
  std::string e = import_error(rewritten("models/model.json", R"({"schema_version": {"major": 8, )"));
  EXPECT_NE(e.find("mlp/models/model.json: corrupt JSON: "), std::string::npos) << e;
#endif
}

// Found by kiln_fuzz_pt2: nlohmann-json reports a number past double's range as out_of_range,
// not parse_error, and the reader let it escape.
TEST_F(MalformedPt2, JsonNumberPastDoubleRange) {
#ifdef KILN_HAVE_PT2
  std::string e = import_error(rewritten("models/model.json", R"({"schema_version": {"major": 8e999}})"));
  EXPECT_NE(e.find("mlp/models/model.json: corrupt JSON: [json.exception.out_of_range.406] number overflow parsing "
                   "'8e999'"),
            std::string::npos)
      << e;
#endif
}

TEST_F(MalformedPt2, JsonOfTheWrongShapeNamesThePath) {
#ifdef KILN_HAVE_PT2
  std::string e = import_error(rewritten(
      "models/model.json",
      R"({"schema_version": {"major": 8, "minor": 20}, "graph_module": {"graph": {"inputs": [], "outputs": [], "nodes": [{"target": 3}]}}})"));
  EXPECT_NE(e.find("graph_module.graph.nodes[0].target: expected a string, got number"), std::string::npos) << e;
#endif
}

TEST_F(MalformedPt2, MissingWeightEntry) {
#ifdef KILN_HAVE_PT2
  std::string e = import_error(rewritten("data/weights/weight_2", std::nullopt));
  EXPECT_NE(e.find("weight 'l2.weight': missing entry mlp/data/weights/weight_2"), std::string::npos) << e;
#endif
}

TEST_F(MalformedPt2, WeightOfTheWrongSize) {
#ifdef KILN_HAVE_PT2
  std::string e = import_error(rewritten("data/weights/weight_0", std::string(100, '\0')));
  EXPECT_NE(e.find("weight 'l1.weight': f32[8,4] at storage offset 0 does not fit entry mlp/data/weights/weight_0 "
                   "of 100 bytes"),
            std::string::npos)
      << e;
#endif
}

TEST(AtenOpTable, EveryRowNamesAKilnOpAndOnlyArgumentsItLacks) {
  for (const pt2::AtenOpMapping& row : pt2::aten_op_table()) {
    std::optional<OpKind> kind = op_from_name(row.kiln);
    ASSERT_TRUE(kind) << row.aten << " maps to " << row.kiln << ", not a kiln op";
    for (const pt2::DroppedArg& d : row.dropped)
      EXPECT_EQ(op_info(*kind).schema.find_arg(d.name), nullptr)
          << row.aten << ": kiln's " << row.kiln << " has '" << d.name << "', so it must not be dropped";
    EXPECT_EQ(pt2::find_aten_op(std::string("torch.ops.") + std::string(row.aten)), &row);
  }
  EXPECT_EQ(pt2::find_aten_op("aten.kthvalue.default"), nullptr);
}

}  // namespace
}  // namespace kiln
