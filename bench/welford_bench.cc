// Variance on the CPU backend in its two forms, alternated in one process: one Welford pass
// (CpuBackendOptions::welford, var/std kept whole and lowered to welford_mean/welford_m2) and the
// decomposition into a mean and a sum of squared deviations (two reductions; the scheduler
// fuses them per row when rows have at most 32768 elements, else they are two passes over
// memory). Each case compiles both, checks they agree, then runs A, B, A, B, ... `rounds`
// times after a warm-up and prints per form the median, the 10th and 90th percentiles (the
// spread), and the ratio B/A: of the medians, and the median (10th-90th percentiles) of the
// rounds' own ratios, each round's two runs being adjacent in time. Alternating keeps slow
// phases of a shared machine from favouring one form. Threads as OpenMP chooses
// (OMP_NUM_THREADS).
//
//     build/bench/kiln_bench_welford [rounds]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "backend/compile_graph.h"
#include "bench_util.h"
#include "core/tensor_compare.h"
#include "ir/parser.h"
#include "runtime/cpu/cpu_backend.h"

namespace {

using namespace kiln;
using bench::or_die;
using Clock = std::chrono::steady_clock;

struct Case {
  std::string name, text;
};

struct Stats {
  double median = 0, p10 = 0, p90 = 0;
};

Stats stats_of(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  auto at = [&](double q) { return t[static_cast<size_t>(q * static_cast<double>(t.size() - 1) + 0.5)]; };
  return {at(0.5), at(0.1), at(0.9)};
}

double seconds(const CompiledGraph& c, const std::vector<Tensor>& in) {
  const auto t0 = Clock::now();
  (void)or_die(c.run(in), "run");
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string graph1(const std::string& name, const std::string& in, const std::string& out, const std::string& op) {
  return "graph @" + name + "(%x: f32" + in + ") -> (f32" + out + ") {\n  %0 = " + op + " : f32" + out +
         "\n  return %0\n}";
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(3, std::atoi(argv[1])) : 31;
  const std::vector<Case> cases = {
      {"var rows [8192,1024] dim=1", graph1("var_rows", "[8192,1024]", "[8192]", "var(%x) {dim=[1]}")},
      {"var rows [128,65536] dim=1", graph1("var_long", "[128,65536]", "[128]", "var(%x) {dim=[1]}")},
      {"var all [16777216]", graph1("var_all", "[16777216]", "[]", "var(%x)")},
      {"layer_norm [8192,1024]",
       "graph @ln(%x: f32[8192,1024], %w: f32[1024], %b: f32[1024]) -> (f32[8192,1024]) {\n"
       "  %0 = layer_norm(%x, %w, %b) {normalized_shape=[1024]} : f32[8192,1024]\n  return %0\n}"},
      {"batch_norm train [32,64,56,56]",
       "graph @bn(%x: f32[32,64,56,56], %w: f32[64], %b: f32[64]) -> (f32[32,64,56,56]) {\n"
       "  %0 = batch_norm(%x, %w, %b, none, none) {training=true} : f32[32,64,56,56]\n  return %0\n}"},
      {"group_norm [32,64,56,56] g=32",
       "graph @gn(%x: f32[32,64,56,56], %w: f32[64], %b: f32[64]) -> (f32[32,64,56,56]) {\n"
       "  %0 = group_norm(%x, %w, %b) {num_groups=32} : f32[32,64,56,56]\n  return %0\n}"},
  };
  std::printf("%-32s %-9s %9s %9s %9s %9s  %s\n", "case", "form", "median ms", "p10 ms", "p90 ms", "B/A",
              "B/A per round: median (p10-p90)");
  for (const Case& c : cases) {
    auto g = or_die(parse_graph(c.text), "parse");
    const CompiledGraph welford = or_die(compile_graph(*g, CpuBackend({.welford = true})), "compile welford");
    const CompiledGraph two_pass = or_die(compile_graph(*g, CpuBackend({.welford = false})), "compile two-pass");
    std::vector<Tensor> in;
    for (int i = 0; i < g->num_inputs(); ++i) {
      const TensorType& t = g->input(i)->type();
      in.push_back(Tensor::randn(t.shape.sizes(), 7 + static_cast<uint64_t>(i), t.dtype));
    }
    const Tensor a = or_die(welford.run(in), "run")[0], b = or_die(two_pass.run(in), "run")[0];
    if (std::optional<Mismatch> m = worst_mismatch(b, a, default_tolerance(a.dtype())))
      std::printf("  (the forms differ at element %lld: Welford %g, two-pass %g)\n", static_cast<long long>(m->index),
                  m->got, m->want);
    std::vector<double> ta, tb, ratio;
    (void)seconds(welford, in);  // warm-up
    (void)seconds(two_pass, in);
    for (int r = 0; r < rounds; ++r) {
      ta.push_back(seconds(welford, in));
      tb.push_back(seconds(two_pass, in));
      ratio.push_back(tb.back() / ta.back());
    }
    const Stats sa = stats_of(ta), sb = stats_of(tb), sr = stats_of(ratio);
    std::printf("%-32s %-9s %9.3f %9.3f %9.3f\n", c.name.c_str(), "A welford", 1e3 * sa.median, 1e3 * sa.p10,
                1e3 * sa.p90);
    std::printf("%-32s %-9s %9.3f %9.3f %9.3f %8.2fx  %.2fx (%.2f-%.2f)\n", "", "B 2-pass", 1e3 * sb.median,
                1e3 * sb.p10, 1e3 * sb.p90, sb.median / sa.median, sr.median, sr.p10, sr.p90);
    std::fflush(stdout);
  }
  return 0;
}
