// What ptxas says about each kernel it compiled (NVRTC with --ptxas-options=-v): registers,
// spills and stack, for the compile report and the no-spill test. Parsed from NVRTC's log.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

struct KernelResources {
  std::string name;  // the entry point's symbol (mangled unless the kernel is extern "C")
  int registers = 0;
  int64_t spill_store_bytes = 0;
  int64_t spill_load_bytes = 0;
  int64_t stack_frame_bytes = 0;  // local memory per thread: spills and locally indexed arrays

  bool spills() const { return spill_store_bytes > 0 || spill_load_bytes > 0; }
};

// One entry per "Compiling entry function 'NAME'" in `log`, in the log's order, with the numbers
// of its "Function properties for NAME" and "Used N registers" lines. Properties of device
// functions that are not entry points are not kernels and are left out. A log without ptxas
// lines gives no entries.
std::vector<KernelResources> parse_ptxas_log(std::string_view log);

}  // namespace kiln
