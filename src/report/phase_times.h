// Wall time per phase of a compile, in pipeline order, for the compile report and the demo:
// capture (tracing, or parsing a file), autodiff (building the joint graph), passes (joint
// graph passes and the backend's graph passes), partition, lowering, scheduling, codegen
// (emitting the backend's source), compile (the backend's compiler: the system C++ compiler or
// NVRTC; 0 on cache hits) and load (dlopen, or loading cubins). Phases a pipeline does not run
// are left out of the table.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>

#include "backend/compile_graph.h"

namespace kiln {

enum class Phase : uint8_t { Capture, Autodiff, Passes, Partition, Lowering, Scheduling, Codegen, Compile, Load };
inline constexpr size_t kNumPhases = 9;
const char* phase_name(Phase p);  // "capture", ..., "compile", "load"

class PhaseTimes {
 public:
  // Adds to the phase's time (a train step compiles two graphs: their times add up).
  void add(Phase p, double seconds);
  // Adds the compile driver's passes, lowering and scheduling times and its backend's emit,
  // compile and load times.
  void add(const GraphPhaseTimes& t);
  // Adds every phase `other` ran.
  void add(const PhaseTimes& other);

  std::optional<double> seconds(Phase p) const { return seconds_[static_cast<size_t>(p)]; }
  double total() const;

  // A table: one line per phase run, its milliseconds and share of the total, then the total.
  std::string to_text() const;
  // The same table as an HTML <table>.
  std::string to_html() const;

 private:
  std::array<std::optional<double>, kNumPhases> seconds_;
};

}  // namespace kiln
