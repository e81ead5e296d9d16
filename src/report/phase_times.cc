#include "report/phase_times.h"

#include <cstdio>

namespace kiln {

namespace {

std::string formatted(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::Capture: return "capture";
    case Phase::Autodiff: return "autodiff";
    case Phase::Passes: return "passes";
    case Phase::Partition: return "partition";
    case Phase::Lowering: return "lowering";
    case Phase::Scheduling: return "scheduling";
    case Phase::Codegen: return "codegen";
    case Phase::Compile: return "compile";
    case Phase::Load: return "load";
  }
  return "?";
}

void PhaseTimes::add(Phase p, double seconds) {
  std::optional<double>& s = seconds_[static_cast<size_t>(p)];
  s = s.value_or(0.0) + seconds;
}

void PhaseTimes::add(const GraphPhaseTimes& t) {
  add(Phase::Passes, t.passes);
  add(Phase::Lowering, t.lowering);
  add(Phase::Scheduling, t.scheduling);
  add(Phase::Codegen, t.backend.emit);
  add(Phase::Compile, t.backend.compile);
  add(Phase::Load, t.backend.load);
}

void PhaseTimes::add(const PhaseTimes& other) {
  for (size_t p = 0; p < kNumPhases; ++p)
    if (other.seconds_[p]) add(static_cast<Phase>(p), *other.seconds_[p]);
}

double PhaseTimes::total() const {
  double sum = 0;
  for (const std::optional<double>& s : seconds_) sum += s.value_or(0.0);
  return sum;
}

std::string PhaseTimes::to_text() const {
  const double all = total();
  char header[96];
  std::snprintf(header, sizeof header, "  %-12s %9s %8s\n", "phase", "ms", "share");
  std::string out = header;
  for (size_t p = 0; p < kNumPhases; ++p) {
    if (!seconds_[p]) continue;
    char line[96];
    std::snprintf(line, sizeof line, "  %-12s %9.2f %7.1f%%\n", phase_name(static_cast<Phase>(p)), *seconds_[p] * 1e3,
                  all > 0 ? 100 * *seconds_[p] / all : 0.0);
    out += line;
  }
  char line[96];
  std::snprintf(line, sizeof line, "  %-12s %9.2f\n", "total", all * 1e3);
  return out + line;
}

std::string PhaseTimes::to_html() const {
  const double all = total();
  std::string out = "<table class=\"times\">\n<tr><th>phase</th><th>ms</th><th>share</th></tr>\n";
  for (size_t p = 0; p < kNumPhases; ++p) {
    if (!seconds_[p]) continue;
    out += std::string("<tr><td>") + phase_name(static_cast<Phase>(p)) + "</td><td>" +
           formatted("%.2f", *seconds_[p] * 1e3) + "</td><td>" +
           formatted("%.1f%%", all > 0 ? 100 * *seconds_[p] / all : 0.0) + "</td></tr>\n";
  }
  return out + "<tr><th>total</th><th>" + formatted("%.2f", all * 1e3) + "</th><th></th></tr>\n</table>\n";
}

}  // namespace kiln
