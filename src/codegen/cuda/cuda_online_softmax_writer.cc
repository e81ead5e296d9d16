#include "codegen/cuda/cuda_kernel_writer.h"

namespace kiln::cuda {

void KernelWriter::online_max_sum(const LoopKernel& max_part, const LoopKernel& sum_part, int rows) {
  const RowVectors vectors = row_vectors(p_, max_part, rows);
  for_points(max_part, "q", rows, max_part.num_outer_loops(), "0", "1", [&] {
    accs_ = {BlockAccumulator::online_max_sum("a0")};
    line(accs_[0].declare());
    const auto at_point = [&](const std::vector<std::string>& element) { fold_point(max_part, element); };
    if (vectors.width == 1)
      for_points(max_part, "r", max_part.num_outer_loops(), static_cast<int>(max_part.loops.size()), thread_index(),
                 block_threads(), [&] { at_point({}); });
    else
      row_walk(max_part, rows, vectors, at_point);
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
