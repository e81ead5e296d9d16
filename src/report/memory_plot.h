// Planned memory over time for the compile report: the bytes a compiled program holds while
// each kernel runs (the caller's inputs, the outputs from the kernel that first writes them
// to the end, temporaries over their lifetimes; lower/memory_plan.h), and that series drawn as
// an SVG line plot with the planned peak marked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lower/loop_ir.h"
#include "lower/memory_plan.h"

namespace kiln {

struct MemorySeries {
  std::vector<std::string> kernels;  // kernel names, in execution order
  std::vector<int64_t> live_bytes;   // per kernel: inputs + outputs and temporaries live then
  int64_t input_bytes = 0;
  // The plan's peak (inputs, outputs, arena): at least the series' maximum, more where the
  // arena's placement leaves gaps.
  int64_t planned_peak_bytes = 0;
};

MemorySeries memory_series(const LoopProgram& p, const MemoryPlan& plan);

// "1.5 MiB", "312 B": binary units, one decimal above bytes.
std::string bytes_text(int64_t bytes);

// A self-contained <svg> element (no scripts): axes, the series as a step line over kernel
// index, the planned peak as a dashed line with its value. `title` labels it.
std::string memory_plot_svg(const MemorySeries& s, const std::string& title);

}  // namespace kiln
