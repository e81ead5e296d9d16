// The decompose pass: every decomposition, in each attribute variant, computes what the
// op's reference kernel computes (float64 within 1e-12, float32 within float tolerance), and
// the decomposed graphs differentiate to the same gradients as the composite ops.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "autograd/joint_graph.h"
#include "graph_text.h"
#include "interp/interpreter.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/decompose.h"

namespace kiln {
namespace {

// Inputs by name: "t*" are class targets in [0, 3), "m*" bool masks (about 70% true),
// "pos*" positive floats, other floating inputs standard normal.
std::vector<Tensor> make_inputs(const Graph& g, uint64_t seed) {
  std::vector<Tensor> out;
  for (int i = 0; i < g.num_inputs(); ++i) {
    const Value* in = g.input(i);
    const std::vector<int64_t> sizes = in->type().shape.sizes();
    const DType dt = in->type().dtype;
    const std::string& name = in->name();
    const uint64_t s = seed * 31 + static_cast<uint64_t>(i);
    if (dt == DType::Bool) {
      Tensor u = Tensor::rand(sizes, s, DType::F64);
      std::vector<int64_t> bits;
      for (int64_t k = 0; k < u.numel(); ++k) bits.push_back(u.item_double(k) < 0.7 ? 1 : 0);
      out.push_back(Tensor::from_ints(bits, sizes, DType::Bool));
    } else if (!is_floating(dt)) {
      out.push_back(Tensor::randint(0, 3, sizes, s, dt));
    } else if (name.rfind("pos", 0) == 0) {
      Tensor u = Tensor::rand(sizes, s, DType::F64);
      std::vector<double> v;
      for (int64_t k = 0; k < u.numel(); ++k) v.push_back(u.item_double(k) + 0.5);
      out.push_back(Tensor::from_doubles(v, sizes, dt));
    } else {
      out.push_back(Tensor::randn(sizes, s, dt));
    }
  }
  return out;
}

// Expects `got` to match `want` element by element (NaN matching NaN, infinities exact).
void expect_close(const Tensor& want, const Tensor& got, double tol, const std::string& what) {
  ASSERT_EQ(want.dtype(), got.dtype()) << what;
  ASSERT_EQ(want.sizes(), got.sizes()) << what;
  const Tensor w = want.contiguous(), g = got.contiguous();
  for (int64_t i = 0; i < w.numel(); ++i) {
    const double a = w.item_double(i), b = g.item_double(i);
    if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) {
      EXPECT_TRUE((std::isnan(a) && std::isnan(b)) || a == b) << what << ": element " << i << " " << a << " vs " << b;
      continue;
    }
    ASSERT_LE(std::fabs(a - b), tol * (std::fabs(a) + 1)) << what << ": element " << i << " " << a << " vs " << b;
  }
}

struct Case {
  std::string variant;  // names the attribute variant in failures
  std::string graph;    // one node of the op under test
};

// Interprets `text` before and after decomposing `op` alone; the op must be gone.
void check_case(OpKind op, const Case& c) {
  const std::string what = std::string(op_info(op).name()) + " [" + c.variant + "]";
  auto g = parse_or_fail(c.graph);
  ASSERT_TRUE(g) << what;
  auto d = g->clone();
  auto r = decompose(*d, {.ops = {op}});
  ASSERT_TRUE(r.has_value()) << what << ": " << r.error().to_string();
  EXPECT_GE(r->counters["rewrites"], 1) << what;
  Status v = verify_graph(*d);
  ASSERT_TRUE(v) << what << ": " << v.error().to_string() << "\n" << print_graph(*d);
  EXPECT_EQ(print_graph(*d).find(std::string(" ") + std::string(op_info(op).name()) + "("), std::string::npos)
      << what << " left in\n"
      << print_graph(*d);
  bool f32 = g->outputs()[0]->type().dtype == DType::F32;
  for (const Value* in : g->inputs()) f32 = f32 || in->type().dtype == DType::F32;
  for (uint64_t seed : {1, 2}) {
    const std::vector<Tensor> in = make_inputs(*g, seed);
    auto want = interpret(*g, in);
    auto got = interpret(*d, in);
    ASSERT_TRUE(want.has_value()) << what << ": " << want.error().to_string();
    ASSERT_TRUE(got.has_value()) << what << ": " << got.error().to_string() << "\n" << print_graph(*d);
    for (size_t i = 0; i < want->size(); ++i) expect_close((*want)[i], (*got)[i], f32 ? 2e-5 : 1e-12, what);
  }
}

std::string unary_graph(const std::string& dt, const std::string& node) {
  return "graph @g(%x: " + dt + "[3,5]) -> (" + dt + "[3,5]) {\n  %0 = " + node + " : " + dt + "[3,5]\n  return %0\n}";
}

TEST(Decompose, Activations) {
  for (std::string dt : {"f64", "f32"}) {
    check_case(OpKind::Gelu, {dt + " none", unary_graph(dt, "gelu(%x)")});
    check_case(OpKind::Gelu, {dt + " tanh", unary_graph(dt, "gelu(%x) {approximate=\"tanh\"}")});
    check_case(OpKind::Silu, {dt, unary_graph(dt, "silu(%x)")});
    check_case(OpKind::Softplus, {dt, unary_graph(dt, "softplus(%x)")});
    check_case(OpKind::Softplus, {dt + " beta threshold", unary_graph(dt, "softplus(%x) {beta=2, threshold=0.5}")});
    check_case(OpKind::Elu, {dt, unary_graph(dt, "elu(%x)")});
    check_case(OpKind::Elu, {dt + " scaled", unary_graph(dt, "elu(%x) {alpha=1.5, input_scale=0.5, scale=2.0}")});
    check_case(OpKind::LeakyRelu, {dt, unary_graph(dt, "leaky_relu(%x) {negative_slope=0.2}")});
    check_case(OpKind::Hardtanh, {dt, unary_graph(dt, "hardtanh(%x) {max_val=0.5, min_val=-0.25}")});
  }
  check_case(OpKind::Hardtanh, {"i64 default bounds", unary_graph("i64", "hardtanh(%x)")});
  check_case(OpKind::Hardtanh, {"i64 float bounds", unary_graph("i64", "hardtanh(%x) {max_val=1.5, min_val=0.5}")});
}

TEST(Decompose, SoftmaxAndReductions) {
  for (std::string dt : {"f64", "f32"}) {
    check_case(OpKind::Softmax, {dt + " dim 1", unary_graph(dt, "softmax(%x) {dim=1}")});
    check_case(OpKind::Softmax, {dt + " dim -2", unary_graph(dt, "softmax(%x) {dim=-2}")});
    check_case(OpKind::LogSoftmax, {dt, unary_graph(dt, "log_softmax(%x) {dim=1}")});
  }
  check_case(OpKind::Softmax, {"f32 to f64", R"(graph @g(%x: f32[3,5]) -> (f64[3,5]) {
  %0 = softmax(%x) {dim=1, dtype=f64} : f64[3,5]
  return %0
})"});
  check_case(OpKind::LogSoftmax, {"f64 to f32", R"(graph @g(%x: f64[3,5]) -> (f32[3,5]) {
  %0 = log_softmax(%x) {dim=0, dtype=f32} : f32[3,5]
  return %0
})"});
  check_case(OpKind::Softmax, {"-inf row", R"(graph @g(%x: f64[3,5], %m: bool[3,5]) -> (f64[3,5]) {
  %0 = masked_fill(%x, %m, -inf) : f64[3,5]
  %1 = softmax(%0) {dim=0} : f64[3,5]
  return %1
})"});
  for (auto [attrs, shape] : {std::pair{"dim=[1]", "2,4"}, {"dim=[0, -1], keepdim=true", "1,3,1"}, {"dim=[]", ""}}) {
    const std::string type = "f64[" + std::string(shape) + "]";
    check_case(OpKind::Logsumexp, {attrs, "graph @g(%x: f64[2,3,4]) -> (" + type + ") {\n  %0 = logsumexp(%x) {" +
                                              attrs + "} : " + type + "\n  return %0\n}"});
  }
  check_case(OpKind::Logsumexp, {"i64 input", R"(graph @g(%t: i64[2,3]) -> (f32[2]) {
  %0 = logsumexp(%t) {dim=[1]} : f32[2]
  return %0
})"});
  check_case(OpKind::Logsumexp, {"-inf and +inf groups", R"(graph @g(%x: f64[3,4], %m: bool[3,4]) -> (f64[3]) {
  %0 = masked_fill(%x, %m, -inf) : f64[3,4]
  %1 = logsumexp(%0) {dim=[1]} : f64[3]
  return %1
})"});
  for (OpKind op : {OpKind::Var, OpKind::Std}) {
    const std::string name(op_info(op).name());
    for (auto [attrs, shape] : {std::pair{"", "[]"},
                                {"{dim=[1]}", "[2,4]"},
                                {"{correction=0, dim=[0, 2], keepdim=true}", "[1,3,1]"},
                                {"{correction=2.5, dim=[-1]}", "[2,3]"},
                                {"{correction=5, dim=[2]}", "[2,3]"}}) {
      check_case(op, {attrs, "graph @g(%x: f64[2,3,4]) -> (f64" + std::string(shape) + ") {\n  %0 = " + name + "(%x) " +
                                 attrs + " : f64" + shape + "\n  return %0\n}"});
    }
  }
}

// A one-node graph: `inputs` (text of the signature), the node, its result type.
std::string node_graph(const std::string& inputs, const std::string& node, const std::string& type) {
  return "graph @g(" + inputs + ") -> (" + type + ") {\n  %0 = " + node + " : " + type + "\n  return %0\n}";
}

TEST(Decompose, Normalizations) {
  for (std::string dt : {"f64", "f32"}) {
    const std::string x = "%x: " + dt + "[2,3,4]", t = dt + "[2,3,4]";
    check_case(OpKind::LayerNorm, {dt + " plain", node_graph(x, "layer_norm(%x) {normalized_shape=[4]}", t)});
    check_case(OpKind::LayerNorm,
               {dt + " affine 2 dims", node_graph(x + ", %w: " + dt + "[3,4], %b: " + dt + "[3,4]",
                                                  "layer_norm(%x, %w, %b) {eps=0.1, normalized_shape=[3, 4]}", t)});
    check_case(OpKind::RmsNorm,
               {dt + " eps none", node_graph(x + ", %w: " + dt + "[4]", "rms_norm(%x, %w) {normalized_shape=[4]}", t)});
    check_case(OpKind::RmsNorm, {dt + " eps", node_graph(x, "rms_norm(%x) {eps=0.01, normalized_shape=[3, 4]}", t)});
    check_case(OpKind::GroupNorm,
               {dt + " affine", node_graph("%x: " + dt + "[2,4,3], %w: " + dt + "[4], %b: " + dt + "[4]",
                                           "group_norm(%x, %w, %b) {num_groups=2}", dt + "[2,4,3]")});
  }
  check_case(OpKind::LayerNorm,
             {"f32 input f64 weight",
              node_graph("%x: f32[2,4], %w: f64[4]", "layer_norm(%x, %w) {normalized_shape=[4]}", "f32[2,4]")});
  check_case(OpKind::GroupNorm,
             {"2-D, one group", node_graph("%x: f64[3,4]", "group_norm(%x) {eps=0.5, num_groups=1}", "f64[3,4]")});
  const std::string bn = "%x: f64[3,2,2,2], %w: f64[2], %b: f64[2], %rm: f64[2], %posv: f64[2]";
  check_case(OpKind::BatchNorm,
             {"eval affine", node_graph(bn, "batch_norm(%x, %w, %b, %rm, %posv) {eps=0.001}", "f64[3,2,2,2]")});
  check_case(OpKind::BatchNorm,
             {"eval no affine", node_graph(bn, "batch_norm(%x, none, none, %rm, %posv)", "f64[3,2,2,2]")});
  check_case(OpKind::BatchNorm,
             {"training", node_graph(bn, "batch_norm(%x, %w, %b, %rm, %posv) {training=true}", "f64[3,2,2,2]")});
  check_case(OpKind::BatchNorm,
             {"training 2-D no stats",
              node_graph("%x: f64[5,3]", "batch_norm(%x, none, none, none, none) {training=true}", "f64[5,3]")});
}

TEST(Decompose, Losses) {
  for (std::string dt : {"f64", "f32"}) {
    const std::string in = "%x: " + dt + "[4,3], %t: i64[4], %posw: " + dt + "[3]";
    for (std::string r : {"mean", "sum", "none"}) {
      const std::string type = r == "none" ? dt + "[4]" : dt + "[]";
      for (std::string w : {"none", "%posw"}) {
        const std::string args = "(%x, %t, " + w + ")";
        for (std::string extra : {"", ", ignore_index=1"}) {
          const std::string attrs = " {reduction=\"" + r + "\"" + extra + "}";
          check_case(OpKind::NllLoss,
                     {dt + " " + r + " w=" + w + extra, node_graph(in, "nll_loss" + args + attrs, type)});
          check_case(OpKind::CrossEntropy,
                     {dt + " " + r + " w=" + w + extra, node_graph(in, "cross_entropy" + args + attrs, type)});
          const std::string smooth = " {label_smoothing=0.2, reduction=\"" + r + "\"" + extra + "}";
          check_case(OpKind::CrossEntropy, {dt + " smoothed " + r + " w=" + w + extra,
                                            node_graph(in, "cross_entropy" + args + smooth, type)});
        }
        check_case(
            OpKind::CrossEntropy,
            {dt + " probabilities " + r + " w=" + w,
             node_graph("%x: " + dt + "[4,3], %p: " + dt + "[4,3], %posw: " + dt + "[3]",
                        "cross_entropy(%x, %p, " + w + ") {label_smoothing=0.1, reduction=\"" + r + "\"}", type)});
      }
      check_case(OpKind::MseLoss, {dt + " " + r, node_graph("%x: " + dt + "[4,3], %y: " + dt + "[3]",
                                                            "mse_loss(%x, %y) {reduction=\"" + r + "\"}",
                                                            r == "none" ? dt + "[4,3]" : dt + "[]")});
    }
  }
  check_case(OpKind::NllLoss, {"1-D input", node_graph("%x: f64[3], %t: i64[]", "nll_loss(%x, %t)", "f64[]")});
  check_case(OpKind::NllLoss, {"u8 target, all ignored",
                               node_graph("%x: f64[4,3], %t: u8[4]", "nll_loss(%x, %t) {ignore_index=-100}", "f64[]")});
  check_case(
      OpKind::CrossEntropy,
      {"spatial [N,C,K]", node_graph("%x: f64[2,3,5], %t: i64[2,5], %posw: f64[3]",
                                     "cross_entropy(%x, %t, %posw) {ignore_index=0, label_smoothing=0.3}", "f64[]")});
  check_case(
      OpKind::CrossEntropy,
      {"1-D smoothed", node_graph("%x: f64[3], %t: i64[]", "cross_entropy(%x, %t) {label_smoothing=0.5}", "f64[]")});
}

TEST(Decompose, LinearAndAttention) {
  for (std::string dt : {"f64", "f32"}) {
    check_case(OpKind::Linear,
               {dt + " bias", node_graph("%x: " + dt + "[2,3,4], %w: " + dt + "[5,4], %b: " + dt + "[5]",
                                         "linear(%x, %w, %b)", dt + "[2,3,5]")});
    check_case(OpKind::Addmm,
               {dt + " beta alpha", node_graph("%s: " + dt + "[5], %a: " + dt + "[3,4], %m: " + dt + "[4,5]",
                                               "addmm(%s, %a, %m) {alpha=0.5, beta=2}", dt + "[3,5]")});
  }
  check_case(OpKind::Linear,
             {"1-D weight, no bias", node_graph("%x: f64[3,4], %w: f64[4]", "linear(%x, %w)", "f64[3]")});
  check_case(OpKind::Addmm,
             {"defaults", node_graph("%s: f64[3,5], %a: f64[3,4], %m: f64[4,5]", "addmm(%s, %a, %m)", "f64[3,5]")});
  check_case(OpKind::Addmm, {"beta 0 drops inf", R"(graph @g(%a: f64[3,4], %m: f64[4,5]) -> (f64[3,5]) {
  %0 = full() {dtype=f64, fill_value=inf, size=[3, 5]} : f64[3,5]
  %1 = addmm(%0, %a, %m) {beta=0} : f64[3,5]
  return %1
})"});
  check_case(OpKind::Addmm, {"i64 float scalars", node_graph("%s: i64[3,5], %a: i64[3,4], %m: i64[4,5]",
                                                             "addmm(%s, %a, %m) {alpha=2.5, beta=3}", "i64[3,5]")});
  const std::string qkv = "%q: f64[2,4,8], %k: f64[2,6,8], %v: f64[2,6,3]";
  check_case(OpKind::ScaledDotProductAttention,
             {"plain", node_graph(qkv, "scaled_dot_product_attention(%q, %k, %v)", "f64[2,4,3]")});
  check_case(OpKind::ScaledDotProductAttention,
             {"causal scale",
              node_graph(qkv, "scaled_dot_product_attention(%q, %k, %v) {is_causal=true, scale=0.3}", "f64[2,4,3]")});
  check_case(OpKind::ScaledDotProductAttention,
             {"bool mask (some rows fully masked)",
              node_graph(qkv + ", %m: bool[4,6]", "scaled_dot_product_attention(%q, %k, %v, %m)", "f64[2,4,3]")});
  check_case(OpKind::ScaledDotProductAttention,
             {"float mask",
              node_graph(qkv + ", %mf: f64[2,1,6]", "scaled_dot_product_attention(%q, %k, %v, %mf)", "f64[2,4,3]")});
  check_case(
      OpKind::ScaledDotProductAttention,
      {"dropout", node_graph(qkv, "scaled_dot_product_attention(%q, %k, %v) {dropout_p=0.4, seed=7}", "f64[2,4,3]")});
  check_case(
      OpKind::ScaledDotProductAttention,
      {"dropout, v broadcasts the batch",
       node_graph("%q: f64[4,8], %k: f64[6,8], %v: f64[2,6,3]",
                  "scaled_dot_product_attention(%q, %k, %v) {dropout_p=0.5, is_causal=true, seed=3}", "f64[2,4,3]")});
  check_case(OpKind::ScaledDotProductAttention,
             {"f32 dropout 1", node_graph("%q: f32[2,4,8], %k: f32[2,6,8], %v: f32[2,6,3]",
                                          "scaled_dot_product_attention(%q, %k, %v) {dropout_p=1.0}", "f32[2,4,3]")});
}

// conv2d as im2col and one matmul per group: every stride, padding, dilation and groups
// combination the kernel takes, a 1x1 kernel, an unbatched input, with and without a bias.
TEST(Decompose, Convolutions) {
  struct Conv {
    std::string variant, x, w, bias, attrs, type;
  };
  const std::vector<Conv> convs = {
      {"3x3", "[2,3,6,6]", "[4,3,3,3]", "[4]", "", "[2,4,4,4]"},
      {"1x1", "[2,5,4,3]", "[6,5,1,1]", "", "", "[2,6,4,3]"},
      {"stride padding", "[2,3,7,6]", "[4,3,3,2]", "[4]", "{padding=[1, 2], stride=[2, 3]}", "[2,4,4,3]"},
      {"dilation", "[1,2,7,7]", "[3,2,3,3]", "", "{dilation=[2, 1], padding=[1]}", "[1,3,5,7]"},
      {"groups", "[2,4,5,5]", "[6,2,3,3]", "[6]", "{groups=2, padding=[1]}", "[2,6,5,5]"},
      {"depthwise strided dilated", "[2,3,9,8]", "[3,1,2,3]", "[3]",
       "{dilation=[2, 2], groups=3, padding=[1, 0], stride=[2]}", "[2,3,5,2]"},
      {"unbatched", "[3,5,5]", "[2,3,2,2]", "[2]", "{stride=[2]}", "[2,2,2]"},
  };
  for (std::string dt : {"f64", "f32"})
    for (const Conv& c : convs) {
      const bool bias = !c.bias.empty();
      check_case(
          OpKind::Conv2d,
          {dt + " " + c.variant,
           node_graph("%x: " + dt + c.x + ", %w: " + dt + c.w + (bias ? ", %b: " + dt + c.bias : ""),
                      std::string("conv2d(%x, %w") + (bias ? ", %b)" : ")") + (c.attrs.empty() ? "" : " ") + c.attrs,
                      dt + c.type)});
    }
}

// A graph of one two-result node (topk or sort) over %x, returning both results.
std::string pair_graph(const std::string& inputs, const std::string& pre, const std::string& node,
                       const std::string& values, const std::string& indices) {
  return "graph @g(" + inputs + ") -> (" + values + ", " + indices + ") {\n" + pre + "  %0, %1 = " + node + " : (" +
         values + ", " + indices + ")\n  return %0, %1\n}";
}

// topk and sort on lines with ties (i64 and bool draws of 0 to 2), NaN and -inf (masked fills
// of a normal draw), every direction and dim; histc over given ranges and an empty input. The
// decomposition must give the kernel's exact values and indices.
TEST(Decompose, OrderingAndHistogram) {
  const std::string nan_pre =
      "  %n = masked_fill(%x, %m, nan) : f64[4,6]\n  %a = masked_fill(%n, %q, -inf) : f64[4,6]\n";
  for (std::string dir : {"true", "false"}) {
    for (std::string dt : {"f64", "f32", "i64", "bool"}) {
      const std::string x = "%x: " + dt + "[4,6]";
      check_case(OpKind::Sort, {dt + " descending=" + dir,
                                pair_graph(x, "", "sort(%x) {descending=" + dir + "}", dt + "[4,6]", "i64[4,6]")});
      check_case(OpKind::Sort, {dt + " dim 0 " + dir, pair_graph(x, "", "sort(%x) {descending=" + dir + ", dim=0}",
                                                                 dt + "[4,6]", "i64[4,6]")});
      if (dt == "bool") continue;
      check_case(OpKind::Topk, {dt + " k=3 largest=" + dir,
                                pair_graph(x, "", "topk(%x) {k=3, largest=" + dir + "}", dt + "[4,3]", "i64[4,3]")});
      check_case(OpKind::Topk,
                 {dt + " k=6 dim 1 " + dir,
                  pair_graph(x, "", "topk(%x) {dim=1, k=6, largest=" + dir + "}", dt + "[4,6]", "i64[4,6]")});
      check_case(OpKind::Topk,
                 {dt + " k=0 dim -2 " + dir,
                  pair_graph(x, "", "topk(%x) {dim=-2, k=0, largest=" + dir + "}", dt + "[0,6]", "i64[0,6]")});
    }
    const std::string masked = "%x: f64[4,6], %m: bool[4,6], %q: bool[4,6]";
    check_case(OpKind::Sort, {"nan and -inf " + dir, pair_graph(masked, nan_pre, "sort(%a) {descending=" + dir + "}",
                                                                "f64[4,6]", "i64[4,6]")});
    check_case(OpKind::Topk, {"nan and -inf " + dir, pair_graph(masked, nan_pre, "topk(%a) {k=4, largest=" + dir + "}",
                                                                "f64[4,4]", "i64[4,4]")});
  }
  for (std::string dt : {"f64", "f32", "f16"}) {
    const std::string x = "%x: " + dt + "[3,7]";
    check_case(OpKind::Histc, {dt + " range", node_graph(x, "histc(%x) {bins=5, max=1.5, min=-1.1}", dt + "[5]")});
  }
  // Elements on the edges: randint draws 0, 1 and 2; max=2 puts the 2s in the last bin.
  check_case(OpKind::Histc, {"edges", R"(graph @g(%t: i64[5,4]) -> (f32[3]) {
  %0 = _to_copy(%t) {dtype=f32} : f32[5,4]
  %1 = histc(%0) {bins=3, max=2, min=0} : f32[3]
  return %1
})"});
  check_case(OpKind::Histc, {"empty", node_graph("%x: f32[0,3]", "histc(%x) {bins=3}", "f32[3]")});
}

TEST(Decompose, Upsample) {
  struct Up {
    std::string variant, x, attrs, type;
  };
  const std::vector<Up> ups = {
      {"half pixel up", "[2,3,4,5]", "{align_corners=false, output_size=[9, 7]}", "[2,3,9,7]"},
      {"half pixel down", "[1,2,9,8]", "{align_corners=false, output_size=[4, 3]}", "[1,2,4,3]"},
      {"corners", "[2,2,5,3]", "{align_corners=true, output_size=[7, 1]}", "[2,2,7,1]"},
      {"scales", "[1,2,4,6]", "{align_corners=false, output_size=none, scales_h=2.5, scales_w=0.5}", "[1,2,10,3]"},
      {"size and scales", "[1,1,4,3]", "{align_corners=false, output_size=[6, 7], scales_h=1.7, scales_w=2.3}",
       "[1,1,6,7]"},
      {"from one", "[2,1,1,1]", "{align_corners=false, output_size=[3, 4]}", "[2,1,3,4]"},
  };
  for (std::string dt : {"f64", "f32"})
    for (const Up& u : ups)
      check_case(
          OpKind::UpsampleBilinear2d,
          {dt + " " + u.variant, node_graph("%x: " + dt + u.x, "upsample_bilinear2d(%x) " + u.attrs, dt + u.type)});
}

// Nodes the kernel rejects, and variants a decomposition cannot express, stay whole.
TEST(Decompose, DeclinedVariantsStayWhole) {
  const std::vector<std::pair<OpKind, std::string>> declined = {
      {OpKind::Gelu, unary_graph("f64", "gelu(%x) {approximate=\"exact\"}")},
      {OpKind::Hardtanh, unary_graph("f64", "hardtanh(%x) {max_val=-1, min_val=1}")},
      {OpKind::LayerNorm, node_graph("%x: f64[2,3]", "layer_norm(%x) {normalized_shape=[2]}", "f64[2,3]")},
      {OpKind::GroupNorm, node_graph("%x: f64[2,3]", "group_norm(%x) {num_groups=2}", "f64[2,3]")},
      {OpKind::BatchNorm, node_graph("%x: f64[2,3]", "batch_norm(%x, none, none, none, none)", "f64[2,3]")},
      {OpKind::BatchNorm,
       node_graph("%x: f64[1,3]", "batch_norm(%x, none, none, none, none) {training=true}", "f64[1,3]")},
      {OpKind::CrossEntropy,
       node_graph("%x: f64[4,3], %t: i64[4]", "cross_entropy(%x, %t) {label_smoothing=1.5}", "f64[]")},
      {OpKind::ScaledDotProductAttention,
       node_graph("%q: f64[4,8], %k: f64[6,8], %v: f64[6,3], %m: bool[4,6]",
                  "scaled_dot_product_attention(%q, %k, %v, %m) {is_causal=true}", "f64[4,3]")},
      {OpKind::ScaledDotProductAttention,
       node_graph("%q: f64[4,8], %k: f64[6,8], %v: f64[6,3]",
                  "scaled_dot_product_attention(%q, %k, %v) {dropout_p=1.5}", "f64[4,3]")},
      {OpKind::Softmax, node_graph("%x: f64[B,3]", "softmax(%x) {dim=0}", "f64[B,3]")},
      {OpKind::Var, node_graph("%x: f64[B,3]", "var(%x) {dim=[0]}", "f64[3]")},
      {OpKind::Conv2d, node_graph("%x: f64[B,2,4,4], %w: f64[3,2,3,3]", "conv2d(%x, %w)", "f64[B,3,2,2]")},
      {OpKind::Sort, pair_graph("%x: f64[B,3]", "", "sort(%x) {dim=0}", "f64[B,3]", "i64[B,3]")},
      {OpKind::Sort, pair_graph("%x: f64[2,2000]", "", "sort(%x)", "f64[2,2000]", "i64[2,2000]")},
      {OpKind::Topk, pair_graph("%x: f64[]", "", "topk(%x) {k=1}", "f64[]", "i64[]")},
      {OpKind::Histc, node_graph("%x: f64[3,4]", "histc(%x) {bins=4}", "f64[4]")},
      {OpKind::Histc, node_graph("%x: f64[3,4]", "histc(%x) {bins=4, max=2, min=2}", "f64[4]")},
  };
  for (const auto& [op, text] : declined) {
    auto g = parse_or_fail(text);
    ASSERT_TRUE(g);
    const std::string before = print_graph(*g);
    auto r = decompose(*g, {.ops = {op}});
    ASSERT_TRUE(r.has_value()) << r.error().to_string();
    EXPECT_FALSE(r->changed) << before;
    EXPECT_EQ(r->counters["rewrites"], 0) << before;
    EXPECT_EQ(print_graph(*g), before);
  }
}

// Every op with a decomposition has cases above; after the default decompose none is left,
// and the result verifies.
TEST(Decompose, DefaultOptionsLeaveNoDecomposableOp) {
  const std::set<OpKind> covered = {OpKind::Gelu,
                                    OpKind::Silu,
                                    OpKind::Softplus,
                                    OpKind::Elu,
                                    OpKind::LeakyRelu,
                                    OpKind::Hardtanh,
                                    OpKind::Softmax,
                                    OpKind::LogSoftmax,
                                    OpKind::Logsumexp,
                                    OpKind::Var,
                                    OpKind::Std,
                                    OpKind::LayerNorm,
                                    OpKind::RmsNorm,
                                    OpKind::GroupNorm,
                                    OpKind::BatchNorm,
                                    OpKind::NllLoss,
                                    OpKind::CrossEntropy,
                                    OpKind::MseLoss,
                                    OpKind::Linear,
                                    OpKind::Addmm,
                                    OpKind::ScaledDotProductAttention,
                                    OpKind::Conv2d,
                                    OpKind::Topk,
                                    OpKind::Sort,
                                    OpKind::Histc,
                                    OpKind::UpsampleBilinear2d};
  const std::vector<OpKind> ops = decomposable_ops();
  EXPECT_EQ(std::set<OpKind>(ops.begin(), ops.end()), covered);
  for (OpKind op : ops) EXPECT_TRUE(has_decomposition(op));
  EXPECT_FALSE(has_decomposition(OpKind::Add));
  auto g = parse_or_fail(R"(graph @mlp(%x: f32[B,16], %w: f32[8,16], %b: f32[8], %t: i64[B]) -> (f32[], f32[B,8]) {
  %0 = linear(%x, %w, %b) : f32[B,8]
  %1 = gelu(%0) {approximate="tanh"} : f32[B,8]
  %2 = layer_norm(%1) {normalized_shape=[8]} : f32[B,8]
  %3 = cross_entropy(%2, %t) : f32[]
  %4 = softmax(%2) {dim=-1} : f32[B,8]
  return %3, %4
})");
  ASSERT_TRUE(g);
  auto r = decompose(*g);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_TRUE(r->changed);
  EXPECT_EQ(r->counters["rule.cross_entropy"], 1);
  EXPECT_EQ(r->counters["rule.log_softmax"], 1);  // made by cross_entropy, then decomposed
  EXPECT_EQ(r->counters["rule.nll_loss"], 1);
  for (Node* n : g->nodes()) EXPECT_FALSE(has_decomposition(n->op())) << print_node(*n);
  Status v = verify_graph(*g);
  EXPECT_TRUE(v) << (v ? "" : v.error().to_string());
}

TEST(Decompose, OnlySelectedOpsAndErrors) {
  auto g = parse_or_fail(R"(graph @g(%x: f64[4,3], %t: i64[4]) -> (f64[]) {
  %0 = cross_entropy(%x, %t) : f64[]
  return %0
})");
  ASSERT_TRUE(g);
  auto r = decompose(*g, {.ops = {OpKind::CrossEntropy}});
  ASSERT_TRUE(r.has_value());
  const std::string text = print_graph(*g);
  EXPECT_NE(text.find("log_softmax("), std::string::npos) << text;
  EXPECT_NE(text.find("nll_loss("), std::string::npos) << text;
  auto bad = decompose(*g, {.ops = {OpKind::Add}});
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("op 'add' has no decomposition"), std::string::npos) << bad.error().message();
  EXPECT_FALSE(parse_decompose_ops("gelu,frobnicate").has_value());
  auto ok = parse_decompose_ops("gelu,softmax");
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->ops, (std::vector<OpKind>{OpKind::Gelu, OpKind::Softmax}));
}

// Gradients of the joint graphs of the composite op and of its decomposition agree.
void check_gradients(const std::string& what, const std::string& text, const JointOptions& options = {}) {
  auto g = parse_or_fail(text);
  ASSERT_TRUE(g) << what;
  auto d = g->clone();
  ASSERT_TRUE(decompose(*d).has_value()) << what;
  auto jg = joint_graph(*g, options);
  auto jd = joint_graph(*d, options);
  ASSERT_TRUE(jg.has_value()) << what << ": " << jg.error().to_string();
  ASSERT_TRUE(jd.has_value()) << what << ": " << jd.error().to_string() << "\n" << print_graph(*d);
  const std::vector<Tensor> in = make_inputs(*jg->graph, 5);
  auto want = interpret(*jg->graph, in);
  auto got = interpret(*jd->graph, in);
  ASSERT_TRUE(want.has_value()) << what << ": " << want.error().to_string();
  ASSERT_TRUE(got.has_value()) << what << ": " << got.error().to_string();
  ASSERT_EQ(want->size(), got->size()) << what;
  for (size_t i = 0; i < want->size(); ++i)
    expect_close((*want)[i], (*got)[i], 1e-10, what + " output " + std::to_string(i));
}

TEST(Decompose, GradientsMatchTheCompositeOps) {
  check_gradients("layer_norm", node_graph("%x: f64[3,4], %w: f64[4], %b: f64[4]",
                                           "layer_norm(%x, %w, %b) {normalized_shape=[4]}", "f64[3,4]"));
  check_gradients("softmax", unary_graph("f64", "softmax(%x) {dim=1}"));
  // topk's and sort's values: the gather of the decomposition sends each value's gradient to
  // the element it came from, as the ops' own rule.
  check_gradients("topk", R"(graph @g(%x: f64[3,5]) -> (f64[3,2]) {
  %0, %1 = topk(%x) {k=2} : (f64[3,2], i64[3,2])
  return %0
})");
  check_gradients("sort", R"(graph @g(%x: f64[4,3]) -> (f64[4,3]) {
  %0, %1 = sort(%x) {descending=true, dim=0} : (f64[4,3], i64[4,3])
  return %0
})");
  check_gradients("cross_entropy",
                  node_graph("%x: f64[4,3], %t: i64[4], %posw: f64[3]",
                             "cross_entropy(%x, %t, %posw) {ignore_index=1, label_smoothing=0.1}", "f64[]"),
                  {.wrt = {"x"}});  // cross_entropy's own rule, like torch's, gives the class weight no gradient
  check_gradients("gelu tanh", unary_graph("f64", "gelu(%x) {approximate=\"tanh\"}"));
  check_gradients("sdpa causal", node_graph("%q: f64[2,4,8], %k: f64[2,6,8], %v: f64[2,6,3]",
                                            "scaled_dot_product_attention(%q, %k, %v) {is_causal=true}", "f64[2,4,3]"));
}

}  // namespace
}  // namespace kiln
