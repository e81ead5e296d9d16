#include "codegen/cuda/cuda_launch.h"

#include <algorithm>
#include <bit>

namespace kiln::cuda {

namespace {

constexpr int kWarp = 32;
constexpr int64_t kMostGridBlocks = 2147483647;  // CUDA's limit on gridDim.x

uint32_t grid_for(int64_t blocks, int block, const CudaTarget& target) {
  return static_cast<uint32_t>(std::clamp<int64_t>(blocks, 1, resident_blocks(block, target) * kWavesPerGrid));
}

}  // namespace

int64_t resident_blocks(int block, const CudaTarget& target) {
  const int64_t per_sm = std::max(1, target.max_threads_per_multiprocessor / block);
  return std::max<int64_t>(1, per_sm * target.multiprocessors);
}

int64_t max_fused_row_bytes(const CudaTarget& target) {
  const int block = std::min(kLongRowBlockThreads, target.max_threads_per_block);
  return static_cast<int64_t>(
      std::bit_floor(static_cast<uint64_t>(std::max<int64_t>(1, target.l2_bytes / resident_blocks(block, target)))));
}

LaunchShape memory_row_launch(int64_t rows, int64_t row_points, int64_t row_bytes, const CudaTarget& target) {
  const LaunchShape shape = row_launch(rows, row_points, target);
  if (resident_blocks(static_cast<int>(shape.block), target) * row_bytes <= target.l2_bytes) return shape;
  const int block = std::min(kLongRowBlockThreads, target.max_threads_per_block);
  return {grid_for(rows, block, target), static_cast<uint32_t>(block)};
}

LaunchShape pointwise_launch(int64_t points, const CudaTarget& target) {
  const int max_block = std::min(kMaxBlockThreads, target.max_threads_per_block);
  const int block = static_cast<int>(std::clamp<int64_t>((points + kWarp - 1) / kWarp * kWarp, kWarp, max_block));
  return {grid_for((points + block - 1) / block, block, target), static_cast<uint32_t>(block)};
}

LaunchShape row_launch(int64_t rows, int64_t row_points, const CudaTarget& target) {
  const int max_block = std::min(kMaxBlockThreads, target.max_threads_per_block);
  int block = kWarp;
  while (block < max_block && block < row_points) block *= 2;
  return {grid_for(rows, block, target), static_cast<uint32_t>(block)};
}

HeldRowLaunch held_row_launch(int64_t rows, int64_t groups, int width, int arrays, const CudaTarget& target) {
  const int max_block = std::min(kMaxBlockThreads, target.max_threads_per_block);
  for (int block = kWarp; block <= max_block; block *= 2) {
    const int64_t per_array = (groups + block - 1) / block * width;
    if (per_array <= kMostHeldValuesPerArray && per_array * std::max(arrays, 1) <= kMostHeldValues)
      return {
          .shape = {static_cast<uint32_t>(std::clamp<int64_t>(rows, 1, kMostGridBlocks)), static_cast<uint32_t>(block)},
          .groups_per_thread = static_cast<int>((groups + block - 1) / block)};
  }
  return {};
}

}  // namespace kiln::cuda
