// The compile report's memory over time (report/memory_plot.h) and phase table
// (report/phase_times.h): the series from a known plan, the plot's parts, the table's rows.
#include <gtest/gtest.h>

#include <string>

#include "ir/parser.h"
#include "lower/lower.h"
#include "report/memory_plot.h"
#include "report/phase_times.h"

namespace kiln {
namespace {

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(ReportMemory, SeriesAddsInputsToTheBytesLivePerKernel) {
  LoopProgram p;
  p.name = "three";
  for (const char* name : {"k0", "k1", "k2"}) {
    LoopKernel k;
    k.name = name;
    p.kernels.push_back(std::move(k));
  }
  MemoryPlan plan;
  plan.input_bytes = 50;
  plan.output_bytes = 100;
  plan.arena_bytes = 256;
  plan.live_bytes = {100, 300, 200};
  const MemorySeries s = memory_series(p, plan);
  EXPECT_EQ(s.kernels, (std::vector<std::string>{"k0", "k1", "k2"}));
  EXPECT_EQ(s.live_bytes, (std::vector<int64_t>{150, 350, 250}));
  EXPECT_EQ(s.input_bytes, 50);
  EXPECT_EQ(s.planned_peak_bytes, 406);  // inputs + outputs + arena
}

TEST(ReportMemory, SeriesOfALoweredProgramPeaksAtMostAtThePlannedPeak) {
  auto g = parse_graph(
      "graph @m(%x: f32[64,64], %w: f32[64,64]) -> (f32[64,64]) {\n"
      "  %0 = matmul(%x, %w) : f32[64,64]\n  %1 = matmul(%0, %w) : f32[64,64]\n"
      "  %2 = matmul(%1, %w) : f32[64,64]\n  return %2\n}");
  ASSERT_TRUE(g) << g.error().to_string();
  auto p = lower_graph(**g);
  ASSERT_TRUE(p) << p.error().to_string();
  const MemoryPlan plan = plan_memory(*p);
  const MemorySeries s = memory_series(*p, plan);
  ASSERT_EQ(s.live_bytes.size(), 3u);
  const int64_t matrix = 64 * 64 * 4;
  EXPECT_EQ(s.input_bytes, 2 * matrix);
  // The first matmul writes a temporary while the output is live from its own kernel on.
  EXPECT_EQ(s.live_bytes[0], 2 * matrix + matrix);
  for (int64_t b : s.live_bytes) EXPECT_LE(b, s.planned_peak_bytes);
}

TEST(ReportMemory, PlotHasAStepPerKernelAxesAndThePeak) {
  const MemorySeries s{{"k0", "k1", "k2"}, {150, 350, 250}, 50, 406};
  const std::string svg = memory_plot_svg(s, "prog <a>");
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u) << svg;
  EXPECT_NE(svg.find("<title>prog &lt;a&gt;</title>"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("<a>"), std::string::npos) << svg;
  const size_t start = svg.find("<polyline");
  ASSERT_NE(start, std::string::npos) << svg;
  const std::string points = svg.substr(start, svg.find("/>", start) - start);
  EXPECT_EQ(count(points, ","), 6u) << points;  // two points per kernel
  EXPECT_NE(svg.find("planned peak 406 B"), std::string::npos) << svg;
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("<script"), std::string::npos);
}

TEST(ReportMemory, BytesPrintInBinaryUnits) {
  EXPECT_EQ(bytes_text(0), "0 B");
  EXPECT_EQ(bytes_text(312), "312 B");
  EXPECT_EQ(bytes_text(1536), "1.5 KiB");
  EXPECT_EQ(bytes_text(3 * 1024 * 1024), "3.0 MiB");
}

TEST(ReportTimes, TextTableListsThePhasesRunInPipelineOrder) {
  PhaseTimes t;
  t.add(Phase::Lowering, 0.002);
  t.add(Phase::Capture, 0.001);
  t.add(Phase::Lowering, 0.002);  // a second graph: times add up
  t.add(Phase::Compile, 0.005);
  EXPECT_DOUBLE_EQ(t.total(), 0.010);
  EXPECT_FALSE(t.seconds(Phase::Partition));
  EXPECT_EQ(t.to_text(),
            "  phase               ms    share\n"
            "  capture           1.00    10.0%\n"
            "  lowering          4.00    40.0%\n"
            "  compile           5.00    50.0%\n"
            "  total            10.00\n");
}

TEST(ReportTimes, CpuBackendTimesFillTheirPhases) {
  PhaseTimes t;
  t.add(GraphPhaseTimes{.passes = 1, .lowering = 2, .scheduling = 3, .backend = {.emit = 4, .compile = 5, .load = 6}});
  PhaseTimes u;
  u.add(Phase::Capture, 10);
  u.add(t);
  EXPECT_EQ(u.seconds(Phase::Scheduling), 3.0);
  EXPECT_EQ(u.seconds(Phase::Codegen), 4.0);
  EXPECT_EQ(u.seconds(Phase::Load), 6.0);
  EXPECT_DOUBLE_EQ(u.total(), 31.0);
  const std::string html = u.to_html();
  EXPECT_NE(html.find("<tr><td>scheduling</td><td>3000.00</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<tr><th>total</th><th>31000.00</th>"), std::string::npos) << html;
  EXPECT_EQ(html.find("partition"), std::string::npos) << html;
}

}  // namespace
}  // namespace kiln
