// Events between runs on one stream: mark 0 before the first run, mark i after run i - 1, so
// each run's time on the device is the time between two marks, with no host wait in between.
// CudaProgram::time_resident and the benchmarks' copy baseline time their runs with it.
#pragma once

#include <vector>

#include "runtime/cuda/cuda_stream.h"

namespace kiln {

class RunMarks {
 public:
  static Expected<RunMarks> create(const CudaContext& context, int runs);

  // Records mark `i` (0 .. runs) on `stream`.
  Status record(int i, const CudaStream& stream) const;
  // Waits for the last mark, then each run's seconds, sorted ascending.
  Expected<std::vector<double>> sorted_seconds() const;

 private:
  explicit RunMarks(std::vector<CudaEvent> marks) : marks_(std::move(marks)) {}

  std::vector<CudaEvent> marks_;
};

}  // namespace kiln
