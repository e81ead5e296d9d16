// Memory planning for a loop program: temporaries share one arena, placed by liveness so that
// buffers whose lifetimes (first to last kernel that touches them) do not overlap reuse the
// same bytes. Greedy: largest first, each at the lowest aligned offset free during its whole
// lifetime (kernels nested in control kernels count in pre-order, and a while loop's
// lifetimes cover the whole loop where they reach past one iteration, loop_control.h). Inputs
// are the caller's; outputs escape to the caller, so each gets its own
// allocation. The plan's peak is what running the program holds at its worst moment.
#pragma once

#include <cstdint>
#include <vector>

#include "lower/loop_ir.h"

namespace kiln {

struct MemoryPlan {
  static constexpr int64_t kAlignment = 64;  // bytes; every temporary starts on a cache line (the CPU's)

  std::vector<int64_t> offset;  // per buffer: byte offset in the arena; -1 for inputs and outputs
  int64_t arena_bytes = 0;      // the arena the temporaries share
  int64_t temp_bytes = 0;       // the temporaries' sizes summed (one allocation each)
  int64_t output_bytes = 0;
  int64_t input_bytes = 0;
  // Per kernel of p.kernels: bytes of outputs and temporaries live while it runs (memory over
  // time); a control kernel's (loop_control.h) is the most while any kernel of its regions runs.
  std::vector<int64_t> live_bytes;

  // Inputs, outputs and the arena: the planned peak of one run.
  int64_t peak_bytes() const { return input_bytes + output_bytes + arena_bytes; }
};

// Every temporary starts at a multiple of `alignment` bytes (a power of two): the CPU's cache
// line by default, 256 bytes for the CUDA runtime (codegen/cuda/cuda_program_source.h).
MemoryPlan plan_memory(const LoopProgram& p, int64_t alignment = MemoryPlan::kAlignment);

}  // namespace kiln
