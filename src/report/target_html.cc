#include "report/target_html.h"

#include <cstdio>

#include "report/memory_plot.h"
#include "report/text_escape.h"

namespace kiln {

namespace {

std::string cell(const std::string& text, const char* cls = "num") {
  return std::string("<td class=\"") + cls + "\">" + html_escape(text) + "</td>";
}

template <typename T>
std::string optional_cell(const std::optional<T>& value) {
  return cell(value ? std::to_string(*value) : "—");
}

std::string dims(const std::array<uint32_t, 3>& d) {
  return std::to_string(d[0]) + " × " + std::to_string(d[1]) + " × " + std::to_string(d[2]);
}

std::string kernels_table(const TargetReport& t) {
  if (t.kernels.empty()) return "<p>No kernel is launched on the device.</p>\n";
  std::string out =
      "<table class=\"launches\"><tr><th>kernel</th><th>loop kernel</th><th>grid</th><th>block</th><th>dynamic "
      "shared</th><th>registers</th><th>local bytes</th><th>spill stores</th><th>spill loads</th><th>static "
      "shared</th><th>from</th><th>source lines</th></tr>\n";
  for (const TargetKernel& k : t.kernels)
    out += "<tr>" + cell(k.symbol, "code") + cell("@" + k.loop_kernel, "code") + cell(dims(k.grid)) +
           cell(dims(k.block)) + cell(std::to_string(k.dynamic_shared_bytes)) + optional_cell(k.registers) +
           optional_cell(k.local_bytes) + optional_cell(k.spill_store_bytes) + optional_cell(k.spill_load_bytes) +
           optional_cell(k.static_shared_bytes) + cell(k.resources_from.empty() ? "—" : k.resources_from, "code") +
           cell(std::to_string(k.source_lines)) + "</tr>\n";
  return out + "</table>\n";
}

std::string memory_table(const TargetReport& t) {
  std::string out = "<p>Planned device memory: " + html_escape(bytes_text(t.memory_bytes)) +
                    " in one allocation.</p>\n<table class=\"regions\"><tr><th>region</th><th>bytes</th></tr>\n";
  for (const TargetMemoryRegion& r : t.memory)
    out += "<tr>" + cell(r.name, "code") + cell(std::to_string(r.bytes)) + "</tr>\n";
  return out + "</table>\n";
}

std::string compile_stats(const TargetReport& t) {
  if (!t.compile) return "";
  const TargetCompileStats& c = *t.compile;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3f", c.seconds);
  return "<p>Compiled by " + html_escape(c.compiler) + " in " + seconds + " s: of " + std::to_string(c.units) +
         (c.units == 1 ? " unit, " : " units, ") + std::to_string(c.cache_hits) + " found in the cache (" +
         html_escape(c.cache_dir) + "), " + std::to_string(c.units - c.cache_hits) + " compiled.</p>\n";
}

}  // namespace

std::string target_html(const TargetReport& t) {
  if (t.empty()) return "";
  std::string out = "<h4>On the device: " + html_escape(t.device) + "</h4>\n";
  for (const std::string& note : t.notes) out += "<p class=\"note\">" + html_escape(note) + "</p>\n";
  out += compile_stats(t) + kernels_table(t) + memory_table(t);
  if (t.host_copied_ops.empty()) return out + "<p>Copied through the host: none.</p>\n";
  out += "<p>Copied through the host (each run copies their operands to the host and back):";
  for (const std::string& op : t.host_copied_ops) out += " <code>" + html_escape(op) + "</code>";
  return out + "</p>\n";
}

}  // namespace kiln
