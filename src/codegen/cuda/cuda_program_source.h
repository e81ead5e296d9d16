// The contract between the CUDA emitter (codegen/cuda, text only) and the CUDA runtime
// (runtime/cuda, which compiles and runs the text): what emit_cuda_program gives for a loop
// program, so the runtime can compile it with NVRTC, allocate what it asks for and launch each
// kernel with the right arguments, without reading the source.
//
// ABI of an emitted kernel: extern "C" __global__ void <symbol>(<params>), its parameters in
// the order of CudaLaunch::args, each a pointer (`char*` to element 0 of a program buffer, laid
// out by the buffer's strides, f16/bf16 as uint16_t bits, bool as uint8_t 0/1; the scratch
// workspace at an offset; the error slot, an int the kernel sets to nonzero when an `indirect`
// index check fails). Grid and block are fixed at emit time (shapes are static). The runtime
// starts every buffer and the scratch workspace on a 256-byte boundary, so a kernel may use
// 16-byte vector accesses wherever its index proof says the element offset is a multiple of
// the vector.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

// What the cost model knows of the device (runtime/cuda/cuda_device.h reads it from the
// driver; the defaults are an H100 SXM's, so text emitted without a GPU is an sm_90 program).
struct CudaTarget {
  int compute_capability = 90;  // 10 * major + minor: sm_90
  int multiprocessors = 132;
  int max_threads_per_block = 1024;
  int64_t shared_bytes_per_block = 48 * 1024;         // without opt-in
  int64_t shared_bytes_per_block_optin = 227 * 1024;  // cuFuncSetAttribute's maximum
  int64_t shared_bytes_per_multiprocessor = 228 * 1024;
  int registers_per_multiprocessor = 65536;
  int max_threads_per_multiprocessor = 2048;
  int64_t l2_bytes = 50 * 1024 * 1024;

  std::string arch() const { return "sm_" + std::to_string(compute_capability); }
};

// One parameter of a launch.
struct CudaArg {
  enum class Kind : uint8_t {
    Buffer,     // program buffer `buffer` (LoopProgram::buffers index), element 0
    Scratch,    // the program's scratch workspace at `offset` bytes (256-byte aligned)
    ErrorSlot,  // the run's error int
  };
  Kind kind = Kind::Buffer;
  int buffer = -1;
  int64_t offset = 0;
};

// One kernel launch. A loop kernel may need several (a split reduction's partials, then its
// deterministic second pass); they run in order on the program's stream.
struct CudaLaunch {
  std::string symbol;  // the extern "C" name in the source
  std::array<uint32_t, 3> grid = {1, 1, 1};
  std::array<uint32_t, 3> block = {1, 1, 1};
  uint32_t shared_bytes = 0;  // dynamic shared memory (> 48 KiB needs the opt-in attribute)
  std::vector<CudaArg> args;
};

struct CudaProgramSource {
  // What every NVRTC program of this loop program starts with: the types and those of kiln's
  // bf16/f16, math and Philox helpers that the kernels call (cuda_prelude.h's cuda_prelude_for;
  // no CUDA headers: NVRTC -minimal).
  std::string prelude;
  // Per flat kernel index: the text of its __global__ functions ("" for extern and control
  // kernels). The runtime compiles the prelude with any subset of these as one NVRTC program,
  // so it can split a large program into chunks compiled in parallel.
  std::vector<std::string> kernel_text;
  // Per flat kernel index (lower/loop_control.h): the launches that run it, in order. Empty for
  // extern kernels (the runtime runs them: matmuls as library calls) and control kernels (the
  // runtime drives them from the host, running their regions' kernels by these same indices).
  std::vector<std::vector<CudaLaunch>> launches;
  int64_t scratch_bytes = 0;  // the workspace CudaArg::Scratch offsets point into

  // The prelude and every kernel's text: the whole program as one NVRTC source (--emit=cuda).
  std::string source() const {
    std::string s = prelude;
    for (const std::string& k : kernel_text) s += k;
    return s;
  }
};

}  // namespace kiln
