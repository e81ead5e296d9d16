// write_compile_report (report/compile_report.h): index.html holds every section and escapes
// what it quotes; without Graphviz the report still writes, with the DOT files and a note; an
// unwritable directory is an error naming it; GradOptions::report collects a training compile.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cpu_backend_util.h"
#include "ir/parser.h"
#include "report/compile_report.h"
#include "runtime/cpu/cpu_backend.h"
#include "train/grad_function.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

constexpr const char* kGraph =
    "graph @small(%x: f32[32,16], %w: f32[16,8]) -> (f32[32,8]) {\n"
    "  %0 = matmul(%x, %w) : f32[32,8]\n  %1 = relu(%0) : f32[32,8]\n  %2 = exp(%1) : f32[32,8]\n  return %2\n}";

// A report of one CPU-compiled graph, with a stage title and text that need escaping.
CompileReport small_report() {
  auto g = parse_graph(kGraph);
  EXPECT_TRUE(g) << g.error().to_string();
  const CpuBackend backend({.compile = test_compile_options()});
  auto c = compile_graph(**g, backend);
  EXPECT_TRUE(c) << c.error().to_string();
  CompileReport r{.title = "small <test>"};
  r.graphs.push_back(report_graph("<parsed>", **g));
  r.graphs.back().text += "// a <b>note</b> & more\n";
  r.programs.push_back(report_program("@small", *c, backend));
  r.times.add(Phase::Capture, 0.001);
  r.times.add(c->times());
  return r;
}

TEST(ReportWrite, IndexHoldsEverySectionAndEscapesText) {
  TempDir dir("kiln-report");
  ReportOptions o{.dot_program = "/nonexistent/kiln-test/dot"};
  ASSERT_TRUE(write_compile_report(small_report(), dir.path(), o).is_ok());
  const std::string html = read_text(fs::path(dir.path()) / "index.html");
  for (const char* id : {"id=\"timing\"", "id=\"graphs\"", "id=\"partition\"", "id=\"kernels\"", "id=\"memory\""})
    EXPECT_TRUE(has(html, id)) << id;
  EXPECT_TRUE(has(html, "<title>kiln compile report: small &lt;test&gt;</title>"));
  EXPECT_TRUE(has(html, "<h3>&lt;parsed&gt;</h3>"));
  EXPECT_TRUE(has(html, "// a &lt;b&gt;note&lt;/b&gt; &amp; more"));
  EXPECT_FALSE(has(html, "<b>note"));
  EXPECT_FALSE(has(html, "<parsed>"));
  EXPECT_TRUE(has(html, "<td>scheduling</td>"));
  EXPECT_TRUE(has(html, "This compile has no backward graph"));
  EXPECT_TRUE(has(html, "<polyline"));  // the memory plot, inline
  EXPECT_TRUE(has(html, "href=\"programs/1-small.cpp\""));
  EXPECT_TRUE(has(html, "kiln_small_k"));  // the generated C++, quoted
  EXPECT_TRUE(fs::exists(fs::path(dir.path()) / "graphs" / "1-parsed.txt"));
  EXPECT_TRUE(fs::exists(fs::path(dir.path()) / "programs" / "1-small.loops"));
  EXPECT_TRUE(has(read_text(fs::path(dir.path()) / "programs" / "1-small.cpp"), "extern \"C\""));
}

TEST(ReportWrite, WithoutGraphvizTheDotFilesAndANoteStandInForTheSvg) {
  TempDir dir("kiln-report");
  ReportOptions o{.dot_program = "/nonexistent/kiln-test/dot"};
  ASSERT_TRUE(write_compile_report(small_report(), dir.path(), o).is_ok());
  const fs::path graphs = fs::path(dir.path()) / "graphs";
  EXPECT_TRUE(fs::exists(graphs / "1-parsed.dot"));
  EXPECT_FALSE(fs::exists(graphs / "1-parsed.svg"));
  EXPECT_FALSE(fs::exists(fs::path(dir.path()) / "programs" / "1-small.svg"));
  const std::string html = read_text(fs::path(dir.path()) / "index.html");
  EXPECT_TRUE(has(html, "No drawing: Graphviz &#39;/nonexistent/kiln-test/dot&#39; not found")) << html;
  EXPECT_TRUE(has(html, "<a href=\"graphs/1-parsed.dot\">"));
  EXPECT_FALSE(has(html, "<img"));
}

TEST(ReportWrite, WithGraphvizEachGraphIsDrawn) {
  if (access("/usr/bin/dot", X_OK) != 0) GTEST_SKIP() << "Graphviz is not installed (scripts/setup.sh installs it)";
  TempDir dir("kiln-report");
  ASSERT_TRUE(write_compile_report(small_report(), dir.path(), ReportOptions{.dot_program = "/usr/bin/dot"}).is_ok());
  const std::string svg = read_text(fs::path(dir.path()) / "graphs" / "1-parsed.svg");
  EXPECT_TRUE(has(svg, "<svg")) << svg.substr(0, 200);
  EXPECT_TRUE(fs::exists(fs::path(dir.path()) / "programs" / "1-small.svg"));
  EXPECT_TRUE(has(read_text(fs::path(dir.path()) / "index.html"), "<img src=\"graphs/1-parsed.svg\""));
}

TEST(ReportWrite, GraphsOverTheNodeLimitAreNotDrawn) {
  if (access("/usr/bin/dot", X_OK) != 0) GTEST_SKIP() << "Graphviz is not installed (scripts/setup.sh installs it)";
  TempDir dir("kiln-report");
  const CompileReport r = small_report();
  ASSERT_EQ(r.graphs[0].dot_nodes, 5);  // two inputs, three nodes
  ReportOptions o{.dot_program = "/usr/bin/dot", .max_drawn_nodes = 4};
  ASSERT_TRUE(write_compile_report(r, dir.path(), o).is_ok());
  EXPECT_FALSE(fs::exists(fs::path(dir.path()) / "graphs" / "1-parsed.svg"));
  EXPECT_TRUE(fs::exists(fs::path(dir.path()) / "graphs" / "1-parsed.dot"));
  EXPECT_TRUE(has(read_text(fs::path(dir.path()) / "index.html"),
                  "No drawing: 5 nodes are more than the 4 drawn in reasonable time"));
}

TEST(ReportWrite, AnUnwritableDirectoryIsAnErrorNamingIt) {
  TempDir dir("kiln-report");
  const fs::path file = fs::path(dir.path()) / "a-file";
  std::ofstream(file) << "not a directory";
  const std::string target = (file / "report").string();
  Status s = write_compile_report(CompileReport{.title = "x"}, target);
  ASSERT_FALSE(s.is_ok());
  EXPECT_TRUE(has(s.error().to_string(), "report: cannot create directory '" + target + "'")) << s.error().to_string();
}

TEST(ReportWrite, GradFunctionCollectsTheTrainingStages) {
  auto g = parse_graph(
      "graph @layer(%x: f32[8,4], %w: param f32[4,16]) -> (f32[]) {\n"
      "  %0 = matmul(%x, %w) : f32[8,16]\n  %1 = sin(%0) : f32[8,16]\n  %2 = sum(%1) : f32[]\n  return %2\n}");
  ASSERT_TRUE(g) << g.error().to_string();
  CompileReport r;
  auto fn = GradFunction::create(
      **g, {}, GradOptions{.joint = {.wrt = {"w"}}, .runner = {.execution = Execution::Compiled}, .report = &r});
  ASSERT_TRUE(fn) << fn.error().to_string();
  std::vector<std::string> titles;
  for (const ReportGraph& s : r.graphs) titles.push_back(s.title);
  EXPECT_EQ(titles, (std::vector<std::string>{"joint", "joint after the joint passes", "forward", "backward",
                                              "forward after the CPU backend's passes",
                                              "backward after the CPU backend's passes"}));
  ASSERT_TRUE(r.partition);
  EXPECT_EQ(r.partition->saved.size(), static_cast<size_t>(fn->partition().num_saved));
  EXPECT_EQ(r.partition->saved_bytes, fn->partition().saved_bytes);
  ASSERT_EQ(r.programs.size(), 2u);
  EXPECT_EQ(r.programs[0].title, "forward");
  EXPECT_EQ(r.programs[1].title, "backward");
  for (Phase p : {Phase::Autodiff, Phase::Passes, Phase::Partition, Phase::Lowering, Phase::Scheduling, Phase::Codegen,
                  Phase::Compile, Phase::Load})
    EXPECT_TRUE(fn->phase_times().seconds(p)) << phase_name(p);
  EXPECT_FALSE(fn->phase_times().seconds(Phase::Capture));  // GradFunction starts from a graph
}

}  // namespace
}  // namespace kiln
