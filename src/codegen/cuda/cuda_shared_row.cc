#include "codegen/cuda/cuda_shared_row.h"

#include <algorithm>

#include "codegen/cpp/cpp_index.h"
#include "codegen/cpp/cpp_scalar.h"
#include "codegen/cuda/cuda_body.h"
#include "codegen/cuda/cuda_kernel_writer.h"

namespace kiln::cuda {

namespace {

constexpr int kVectorBytes = 16;
// 16-byte loads a thread of the copy has in flight before it stores them: 512 threads x 2 blocks
// x 4 x 16 bytes = 64 KiB an SM in flight, more than an H100's or H200's bandwidth times
// latency an SM (~30 KiB), where one a thread (16 KiB) would leave the copy latency-bound.
constexpr int kCopyVectorsInFlight = 4;

bool stores_buffer(const LoopKernel& k, int buffer) {
  for (const LoopKernel& part : k.parts)
    for (const BodyOp& op : part.body)
      if (op.kind == BodyOp::Kind::Store && op.buffer == buffer) return true;
  return false;
}

}  // namespace

bool SharedRow::holds(const BodyOp& op, const IndexExpr& start, int64_t row_points) const {
  return buffer >= 0 && op.kind == BodyOp::Kind::Load && op.buffer == buffer && start == row_start &&
         row_points == points;
}

SharedRow plan_shared_row(const LoopProgram& p, const LoopKernel& k, int rows) {
  if (k.kind != KernelKind::Fused || k.parts.empty()) return {};
  const LoopKernel& first = k.parts.front();
  const RowVectors v = row_vectors(p, first, rows);
  if (v.width == 1) return {};
  for (size_t i = 0; i < v.access.size(); ++i) {
    const BodyOp& op = first.body[i];
    if (v.access[i] != VectorAccess::Contiguous || op.kind != BodyOp::Kind::Load) continue;
    const int64_t size = dtype_size(p.buffers[static_cast<size_t>(op.buffer)].dtype);
    if (size * v.width != kVectorBytes || stores_buffer(k, op.buffer)) return {};
    const int64_t n = first.loops.back();
    const int64_t bytes = ((n + v.width - 1) * size + kVectorBytes - 1) / kVectorBytes * kVectorBytes;
    return {.buffer = op.buffer, .row_start = v.row_start, .width = v.width, .points = n, .bytes = bytes};
  }
  return {};
}

void KernelWriter::declare_shared_row() {
  const std::string type(cpp::storage_type(p_.buffers[static_cast<size_t>(shared_->buffer)].dtype));
  line("extern __shared__ kiln_v16 kiln_row_v[];  // the row of " + buffer_pointer(p_, shared_->buffer) + " (" +
       std::to_string(shared_->bytes) + " bytes), element i at kiln_row[first % " + std::to_string(shared_->width) +
       " + i]");
  line(type + "* const kiln_row = (" + type + "*)kiln_row_v;");
}

void KernelWriter::stage_shared_row() {
  const std::string w = std::to_string(shared_->width), n = std::to_string(shared_->points);
  const std::string from = buffer_pointer(p_, shared_->buffer);
  open_block("{  // the row into shared memory: read from global memory once");
  line("const " + index_ + " first = " + cpp::index_cpp(shared_->row_start) + ";");
  line("const " + index_ + " lead = first % " + w + ";  // kiln_row's alignment is global memory's");
  line("const " + index_ + " head = (" + w + " - lead) % " + w + ";");
  line("const " + index_ + " groups = (" + n + " - head) / " + w + ";");
  open_block("for (" + index_ + " p = " + thread_index() + "; p < head; p += " + block_threads() + ") {");
  line("kiln_row[lead + p] = " + from + "[first + p];");
  close_block();
  const std::string u = std::to_string(kCopyVectorsInFlight);
  line("const kiln_v16* const src = (const kiln_v16*)(" + from + " + first + head);");
  line("kiln_v16* const dst = (kiln_v16*)(kiln_row + lead + head);");
  open_block("for (" + index_ + " g = " + thread_index() + "; g < groups; g += " + u + " * " + block_threads() +
             ") {  // " + u + " loads in flight a thread, then their stores");
  line("kiln_v16 c[" + u + "];");
  line("#pragma unroll");
  line("for (int u = 0; u < " + u + "; ++u) if (g + u * " + block_threads() + " < groups) c[u] = src[g + u * " +
       block_threads() + "];");
  line("#pragma unroll");
  line("for (int u = 0; u < " + u + "; ++u) if (g + u * " + block_threads() + " < groups) dst[g + u * " +
       block_threads() + "] = c[u];");
  close_block();
  open_block("for (" + index_ + " p = head + groups * " + w + " + " + thread_index() + "; p < " + n +
             "; p += " + block_threads() + ") {");
  line("kiln_row[lead + p] = " + from + "[first + p];");
  close_block();
  line("__syncthreads();");
  close_block();
}

}  // namespace kiln::cuda
