#include "codegen/cuda/cuda_kernel_writer.h"

#include <algorithm>
#include <set>

#include "codegen/collapse_loops.h"
#include "codegen/cpp/cpp_index.h"
#include "codegen/cpp/cpp_lane_reduce.h"
#include "codegen/cpp/cpp_scalar.h"
#include "codegen/cpp/cpp_schedule.h"
#include "codegen/cuda/cuda_body.h"
#include "support/check.h"

namespace kiln::cuda {

void KernelWriter::parts() {
  const int rows = static_cast<int>(k_.loops.size());
  for (size_t j = 0; j < k_.parts.size(); ++j) {
    const LoopKernel& part = k_.parts[j];
    open_block("{  // part " + std::to_string(j) + ": " +
               (part.kind == KernelKind::Reduction ? "reduction" : "pointwise"));
    const RowVectors vectors = row_vectors(p_, part, rows);
    if (part.kind == KernelKind::Reduction) {
      for_points(part, "q", rows, part.num_outer_loops(), "0", "1", [&] {
        const PointWalk walk = row_points(part, rows);
        if (has_welford_m2(part)) {  // each pass's walk in a block of its own (its head, groups)
          two_pass_m2(part, ResultFor::ThreadZeroThenBarrier, [&](const PointFold& at_point) {
            open_block("{");
            walk(at_point);
            close_block();
          });
          return;
        }
        make_accumulators(part);
        for (const BlockAccumulator& a : accs_) line(a.declare());
        walk([&](const std::vector<std::string>& element) { fold_point(part, element); });
        block_reduce(ResultFor::ThreadZeroThenBarrier,
                     [&](const std::string& prefix, const std::string& at) { epilogue(part, prefix, at); });
      });
    } else {
      if (vectors.width == 1) {
        for_points(part, "q", rows, static_cast<int>(part.loops.size()), thread_index(), block_threads(),
                   [&] { ops(part, 0, part.body.size()); });
      } else {
        row_walk(part, rows, vectors, [&](const std::vector<std::string>& element) {
          for (size_t i = 0; i < part.body.size(); ++i) line(body_op_text(p_, part, static_cast<int>(i), element[i]));
        });
      }
      line("__syncthreads();");
    }
    close_block();
  }
}

void KernelWriter::fold(const LoopKernel& k, const std::string& first, const std::string& stride,
                        const std::string& start, const std::string& chunk) {
  const int outer = k.num_outer_loops(), n = static_cast<int>(k.loops.size());
  const int64_t count = points(k.loops, static_cast<size_t>(outer), k.loops.size());
  make_accumulators(k);
  for (const BlockAccumulator& a : accs_) line(a.declare());
  const auto body = [&] { fold_point(k, {}); };
  if (chunk.empty()) {
    for_points(k, "r", outer, n, first, stride, body);
    return;
  }
  if (count == 0) return;
  const std::string from = start.empty() ? first : first == "0" ? start : start + " + " + first;
  const std::string to = start.empty() ? chunk : start + " + " + chunk;
  open_block("for (" + index_ + " r = " + from + "; r < " + to + " && r < " + std::to_string(count) +
             "; r += " + stride + ") {");
  unflatten(k, "r", outer, n);
  body();
  close_block();
}

// A reduction's rows walked with vectors (row_walk), unless a welford_m2's update, whose
// division's slow path is a call, would keep a group's lanes live around it (ptxas spills).
RowVectors KernelWriter::fold_vectors(int outer) const {
  return has_welford_m2(k_) ? RowVectors{} : row_vectors(p_, k_, outer);
}

void KernelWriter::fold_row(int outer) {
  const RowVectors vectors = fold_vectors(outer);
  if (vectors.width == 1) {
    fold(k_, thread_index(), block_threads(), "", "");
    return;
  }
  make_accumulators(k_);
  for (const BlockAccumulator& a : accs_) line(a.declare());
  row_walk(k_, outer, vectors, [&](const std::vector<std::string>& element) { fold_point(k_, element); });
}

void KernelWriter::fold_chunk(int outer, const std::string& s, int64_t chunk) {
  const RowVectors vectors = fold_vectors(outer);
  const std::string begin = s + " * " + std::to_string(chunk);
  if (vectors.width == 1) {
    fold(k_, thread_index(), block_threads(), begin, std::to_string(chunk));
    return;
  }
  make_accumulators(k_);
  for (const BlockAccumulator& a : accs_) line(a.declare());
  const std::string count = std::to_string(k_.loops.back());
  row_walk(
      k_, outer, vectors, [&](const std::vector<std::string>& element) { fold_point(k_, element); }, begin,
      "(" + begin + " + " + std::to_string(chunk) + " < " + count + " ? " + begin + " + " + std::to_string(chunk) +
          " : " + count + ")");
}

void KernelWriter::row_ops(const LoopKernel& k, size_t to, const std::vector<std::string>& element) {
  if (element.empty()) ops(k, 0, to);
  for (size_t i = 0; i < to && !element.empty(); ++i) line(body_op_text(p_, k, static_cast<int>(i), element[i]));
}

void KernelWriter::fold_point(const LoopKernel& k, const std::vector<std::string>& element) {
  const size_t red = static_cast<size_t>(k.reduce_op), end = reduce_ops_end(k);
  row_ops(k, red, element);
  for (size_t r = red; r < end; ++r) {
    const BodyOp& rop = k.body[r];
    line(accs_[r - red].update(value_name(rop.args.at(0)), rop.args.size() > 1 ? value_name(rop.args[1]) : ""));
  }
}

void KernelWriter::block_reduce(ResultFor who, const AtResult& result) {
  const int warps = block_ / kWarpThreads;
  if (block_ < kWarpThreads) {  // a block of one thread (points in order): its own state
    KILN_CHECK(block_ == 1) << "a reduction's block is one thread or whole warps";
    result("", "");
    return;
  }
  if (std::any_of(accs_.begin(), accs_.end(), [](const BlockAccumulator& a) { return a.joins_by_division(); })) {
    shared_tree(who, result);
    return;
  }
  warp_join(kWarpThreads);
  if (warps == 1) {
    if (who == ResultFor::EveryThread) {
      for (const BlockAccumulator& a : accs_) line(a.broadcast_lane_zero());
      result("", "");
      return;
    }
    open_block("if (threadIdx.x == 0) {");
    result("", "");
    close_block();
    if (who == ResultFor::ThreadZeroThenBarrier) line("__syncthreads();");
    return;
  }
  const std::string total = std::to_string(warps);
  for (const BlockAccumulator& a : accs_)
    for (const BlockAccumulator::Field& f : a.fields())
      line("__shared__ " + f.type + " s_" + name_of(a, f) + "[" + std::to_string(warps + 1) +
           "];  // a slot per warp, then the block's");
  open_block("if (threadIdx.x % " + std::to_string(kWarpThreads) + " == 0) {");
  for (const BlockAccumulator& a : accs_) line(a.save("s_", "threadIdx.x / " + std::to_string(kWarpThreads)));
  close_block();
  line("__syncthreads();");
  open_block("if (threadIdx.x < " + std::to_string(kWarpThreads) + ") {");
  open_block("if (threadIdx.x < " + total + ") {");
  for (const BlockAccumulator& a : accs_) line(a.restore("s_", "threadIdx.x"));
  close_block();
  warp_join(warps);
  open_block("if (threadIdx.x == 0) {");
  for (const BlockAccumulator& a : accs_) line(a.save("s_", total));
  close_block();
  close_block();
  line("__syncthreads();");
  if (who == ResultFor::EveryThread) {
    result("s_", total);
    return;
  }
  open_block("if (threadIdx.x == 0) {");
  result("s_", total);
  close_block();
  if (who == ResultFor::ThreadZeroThenBarrier) line("__syncthreads();");
}

void KernelWriter::shared_tree(ResultFor who, const AtResult& result) {
  for (const BlockAccumulator& a : accs_) {
    for (const BlockAccumulator::Field& f : a.fields())
      line("__shared__ " + f.type + " s_" + name_of(a, f) + "[" + std::to_string(block_) + "];");
    line(a.save("s_", "threadIdx.x"));
  }
  line("__syncthreads();");
  open_block("for (int h = " + std::to_string(block_ / 2) + "; h > 0; h /= 2) {");
  open_block("if (threadIdx.x < h) {");
  for (const BlockAccumulator& a : accs_) line(a.combine("s_", "threadIdx.x", "threadIdx.x + h"));
  close_block();
  line("__syncthreads();");
  close_block();
  if (who == ResultFor::EveryThread) {
    result("s_", "0");
    return;
  }
  open_block("if (threadIdx.x == 0) {");
  result("s_", "0");
  close_block();
  line("__syncthreads();");  // slot 0 is read before the next row's states overwrite it
}

void KernelWriter::warp_join(int lanes) {
  if (lanes < 2) return;
  line("#pragma unroll");
  open_block("for (int step = " + std::to_string(lanes / 2) + "; step > 0; step /= 2) {");
  for (const BlockAccumulator& a : accs_) line(a.shuffle_join("step"));
  close_block();
}

void KernelWriter::epilogue(const LoopKernel& k, const std::string& prefix, const std::string& at) {
  const size_t red = static_cast<size_t>(k.reduce_op);
  epilogue(k, [&](size_t r) { return accs_[r - red].result(prefix, at, k.body[r].dtype); });
}

void KernelWriter::epilogue(const LoopKernel& k, const std::function<std::string(size_t)>& result_of) {
  const size_t red = static_cast<size_t>(k.reduce_op), end = reduce_ops_end(k);
  for (size_t r = red; r < end; ++r)
    line("const " + std::string(cpp::value_type(k.body[r].dtype)) + " " + value_name(static_cast<int>(r)) + " = " +
         result_of(r) + ";");
  ops(k, end, k.body.size());
}

std::string KernelWriter::name_of(const BlockAccumulator& a, const BlockAccumulator::Field& f) {
  return a.name() + f.suffix;
}

void KernelWriter::make_accumulators(const LoopKernel& k) {
  const size_t red = static_cast<size_t>(k.reduce_op), end = reduce_ops_end(k);
  const int64_t count = points(k.loops, static_cast<size_t>(k.num_outer_loops()), k.loops.size());
  accs_.clear();
  for (size_t r = red; r < end; ++r) {
    const BodyOp& rop = k.body[r];
    accs_.emplace_back(rop, k.body[static_cast<size_t>(rop.args.at(0))].dtype, "a" + std::to_string(r - red), count);
  }
}

}  // namespace kiln::cuda
