#include "codegen/cuda/cuda_kernel_writer.h"

namespace kiln::cuda {

void KernelWriter::online_max_sum(const LoopKernel& max_part, const LoopKernel& sum_part, int rows) {
  for_points(max_part, "q", rows, max_part.num_outer_loops(), "0", "1", [&] {
    accs_ = {BlockAccumulator::online_max_sum("a0")};
    line(accs_[0].declare());
    row_points(max_part, rows)([&](const std::vector<std::string>& element) { fold_point(max_part, element); });
    block_reduce(ResultFor::ThreadZeroThenBarrier, [&](const std::string& prefix, const std::string& at) {
      open_block("{  // the max's epilogue");
      epilogue(max_part, [&](size_t) { return accs_[0].online_max(prefix, at); });
      close_block();
      open_block("{  // the sum's epilogue");
      epilogue(sum_part, prefix, at);
      close_block();
    });
  });
}

}  // namespace kiln::cuda
