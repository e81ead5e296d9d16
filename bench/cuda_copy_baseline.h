// The bandwidth baseline of bench/cuda_kernels_bench.cc: a device-to-device copy
// (cuMemcpyDtoDAsync) on one stream, each copy timed between two events after warm-up copies, as
// CudaProgram::time_resident times a program's runs.
#pragma once

#include "runtime/cuda/cuda_memory.h"
#include "runtime/cuda/run_marks.h"

namespace kiln::bench {

// Median seconds of a copy of `bytes` between two buffers on `context`'s device.
inline Expected<double> device_copy_seconds(const CudaContext& context, size_t bytes, int runs, int warmup = 3) {
  KILN_ASSIGN_OR_RETURN(DeviceBuffer from, DeviceBuffer::allocate(context, bytes));
  KILN_ASSIGN_OR_RETURN(DeviceBuffer to, DeviceBuffer::allocate(context, bytes));
  KILN_TRY(from.fill_bytes(1));
  KILN_ASSIGN_OR_RETURN(CudaStream stream, CudaStream::create(context));
  const CudaDriver& driver = context.driver();
  auto copy = [&]() {
    return driver.check(driver.api().memcpy_dtod_async(to.address(), from.address(), bytes, stream.handle()),
                        "cuMemcpyDtoDAsync");
  };
  for (int i = 0; i < warmup; ++i) KILN_TRY(copy());
  KILN_ASSIGN_OR_RETURN(RunMarks marks, RunMarks::create(context, runs));
  KILN_TRY(marks.record(0, stream));
  for (int i = 0; i < runs; ++i) {
    KILN_TRY(copy());
    KILN_TRY(marks.record(i + 1, stream));
  }
  KILN_ASSIGN_OR_RETURN(std::vector<double> seconds, marks.sorted_seconds());
  return seconds[seconds.size() / 2];
}

}  // namespace kiln::bench
