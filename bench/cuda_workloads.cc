#include "cuda_workloads.h"

#include "autograd/joint_graph.h"
#include "autograd/partition.h"
#include "bench_util.h"
#include "ir/parser.h"

namespace kiln::bench {

namespace {

std::unique_ptr<Graph> graph(const std::string& text) { return or_die(parse_graph(text), "parse"); }

// The backward graph of `forward` (the default partition), as the golden layer_norm_backward.
std::unique_ptr<Graph> backward_of(const Graph& forward) {
  JointGraph joint = or_die(joint_graph(forward), "joint graph");
  return std::move(or_die(partition(joint, PartitionOptions{.kind = PartitionKind::Default}), "partition").backward);
}

std::string softmax(const std::string& t) {
  return "graph @softmax(%x: " + t + ") -> (" + t + ") {\n %0 = softmax(%x) {dim=-1} : " + t + "\n return %0\n}";
}

std::string layer_norm(const std::string& dt, int64_t rows, int64_t n) {
  const std::string t = dt + "[" + std::to_string(rows) + "," + std::to_string(n) + "]";
  const std::string v = dt + "[" + std::to_string(n) + "]";
  return "graph @layer_norm(%x: " + t + ", %w: " + v + ", %b: " + v + ") -> (" + t +
         ") {\n %0 = layer_norm(%x, %w, %b) {normalized_shape=[" + std::to_string(n) + "]} : " + t + "\n return %0\n}";
}

}  // namespace

std::vector<Workload> cuda_workloads() {
  const std::string c = "bf16[8192,8192]";
  std::vector<Workload> w;
  w.push_back({"chain8", graph("graph @chain8(%x: " + c + ") -> (" + c + ") {\n %0 = mul(%x, 1.5) : " + c +
                               "\n %1 = add(%0, 0.25) : " + c + "\n %2 = tanh(%1) : " + c + "\n %3 = mul(%2, %x) : " +
                               c + "\n %4 = sigmoid(%3) : " + c + "\n %5 = sub(%4, 0.5) : " + c +
                               "\n %6 = exp(%5) : " + c + "\n %7 = mul(%6, 0.75) : " + c + "\n return %7\n}")});
  w.push_back({"softmax_16384x1024", graph(softmax("bf16[16384,1024]"))});
  w.push_back({"softmax_8192x50257", graph(softmax("bf16[8192,50257]"))});
  w.push_back({"layer_norm_16384x1024", graph(layer_norm("bf16", 16384, 1024))});
  w.push_back({"layer_norm_8192x50257", graph(layer_norm("bf16", 8192, 50257))});
  w.push_back({"column_sum_65536x1024", graph("graph @column_sum(%x: bf16[65536,1024]) -> (bf16[1024]) {\n"
                                              " %0 = sum(%x) {dim=[0]} : bf16[1024]\n return %0\n}")});
  const std::string act = "bf16[32,64,56,56]";
  w.push_back(
      {"conv2d_3x3_32x64x56x56", graph("graph @conv(%x: " + act + ", %w: bf16[64,64,3,3], %b: bf16[64]) -> (" + act +
                                       ") {\n %0 = conv2d(%x, %w, %b) {padding=[1]} : " + act + "\n return %0\n}")});
  const std::string p = "f32[8192,8192]";
  w.push_back(
      {"golden_pointwise_chain", graph("graph @g(%x: " + p + ") -> (" + p + ") {\n %0 = exp(%x) : " + p +
                                       "\n %1 = neg(%0) : " + p + "\n %2 = sigmoid(%1) : " + p +
                                       "\n %3 = tanh(%2) : " + p + "\n %4 = relu(%3) : " + p + "\n return %4\n}")});
  w.push_back({"golden_reduction_rows",
               graph("graph @rows(%x: f32[32768,1024]) -> (f32[32768], f32[32768,1]) {\n"
                     " %0 = sum(%x) {dim=[1]} : f32[32768]\n %1 = amax(%x) {dim=[1], keepdim=true} : f32[32768,1]\n"
                     " return %0, %1\n}")});
  w.push_back({"golden_reduction_blocks",
               graph("graph @blocks(%x: f32[16384,1000], %y: f32[16777216], %z: f32[16384,50,20], %w: f32[20]) -> "
                     "(f32[16384], f32[], f32[16384], f32[16384], f32[16384]) {\n"
                     " %0 = sum(%x) {dim=[1]} : f32[16384]\n %1 = sum(%y) : f32[]\n"
                     " %2 = amax(%x) {dim=[1]} : f32[16384]\n %3 = prod(%x) {dim=1} : f32[16384]\n"
                     " %4 = mul(%z, %w) : f32[16384,50,20]\n %5 = sum(%4) {dim=[1, 2]} : f32[16384]\n"
                     " return %0, %1, %2, %3, %5\n}")});
  w.push_back({"golden_softmax", graph(softmax("f32[32768,1024]"))});
  w.push_back({"golden_layer_norm_backward", backward_of(*graph(layer_norm("f32", 32768, 1024)))});
  return w;
}

}  // namespace kiln::bench
