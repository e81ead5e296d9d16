// Control kernels (cond, while: lower/loop_control.h) in the compiled CPU runtime: the host reads
// the predicate and runs a region's kernels, which were compiled with the rest of the program.
// A while loop's carried and next buffers are exchanged by swapping their pointers (double
// buffering: nothing is copied or allocated per iteration); the memory plan gives each pair
// one lifetime, so either buffer's bytes may end up holding the carried values.
#include <utility>

#include "core/element.h"
#include "lower/loop_control.h"
#include "runtime/cpu/compiled_program.h"

namespace kiln {

Status CompiledProgram::run_control(const LoopKernel& k, int at, RunState& s) const {
  // check_loop_bounds has checked the rules (a one-element bool predicate, pairs of one layout).
  auto predicate = [&] {
    return load_int(s.storage[static_cast<size_t>(k.predicate)].data_bytes(), DType::Bool, 0) != 0;
  };
  // The flat index of each region's first kernel: regions follow their kernel in pre-order.
  int first[2] = {at + 1, at + 1};
  for (size_t i = 0; i < k.regions.at(0).size(); ++i) first[1] = ends_[static_cast<size_t>(first[1])];
  if (k.kind == KernelKind::Cond) {
    const int r = predicate() ? 0 : 1;
    return run_kernels(k.regions.at(static_cast<size_t>(r)), first[r], s);
  }
  while (true) {
    KILN_TRY(run_kernels(k.regions.at(0), first[0], s));
    if (!predicate()) return Status::ok();
    KILN_TRY(run_kernels(k.regions.at(1), first[1], s));
    for (size_t i = 0; i < k.carried.size(); ++i) {
      const size_t c = static_cast<size_t>(k.carried[i]), n = static_cast<size_t>(k.next[i]);
      std::swap(s.pointers[c], s.pointers[n]);
      std::swap(s.storage[c], s.storage[n]);
    }
  }
}

}  // namespace kiln
