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

std::string KernelWriter::split_text(const ReducePlan& plan, const std::string& how) const {
  return how + " (" + std::to_string(plan.splits) + " chunks of " + std::to_string(plan.chunk) +
         " points), partials into the scratch workspace";
}

std::string KernelWriter::partial_slot(const std::string& o, const std::string& s) const {
  return s + " * " + std::to_string(outputs()) + " + " + o;
}

void KernelWriter::scratch_arrays(const ReducePlan& plan) {
  const int64_t slots = outputs() * plan.splits;
  make_accumulators(k_);
  int64_t offset = 0;
  for (const BlockAccumulator& a : accs_)
    for (const BlockAccumulator::Field& f : a.fields()) {
      line(f.type + "* __restrict__ g_" + name_of(a, f) + " = (" + f.type + "*)(kiln_scratch + " +
           std::to_string(offset) + ");");
      const int64_t bytes = slots * (f.type == "float" ? 4 : 8);
      offset += (bytes + 255) / 256 * 256;
    }
  out_.scratch_bytes = std::max(out_.scratch_bytes, offset);
}

void KernelWriter::partial_points(const std::string& var, const std::string& start, const std::string& stride,
                                  const ReducePlan& plan,
                                  const std::function<void(const std::string&, const std::string&)>& body) {
  const int64_t outs = outputs();
  open_block("for (" + index_ + " " + var + " = " + start + "; " + var + " < " + std::to_string(outs * plan.splits) +
             "; " + var + " += " + stride + ") {");
  line("const " + index_ + " o = " + var + " % " + std::to_string(outs) + ", s = " + var + " / " +
       std::to_string(outs) + ";");
  unflatten(k_, "o", 0, k_.num_outer_loops());
  body("o", "s");
  close_block();
}

void KernelWriter::column_partials(const std::string& symbol, const ReducePlan& plan, const ColumnVectors& v) {
  const int outer = k_.num_outer_loops(), n = static_cast<int>(k_.loops.size()), w = plan.columns;
  const int64_t outs = outputs(), count = points(k_.loops, static_cast<size_t>(outer), k_.loops.size());
  const int64_t column_blocks = (outs / w + plan.groups - 1) / plan.groups;
  const std::string ws = std::to_string(w), lanes = std::to_string(plan.lanes);
  const std::string how = "a block per " + std::to_string(plan.groups * w) +
                          " columns and chunk of rows, a thread per " +
                          (w == 1 ? "column" : ws + " columns (vector loads)") + " and every " + lanes +
                          "th row of the chunk, the rows combined in shared memory (" + std::to_string(plan.splits) +
                          " chunks of " + std::to_string(plan.chunk) + " rows), partials into the scratch workspace";
  block_ = static_cast<int>(plan.partials.block);
  function(symbol + "_partials", plan.partials, how, true, [&] {
    scratch_arrays(plan);
    // Each reduce op (several: reductions merged over one buffer) its own one-field states.
    const std::string mine = "j * " + std::to_string(block_) + " + threadIdx.x";
    for (const BlockAccumulator& a : accs_)
      line("__shared__ " + a.fields()[0].type + " s_" + a.name() + "[" + std::to_string(w * block_) + "];");
    line("const int x = threadIdx.x % " + std::to_string(plan.groups) + ", y = threadIdx.x / " +
         std::to_string(plan.groups) + ";  // the thread's column group in the block, its row lane");
    open_block("for (" + index_ + " b = " + block_index() + "; b < " + std::to_string(column_blocks * plan.splits) +
               "; b += " + grid_blocks() + ") {");
    line("const " + index_ + " o = (b % " + std::to_string(column_blocks) + " * " + std::to_string(plan.groups) +
         " + x) * " + ws + ", s = b / " + std::to_string(column_blocks) +
         ";  // the thread's first column (output point), the chunk");
    for (const BlockAccumulator& a : accs_) line(a.fields()[0].type + " t_" + a.name() + "[" + ws + "];");
    lanes_loop(w, [&] {
      for (const BlockAccumulator& a : accs_) line(a.start_at("t_", "j"));
    });
    open_block("if (o < " + std::to_string(outs) + ") {");
    unflatten(k_, "o", 0, outer);
    line("const " + index_ + " end = s * " + std::to_string(plan.chunk) + " + " + std::to_string(plan.chunk) + " < " +
         std::to_string(count) + " ? s * " + std::to_string(plan.chunk) + " + " + std::to_string(plan.chunk) + " : " +
         std::to_string(count) + ";");
    line("#pragma unroll 4");
    open_block("for (" + index_ + " r = s * " + std::to_string(plan.chunk) + " + y; r < end; r += " + lanes + ") {");
    unflatten(k_, "r", outer, n);
    const size_t red = static_cast<size_t>(k_.reduce_op);
    std::vector<std::string> element(red);  // by body op: its value in the thread's column j
    std::vector<IndexExpr> here;            // the thread's first column: the loop variables as they are
    for (int d = 0; d < n; ++d) here.push_back(IndexExpr::var(d));
    for (size_t i = 0; w > 1 && i < red; ++i) {
      const BodyOp& op = k_.body[i];
      if (v.access[i] == VectorAccess::None) continue;  // not a load (no buffer)
      const DType t = p_.buffers[static_cast<size_t>(op.buffer)].dtype;
      if (v.access[i] == VectorAccess::Broadcast) {
        element[i] = "l" + std::to_string(i);
        line("const " + std::string(cpp::storage_type(t)) + " " + element[i] + " = " + buffer_pointer(p_, op.buffer) +
             "[" + cpp::index_cpp(op.index) + "];  // the same for the row");
      } else if (v.access[i] == VectorAccess::Contiguous) {
        element[i] = vector_element("l" + std::to_string(i), "j", w, t);
        line(vector_union("l" + std::to_string(i), w, t) + ";");
        vector_copy("l" + std::to_string(i), w, t, op, here, true);
      }
    }
    lanes_loop(w, [&] {
      for (size_t i = 0; i < red; ++i) line(body_op_text(p_, k_, static_cast<int>(i), element[i]));
      for (size_t r = 0; r < accs_.size(); ++r)
        line(accs_[r].update_at("t_", "j", value_name(k_.body[red + r].args.at(0))));
    });
    close_block();
    close_block();
    lanes_loop(w, [&] {
      for (const BlockAccumulator& a : accs_) line(a.copy("s_", mine, "t_", "j"));
    });
    line("__syncthreads();");
    if (plan.lanes > 1) {
      open_block("for (int h = " + std::to_string(plan.lanes / 2) + "; h > 0; h /= 2) {");
      open_block("if (y < h) {");
      lanes_loop(w, [&] {
        for (const BlockAccumulator& a : accs_)
          line(a.combine("s_", mine, mine + " + h * " + std::to_string(plan.groups)));
      });
      close_block();
      line("__syncthreads();");
      close_block();
    }
    open_block("if (y == 0 && o < " + std::to_string(outs) + ") {");
    lanes_loop(w, [&] {
      for (const BlockAccumulator& a : accs_) line(a.copy("g_", partial_slot("o + j", "s"), "s_", mine));
    });
    close_block();
    line("__syncthreads();");
    close_block();
  });
}

void KernelWriter::lanes_loop(int w, const std::function<void()>& body) {
  line("#pragma unroll");
  open_block("for (int j = 0; j < " + std::to_string(w) + "; ++j) {");
  body();
  close_block();
}

void KernelWriter::column_finish(const std::string& symbol, const ReducePlan& plan) {
  function(symbol + "_finish", plan.finish,
           "a thread per output point folding its " + std::to_string(plan.splits) + " partials in order", true, [&] {
             scratch_arrays(plan);
             for_points(k_, "o", 0, k_.num_outer_loops(), grid_thread(), grid_threads(), [&] {
               for (const BlockAccumulator& a : accs_) line(a.declare());
               line("#pragma unroll 8");
               open_block("for (" + index_ + " s = 0; s < " + std::to_string(plan.splits) + "; ++s) {");
               for (const BlockAccumulator& a : accs_)
                 line(a.update("g_" + a.name() + "[" + partial_slot("o", "s") + "]", ""));
               close_block();
               for (const BlockAccumulator& a : accs_) line(a.save("g_", "o"));
               epilogue(k_, "g_", "o");
             });
           });
}

void KernelWriter::finish(const std::string& symbol, const ReducePlan& plan) {
  if (plan.warp_finish) {
    warp_finish(symbol, plan);
    return;
  }
  function(symbol + "_finish", plan.finish,
           "a thread per output point folding its " + std::to_string(plan.splits) + " partials in order", true, [&] {
             scratch_arrays(plan);
             for_points(k_, "o", 0, k_.num_outer_loops(), grid_thread(), grid_threads(), [&] {
               if (plan.splits > 1) {
                 open_block("for (" + index_ + " s = 1; s < " + std::to_string(plan.splits) + "; ++s) {");
                 for (const BlockAccumulator& a : accs_) line(a.combine("g_", "o", partial_slot("o", "s")));
                 close_block();
               }
               epilogue(k_, "g_", "o");
             });
           });
}

void KernelWriter::warp_finish(const std::string& symbol, const ReducePlan& plan) {
  const std::string warps = std::to_string(plan.finish.block / kWarpThreads), lanes = std::to_string(kWarpThreads);
  block_ = static_cast<int>(plan.finish.block);
  function(symbol + "_finish", plan.finish,
           "a warp per output point folding its " + std::to_string(plan.splits) + " partials (lane l: l, l + " + lanes +
               ", ... in order), the lanes joined by shuffles",
           true, [&] {
             scratch_arrays(plan);
             for_points(k_, "o", 0, k_.num_outer_loops(), block_index() + " * " + warps + " + threadIdx.x / " + lanes,
                        grid_blocks() + " * " + warps, [&] {
                          for (const BlockAccumulator& a : accs_) line(a.declare());
                          open_block("for (" + index_ + " s = threadIdx.x % " + lanes + "; s < " +
                                     std::to_string(plan.splits) + "; s += " + lanes + ") {");
                          for (const BlockAccumulator& a : accs_) line(a.join_from("g_", partial_slot("o", "s")));
                          close_block();
                          warp_join(kWarpThreads);
                          open_block("if (threadIdx.x % " + lanes + " == 0) {");
                          epilogue(k_, "", "");
                          close_block();
                        });
           });
}

}  // namespace kiln::cuda
