// Launch sizes by a deterministic cost model: a pure function of the kernel's extents and the
// device (CudaTarget), so the same program and device give the same launches, and text emitted
// without a GPU is the text an H100 would get. docs/CUDA_CODEGEN.md has the numbers and why.
#pragma once

#include <cstdint>

#include "codegen/cuda/cuda_program_source.h"

namespace kiln::cuda {

// Threads of a block for work spread over points: at most this many (8 warps: a register
// budget of 255 per thread under __launch_bounds__, so no kernel spills for lack of them) ...
inline constexpr int kMaxBlockThreads = 256;
// ... and blocks per multiprocessor's worth of resident threads a grid covers before its
// grid-stride loops take over (more blocks than that only add scheduling).
inline constexpr int kWavesPerGrid = 4;

struct LaunchShape {
  uint32_t grid = 1;
  uint32_t block = 1;
};

// One thread per point, grid-stride: a block of kMaxBlockThreads (fewer, a multiple of the warp,
// when the kernel has fewer points), as many blocks as cover the points, at most kWavesPerGrid
// waves of the device's resident blocks.
LaunchShape pointwise_launch(int64_t points, const CudaTarget& target);

// One block per row (a reduction's output point, a fused kernel's row), its threads striding
// over the row's `row_points`: a power of two from one warp to kMaxBlockThreads, the smallest
// that gives each thread a point; as many blocks as rows, at most kWavesPerGrid waves.
LaunchShape row_launch(int64_t rows, int64_t row_points, const CudaTarget& target);

// Blocks of `block` threads the device holds resident at once (by threads).
int64_t resident_blocks(int block, const CudaTarget& target);

// A fused kernel's parts re-read its row from L2 (cuda_block_reduce.cc's parts), so the rows of
// every resident block must fit L2 together. A row too long for the resident blocks of
// row_launch's block takes a block of this many threads: fewer rows in flight, each walked by
// more threads.
inline constexpr int kLongRowBlockThreads = 1024;

// The CUDA backend's fusion limit: the most bytes a fused part's row may read (part_row_bytes)
// so that the rows of the resident blocks of kLongRowBlockThreads fit L2 (a power of two).
int64_t max_fused_row_bytes(const CudaTarget& target);

// A block per fused row read from memory, each reading `row_bytes`: row_launch's, or a block of
// kLongRowBlockThreads when the rows of row_launch's resident blocks would not fit L2 together.
LaunchShape memory_row_launch(int64_t rows, int64_t row_points, int64_t row_bytes, const CudaTarget& target);

// A fused row held in registers (cuda_held_row.h): a thread holds at most this many values of
// each array the row keeps (its points of a loaded or stored row buffer) ...
inline constexpr int kMostHeldValuesPerArray = 16;
// ... and at most this many in all, so a row's values and the work on them fit the registers
// __launch_bounds__(256) leaves without spilling (tests/nvrtc's cuda_no_spill checks).
inline constexpr int kMostHeldValues = 64;

struct HeldRowLaunch {
  LaunchShape shape;
  int groups_per_thread = 0;  // 0: the row does not fit any block
};

// `rows` rows of `groups` groups of `width` points each, `arrays` arrays held: a block per
// row, the fewest threads (a power of two from a warp to kMaxBlockThreads) at which each
// thread holds at most kMostHeldValuesPerArray values of an array and kMostHeldValues in
// all; thread t takes groups t, t + block, ...; a block per row, with no cap of waves (a held
// row's block retires once its row is written: docs/CUDA_CODEGEN.md, "Launch cost model").
HeldRowLaunch held_row_launch(int64_t rows, int64_t groups, int width, int arrays, const CudaTarget& target);

// A kernel whose points must run in order (stores that repeat an element): one thread.
inline constexpr LaunchShape kSerialLaunch = {1, 1};

}  // namespace kiln::cuda
