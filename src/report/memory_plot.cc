#include "report/memory_plot.h"

#include <algorithm>
#include <cstdio>

#include "report/text_escape.h"
#include "support/check.h"

namespace kiln {

namespace {

constexpr double kWidth = 720, kHeight = 300;
constexpr double kLeft = 90, kRight = 20, kTop = 30, kBottom = 45;

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string text_at(double x, double y, const std::string& anchor, const std::string& text,
                    const std::string& extra = "") {
  return "<text x=\"" + number(x) + "\" y=\"" + number(y) + "\" text-anchor=\"" + anchor + "\"" + extra + ">" +
         html_escape(text) + "</text>\n";
}

}  // namespace

MemorySeries memory_series(const LoopProgram& p, const MemoryPlan& plan) {
  KILN_CHECK(plan.live_bytes.size() == p.kernels.size())
      << "memory plan of " << plan.live_bytes.size() << " kernels for program @" << p.name << " of "
      << p.kernels.size();
  MemorySeries s;
  s.input_bytes = plan.input_bytes;
  s.planned_peak_bytes = plan.peak_bytes();
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    s.kernels.push_back(p.kernels[k].name);
    s.live_bytes.push_back(plan.input_bytes + plan.live_bytes[k]);
  }
  return s;
}

std::string bytes_text(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  if (u == 0) return std::to_string(bytes) + " B";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

std::string memory_plot_svg(const MemorySeries& s, const std::string& title) {
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  int64_t top = s.planned_peak_bytes;
  for (int64_t b : s.live_bytes) top = std::max(top, b);
  top = std::max<int64_t>(top, 1);
  const size_t n = s.live_bytes.size();
  const auto x_of = [&](double k) { return kLeft + (n == 0 ? 0 : plot_w * k / static_cast<double>(n)); };
  const auto y_of = [&](double b) { return kTop + plot_h * (1 - b / static_cast<double>(top)); };

  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + number(kWidth) + "\" height=\"" +
                    number(kHeight) + "\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\">\n";
  out += "<title>" + html_escape(title) + "</title>\n";
  out += text_at(kWidth / 2, 16, "middle", title, " font-weight=\"bold\"");
  // Axes, with ticks at 0, 1/2 and the top of the byte range.
  out += "<line x1=\"" + number(kLeft) + "\" y1=\"" + number(kTop) + "\" x2=\"" + number(kLeft) + "\" y2=\"" +
         number(kTop + plot_h) + "\" stroke=\"black\"/>\n";
  out += "<line x1=\"" + number(kLeft) + "\" y1=\"" + number(kTop + plot_h) + "\" x2=\"" + number(kLeft + plot_w) +
         "\" y2=\"" + number(kTop + plot_h) + "\" stroke=\"black\"/>\n";
  for (int64_t tick : {int64_t{0}, top / 2, top})
    out += text_at(kLeft - 6, y_of(static_cast<double>(tick)) + 4, "end", bytes_text(tick));
  out += text_at(kLeft, kTop + plot_h + 16, "start", "0");
  out += text_at(kLeft + plot_w, kTop + plot_h + 16, "end", std::to_string(n));
  out += text_at(kLeft + plot_w / 2, kHeight - 8, "middle", "kernels run (each step: one kernel)");
  // The series: kernel k holds live_bytes[k] from x = k to x = k + 1.
  if (n > 0) {
    std::string points;
    for (size_t k = 0; k < n; ++k) {
      const std::string y = number(y_of(static_cast<double>(s.live_bytes[k])));
      points += number(x_of(static_cast<double>(k))) + "," + y + " " + number(x_of(static_cast<double>(k + 1))) + "," +
                y + " ";
    }
    points.pop_back();
    out += "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"" + points + "\"/>\n";
  }
  const double peak_y = y_of(static_cast<double>(s.planned_peak_bytes));
  out += "<line x1=\"" + number(kLeft) + "\" y1=\"" + number(peak_y) + "\" x2=\"" + number(kLeft + plot_w) +
         "\" y2=\"" + number(peak_y) + "\" stroke=\"#d62728\" stroke-dasharray=\"6,4\"/>\n";
  out += text_at(kLeft + plot_w, peak_y - 4, "end", "planned peak " + bytes_text(s.planned_peak_bytes),
                 " fill=\"#d62728\"");
  return out + "</svg>\n";
}

}  // namespace kiln
