#include <algorithm>

#include "codegen/cuda/cuda_body.h"
#include "codegen/cuda/cuda_kernel_writer.h"

namespace kiln::cuda {

void KernelWriter::two_pass_m2(const LoopKernel& part, ResultFor who, const PointWalk& walk) {
  const size_t red = static_cast<size_t>(part.reduce_op), end = reduce_ops_end(part);
  const int64_t count = points(part.loops, k_.loops.size(), part.loops.size());
  const auto is_m2 = [&](size_t r) { return part.body[r].reduce == ReduceKind::WelfordM2; };
  const auto operand = [&](size_t r) { return part.body[r].args.at(0); };
  // Pass 1: the reduce ops as they are, each welford_m2 as the sum of its operand (that of the
  // part's welford_mean of the same operand, where there is one): sum_of[r - red] is reduce op
  // r's accumulator.
  accs_.clear();
  std::vector<size_t> sum_of(end - red);
  for (size_t r = red; r < end; ++r) {
    const auto mean = std::find_if(
        part.body.begin() + static_cast<std::ptrdiff_t>(red), part.body.begin() + static_cast<std::ptrdiff_t>(r),
        [&](const BodyOp& o) { return o.reduce == ReduceKind::WelfordMean && o.args.at(0) == operand(r); });
    if (is_m2(r) && mean != part.body.begin() + static_cast<std::ptrdiff_t>(r)) {
      sum_of[r - red] = sum_of[static_cast<size_t>(mean - part.body.begin()) - red];
      continue;
    }
    BodyOp rop = part.body[r];
    if (is_m2(r)) rop.reduce = ReduceKind::Sum;
    const DType value = is_m2(r) ? DType::F64 : part.body[static_cast<size_t>(operand(r))].dtype;
    sum_of[r - red] = accs_.size();
    accs_.emplace_back(rop, value, "a" + std::to_string(r - red), count);
    line(accs_.back().declare());
  }
  walk([&](const std::vector<std::string>& element) {
    row_ops(part, red, element);
    for (size_t r = red, a = 0; r < end; ++r) {
      if (sum_of[r - red] != a) continue;  // a welford_m2 reading its welford_mean's sum
      const BodyOp& rop = part.body[r];
      line(accs_[a++].update(value_name(operand(r)), rop.args.size() > 1 ? value_name(rop.args[1]) : ""));
    }
  });
  block_reduce(ResultFor::EveryThread, [&](const std::string& prefix, const std::string& at) {
    if (prefix.empty()) return;  // the block's states are the thread's registers already
    for (const BlockAccumulator& a : accs_) line(a.restore(prefix, at));
  });
  // Pass 2: each welford_m2 as the sum of its operand's squared deviations from the mean.
  const std::vector<BlockAccumulator> sums = std::move(accs_);
  std::vector<size_t> m2s;
  accs_.clear();
  for (size_t r = red; r < end; ++r) {
    if (!is_m2(r)) continue;
    m2s.push_back(r);
    const std::string name = "a" + std::to_string(r - red);
    line("const double " + name + "_mean = " + sums[sum_of[r - red]].name() + " * (1.0 / " + std::to_string(count) +
         ".0);");
    BodyOp rop = part.body[r];
    rop.reduce = ReduceKind::Sum;
    accs_.emplace_back(rop, DType::F64, name + "_dev", count);
    line(accs_.back().declare());
  }
  walk([&](const std::vector<std::string>& element) {
    row_ops(part, red, element);
    for (size_t m = 0; m < m2s.size(); ++m) {
      const std::string name = "a" + std::to_string(m2s[m] - red);
      line("const double " + name + "_d = (double)" + value_name(operand(m2s[m])) + " - " + name + "_mean;");
      line(accs_[m].update("(" + name + "_d * " + name + "_d)", ""));
    }
  });
  block_reduce(who, [&](const std::string& prefix, const std::string& at) {
    epilogue(part, [&](size_t r) {
      if (!is_m2(r)) return sums[sum_of[r - red]].result("", "", part.body[r].dtype);
      const auto m = std::find(m2s.begin(), m2s.end(), r) - m2s.begin();
      return accs_[static_cast<size_t>(m)].result(prefix, at, part.body[r].dtype);
    });
  });
}

}  // namespace kiln::cuda
