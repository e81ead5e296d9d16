#include "runtime/cuda/run_marks.h"

#include <algorithm>

namespace kiln {

Expected<RunMarks> RunMarks::create(const CudaContext& context, int runs) {
  std::vector<CudaEvent> marks;
  for (int i = 0; i <= runs; ++i) {
    KILN_ASSIGN_OR_RETURN(CudaEvent e, CudaEvent::create(context));
    marks.push_back(std::move(e));
  }
  return RunMarks(std::move(marks));
}

Status RunMarks::record(int i, const CudaStream& stream) const {
  return marks_.at(static_cast<size_t>(i)).record(stream);
}

Expected<std::vector<double>> RunMarks::sorted_seconds() const {
  KILN_TRY(marks_.back().synchronize());
  std::vector<double> seconds;
  for (size_t i = 1; i < marks_.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(float ms, marks_[i].milliseconds_since(marks_[i - 1]));
    seconds.push_back(ms / 1e3);
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds;
}

}  // namespace kiln
