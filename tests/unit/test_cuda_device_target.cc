// The launch target of a real device (runtime/cuda/cuda_device_target.h).
#include <gtest/gtest.h>

#include "runtime/cuda/cuda_device_target.h"

namespace kiln {
namespace {

TEST(CudaDeviceTarget, TakesEveryNumberTheCostModelUsesFromTheDevice) {
  CudaDeviceProperties p;  // an H200's numbers, but for the L2 and SM count: a made-up card
  p.compute_major = 9;
  p.compute_minor = 0;
  p.sm_count = 114;
  p.max_threads_per_block = 1024;
  p.max_threads_per_sm = 2048;
  p.shared_memory_per_block = 227 * 1024;
  p.shared_memory_per_block_without_optin = 48 * 1024;
  p.shared_memory_per_sm = 228 * 1024;
  p.registers_per_sm = 65536;
  p.l2_bytes = 40 * 1024 * 1024;
  const CudaTarget t = cuda_target_of(p);
  EXPECT_EQ(t.arch(), "sm_90");
  EXPECT_EQ(t.multiprocessors, 114);
  EXPECT_EQ(t.max_threads_per_block, 1024);
  EXPECT_EQ(t.max_threads_per_multiprocessor, 2048);
  EXPECT_EQ(t.shared_bytes_per_block, 48 * 1024);
  EXPECT_EQ(t.shared_bytes_per_block_optin, 227 * 1024);
  EXPECT_EQ(t.shared_bytes_per_multiprocessor, 228 * 1024);
  EXPECT_EQ(t.registers_per_multiprocessor, 65536);
  EXPECT_EQ(t.l2_bytes, 40 * 1024 * 1024);
}

TEST(CudaDeviceTarget, WithoutADriverTheGivenTargetStands) {
  if (CudaDriver::get()) GTEST_SKIP() << "a CUDA driver is present: the device's own target applies";
  CudaTarget fallback;
  fallback.multiprocessors = 7;
  EXPECT_EQ(cuda_target_or(0, fallback).multiprocessors, 7);
}

}  // namespace
}  // namespace kiln
