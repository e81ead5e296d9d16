// What a backend tells the compile report (report/compile_report.h) about a program compiled
// for its target, beyond the loop IR and the memory plan every backend has: each launched
// kernel with its launch size and the resources the target's compiler or driver reports, the
// device memory it plans, the ops it runs off the device, and its compile statistics. Plain
// data, filled by the backend (runtime/), shown by the report without knowing the target.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

// One kernel launch of the program.
struct TargetKernel {
  std::string symbol = {};       // the entry point's name in the source
  std::string loop_kernel = {};  // the loop kernel it runs ("k3"); a loop kernel may need several launches
  std::array<uint32_t, 3> grid = {1, 1, 1};
  std::array<uint32_t, 3> block = {1, 1, 1};
  int64_t dynamic_shared_bytes = 0;
  int64_t source_lines = 0;  // of the loop kernel's text (all its launches' functions)
  // The resources, where the target says them (unset: not known without a device or a report).
  std::optional<int> registers = {};                // per thread
  std::optional<int64_t> local_bytes = {};          // local memory per thread: stack frame and spills
  std::optional<int64_t> spill_store_bytes = {};    // the compiler's report only
  std::optional<int64_t> spill_load_bytes = {};     // the compiler's report only
  std::optional<int64_t> static_shared_bytes = {};  // the driver's only
  std::string resources_from = {};                  // "ptxas", "driver", or "" when unset
};

// One region of the program's device memory.
struct TargetMemoryRegion {
  std::string name = {};  // "inputs", "outputs", "temporaries", ...
  int64_t bytes = 0;
};

struct TargetCompileStats {
  std::string compiler = {};  // "NVRTC 13.0 for sm_90"
  std::string cache_dir = {};
  int units = 0;       // compiled units (NVRTC programs)
  int cache_hits = 0;  // of them, found in the cache
  double seconds = 0;  // looking up and compiling, wall time
};

struct TargetReport {
  std::string device = {};                         // "CUDA sm_90 (not loaded)", "NVIDIA H100 80GB HBM3 (sm_90)"
  std::vector<TargetKernel> kernels = {};          // in flat kernel order
  std::vector<TargetMemoryRegion> memory = {};     // the device allocation's regions, in address order
  int64_t memory_bytes = 0;                        // the whole allocation
  std::vector<std::string> host_copied_ops = {};   // ops that run on the host, their operands copied
  std::optional<TargetCompileStats> compile = {};  // unset: not compiled (the compiler is missing)
  std::vector<std::string> notes = {};             // what the figures come from and what is missing, one a sentence

  bool empty() const { return device.empty(); }
};

}  // namespace kiln
