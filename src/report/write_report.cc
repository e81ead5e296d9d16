// write_compile_report: the report directory and its index.html (compile_report.h).
#include <filesystem>
#include <system_error>

#include "report/compile_report.h"
#include "report/loop_dot.h"
#include "report/render_svg.h"
#include "report/target_html.h"
#include "report/text_escape.h"
#include "support/file_io.h"

namespace kiln {

namespace {

namespace fs = std::filesystem;

constexpr const char* kStyle = R"(body { font-family: sans-serif; margin: 2em; max-width: 1400px; color: #222; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
pre { background: #f6f8fa; padding: 0.8em; overflow-x: auto; font-size: 12px; }
table { border-collapse: collapse; margin: 0.5em 0; } td, th { border: 1px solid #ccc; padding: 0.2em 0.6em; }
td.num, .times td:nth-child(n+2) { text-align: right; font-family: monospace; }
td.code { font-family: monospace; font-size: 12px; }
.swatch { display: inline-block; width: 1em; height: 1em; border: 1px solid #888; vertical-align: middle; }
.note { background: #fff3cd; padding: 0.5em; border: 1px solid #e0c060; }
.graph { overflow: auto; max-height: 800px; border: 1px solid #ddd; }
nav a { margin-right: 1em; }
)";

// "after joint passes" -> "after-joint-passes"
std::string slug(const std::string& title) {
  std::string s;
  for (char c : title) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (alnum)
      s += c;
    else if (c >= 'A' && c <= 'Z')
      s += static_cast<char>(c - 'A' + 'a');
    else if (!s.empty() && s.back() != '-')
      s += '-';
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s.empty() ? "graph" : s;
}

Status write_file(const fs::path& path, const std::string& text) {
  Status s = write_file_bytes(path.string(), text);
  if (!s) return make_error("report: ", s.error().message());
  return s;
}

// Where the SVGs come from: dot, or the reason there are none.
struct Renderer {
  Expected<std::string> dot;
  int64_t max_nodes = 0;
  std::string note(const std::string& dot_file, const std::string& why) const {
    return "<p class=\"note\">No drawing: " + html_escape(why) + ". The graph is in <a href=\"" +
           html_escape(dot_file) + "\">" + html_escape(dot_file) +
           "</a> (DOT text; <code>dot -Tsvg</code> draws it).</p>\n";
  }
};

// Writes BASE.dot and, when dot runs, BASE.svg; returns the HTML that shows it.
Expected<std::string> drawing(const fs::path& dir, const std::string& base, const std::string& dot_text, int64_t nodes,
                              const Renderer& renderer) {
  const std::string dot_file = base + ".dot", svg_file = base + ".svg";
  KILN_TRY(write_file(dir / dot_file, dot_text));
  if (!renderer.dot) return renderer.note(dot_file, renderer.dot.error().message());
  if (nodes > renderer.max_nodes)
    return renderer.note(dot_file, std::to_string(nodes) + " nodes are more than the " +
                                       std::to_string(renderer.max_nodes) +
                                       " drawn in reasonable time (ReportOptions::max_drawn_nodes)");
  Status drawn = render_svg(*renderer.dot, (dir / dot_file).string(), (dir / svg_file).string());
  if (!drawn) return renderer.note(dot_file, drawn.error().message());
  return "<div class=\"graph\"><img src=\"" + html_escape(svg_file) + "\" alt=\"" + html_escape(base) +
         "\"></div>\n<p><a href=\"" + html_escape(svg_file) + "\">" + html_escape(svg_file) + "</a> · <a href=\"" +
         html_escape(dot_file) + "\">" + html_escape(dot_file) + "</a></p>\n";
}

std::string details(const std::string& summary, const std::string& text) {
  return "<details><summary>" + html_escape(summary) + "</summary>\n<pre>" + html_escape(text) + "</pre></details>\n";
}

std::string legend_item(const char* colour, const std::string& name) {
  return std::string("<span class=\"swatch\" style=\"background:") + colour + "\"></span> " + html_escape(name) +
         " &nbsp; ";
}

std::string graph_legend() {
  std::string out = "<p>";
  for (NodeRole r : {NodeRole::Forward, NodeRole::Backward, NodeRole::Recomputed, NodeRole::Plain})
    out += legend_item(node_role_colour(r), node_role_name(r));
  out += std::string("<span class=\"swatch\" style=\"border:3px solid ") + kSavedColour +
         "\"></span> saved for the backward (thick outline)</p>\n";
  return out;
}

std::string kernel_legend() {
  std::string out = "<p>";
  for (KernelKind k : kReportedKernelKinds) out += legend_item(kernel_kind_colour(k), kernel_kind_name(k));
  return out + " ellipses: buffers (dashed: temporaries)</p>\n";
}

Expected<std::string> graphs_section(const CompileReport& r, const fs::path& dir, const Renderer& renderer) {
  std::string out = "<h2 id=\"graphs\">Graphs by stage</h2>\n" + graph_legend();
  for (size_t i = 0; i < r.graphs.size(); ++i) {
    const ReportGraph& g = r.graphs[i];
    const std::string base = "graphs/" + std::to_string(i + 1) + "-" + slug(g.title);
    KILN_TRY(write_file(dir / (base + ".txt"), g.text));
    KILN_ASSIGN_OR_RETURN(std::string drawn, drawing(dir, base, g.dot, g.dot_nodes, renderer));
    out += "<h3>" + html_escape(g.title) + "</h3>\n" + drawn + details("graph text (" + base + ".txt)", g.text);
  }
  return out;
}

std::string partition_section(const CompileReport& r) {
  std::string out = "<h2 id=\"partition\">Saved vs recomputed</h2>\n";
  if (!r.partition) return out + "<p>This compile has no backward graph: nothing is saved or recomputed.</p>\n";
  const ReportPartition& p = *r.partition;
  out += "<p>The forward saves " + std::to_string(p.saved.size()) + " values (" +
         html_escape(bytes_text(p.saved_bytes)) + "); the backward recomputes " + std::to_string(p.recomputed.size()) +
         " nodes.</p>\n";
  out += "<h3>Saved</h3>\n<table><tr><th>value</th><th>type</th><th>bytes</th><th>computed by</th></tr>\n";
  for (const ReportSavedValue& s : p.saved)
    out += "<tr><td class=\"code\">%" + html_escape(s.name) + "</td><td class=\"code\">" + html_escape(s.type) +
           "</td><td class=\"num\">" + std::to_string(s.bytes) + "</td><td class=\"code\">" + html_escape(s.producer) +
           "</td></tr>\n";
  out += "</table>\n<h3>Recomputed in the backward</h3>\n";
  if (p.recomputed.empty()) return out + "<p>None.</p>\n";
  out += "<table><tr><th>backward node</th></tr>\n";
  for (const std::string& n : p.recomputed) out += "<tr><td class=\"code\">" + html_escape(n) + "</td></tr>\n";
  return out + "</table>\n";
}

Expected<std::string> kernels_section(const CompileReport& r, const fs::path& dir, const Renderer& renderer) {
  std::string out = "<h2 id=\"kernels\">Kernels</h2>\n" + kernel_legend();
  if (r.programs.empty()) out += "<p>No graph was compiled to kernels.</p>\n";
  for (size_t i = 0; i < r.programs.size(); ++i) {
    const ReportProgram& p = r.programs[i];
    const std::string base = "programs/" + std::to_string(i + 1) + "-" + slug(p.title);
    KILN_TRY(write_file(dir / (base + ".loops"), p.loops));
    const std::string source_file = base + "." + p.source_format.extension;
    const std::string generated = "generated " + p.source_format.language;
    KILN_TRY(write_file(dir / source_file, p.source));
    KILN_ASSIGN_OR_RETURN(std::string drawn, drawing(dir, base, p.dot, p.dot_nodes, renderer));
    out += "<h3>" + html_escape(p.title) + "</h3>\n<p>";
    for (KernelKind k : kReportedKernelKinds)
      out += std::to_string(p.kernels_by_kind[static_cast<size_t>(k)]) + " " + kernel_kind_name(k) + " &nbsp; ";
    out += "· " + html_escape(generated) + ": <a href=\"" + html_escape(source_file) + "\">" +
           html_escape(source_file) + "</a> · loop IR: <a href=\"" + html_escape(base + ".loops") + "\">" +
           html_escape(base + ".loops") + "</a></p>\n";
    out += target_html(p.target) + drawn + details("loop IR", p.loops) + details(generated, p.source);
  }
  return out;
}

std::string memory_section(const CompileReport& r) {
  std::string out = "<h2 id=\"memory\">Planned memory over time</h2>\n";
  if (r.programs.empty()) return out + "<p>No graph was compiled to kernels.</p>\n";
  out +=
      "<p>Bytes held while each kernel runs: the inputs, outputs from the kernel that first writes them, "
      "temporaries over their lifetimes. The planned peak (inputs, outputs and the arena the temporaries share) "
      "is the dashed line.</p>\n";
  for (const ReportProgram& p : r.programs)
    out += memory_plot_svg(p.memory, p.title + ": planned peak " + bytes_text(p.memory.planned_peak_bytes));
  return out;
}

}  // namespace

Status write_compile_report(const CompileReport& r, const std::string& dir_name, const ReportOptions& o) {
  const fs::path dir(dir_name);
  for (const fs::path& d : {dir, dir / "graphs", dir / "programs"}) {
    std::error_code ec;
    fs::create_directories(d, ec);
    if (ec) return make_error("report: cannot create directory '", d.string(), "': ", ec.message());
  }
  const Renderer renderer{find_dot_program(o.dot_program), o.max_drawn_nodes};
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>kiln compile report: " +
      html_escape(r.title) + "</title>\n<style>\n" + kStyle + "</style>\n</head>\n<body>\n";
  html += "<h1>kiln compile report: " + html_escape(r.title) + "</h1>\n";
  html +=
      "<nav><a href=\"#timing\">timing</a><a href=\"#graphs\">graphs</a><a href=\"#partition\">saved vs "
      "recomputed</a><a href=\"#kernels\">kernels</a><a href=\"#memory\">memory</a></nav>\n";
  html += "<h2 id=\"timing\">Time per phase</h2>\n" + r.times.to_html();
  KILN_ASSIGN_OR_RETURN(std::string graphs, graphs_section(r, dir, renderer));
  KILN_ASSIGN_OR_RETURN(std::string kernels, kernels_section(r, dir, renderer));
  html += graphs + partition_section(r) + kernels + memory_section(r) + "</body>\n</html>\n";
  return write_file(dir / "index.html", html);
}

}  // namespace kiln
