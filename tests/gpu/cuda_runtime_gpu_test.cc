// The CUDA runtime layer (src/runtime/cuda/) on a real GPU: the device's properties, a vector add
// compiled by NVRTC to a cubin for the device's architecture, loaded, launched on a stream,
// copied back and compared exactly; and the errors only a driver gives (out of memory, a launch
// refused, an image that is not a cubin, a kernel that is not in the module). A plain program
// rather than GoogleTest, so that it builds on the GPU machine, which has no GoogleTest
// (scripts/gpu-test.sh). Where there is no driver or no device it prints "no CUDA device: ..."
// and exits 77, which ctest counts as skipped.
#include <cstdio>
#include <string>
#include <vector>

#include "gpu_checks.h"
#include "runtime/cuda/cuda_memory.h"
#include "runtime/cuda/cuda_module.h"
#include "runtime/cuda/cuda_stream.h"
#include "runtime/cuda/nvrtc.h"

namespace kiln {
namespace {

constexpr const char* kVectorAdd = R"(
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)";

void print_properties(const CudaDeviceProperties& p) {
  std::printf(
      "device %d: %s, %s, %d SMs, shared memory %s per block (opt-in) and %s per SM, %d registers per SM, "
      "L2 %s, memory %s\n",
      p.ordinal, p.name.c_str(), p.arch().c_str(), p.sm_count, format_bytes(p.shared_memory_per_block).c_str(),
      format_bytes(p.shared_memory_per_sm).c_str(), p.registers_per_sm, format_bytes(p.l2_bytes).c_str(),
      format_bytes(p.memory_bytes).c_str());
}

void check_vector_add(Checks& checks, const CudaContext& context, const CudaDeviceProperties& device) {
  auto cubin = compile_cuda_to_cubin(kVectorAdd, cubin_options(device.arch()));
  if (!checks.expect_ok(cubin, "vector_add compiles to a " + device.arch() + " cubin")) return;
  auto module = CudaModule::load(context, cubin->image);
  if (!checks.expect_ok(module, "the cubin loads")) return;
  auto kernel = module->kernel("vector_add");
  if (!checks.expect_ok(kernel, "vector_add is in the module")) return;

  const int n = (1 << 24) + 3;  // not a multiple of the block: the bounds check matters
  const size_t bytes = sizeof(float) * static_cast<size_t>(n);
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i) * 0.5f;
    b[i] = 1.0f / static_cast<float>(i + 1);
  }
  auto da = DeviceBuffer::allocate(context, bytes);
  auto db = DeviceBuffer::allocate(context, bytes);
  auto dc = DeviceBuffer::allocate(context, bytes);
  auto stream = CudaStream::create(context);
  auto start = CudaEvent::create(context);
  auto stop = CudaEvent::create(context);
  if (!checks.expect_ok(da, "cuMemAlloc a") || !checks.expect_ok(db, "cuMemAlloc b") ||
      !checks.expect_ok(dc, "cuMemAlloc c") || !checks.expect_ok(stream, "cuStreamCreate") ||
      !checks.expect_ok(start, "cuEventCreate start") || !checks.expect_ok(stop, "cuEventCreate stop"))
    return;
  if (!checks.expect_ok(da->copy_from_host(a.data(), bytes), "copy a to the device") ||
      !checks.expect_ok(db->copy_from_host(b.data(), bytes), "copy b to the device") ||
      !checks.expect_ok(dc->fill_bytes(0xff), "fill c"))
    return;

  CuDevicePtr pa = da->address(), pb = db->address(), pc = dc->address();
  int count = n;
  void* params[] = {&pa, &pb, &pc, &count};
  LaunchDims dims;
  dims.block[0] = 256;
  dims.grid[0] = static_cast<unsigned>((n + 255) / 256);
  // The first launch warms up; the second is timed.
  bool launched = checks.expect_ok(module->launch(*kernel, dims, stream->handle(), params), "launch vector_add") &&
                  checks.expect_ok(start->record(*stream), "cuEventRecord") &&
                  checks.expect_ok(module->launch(*kernel, dims, stream->handle(), params), "launch again") &&
                  checks.expect_ok(stop->record(*stream), "cuEventRecord") &&
                  checks.expect_ok(stream->synchronize(), "cuStreamSynchronize");
  if (!launched) return;
  auto ms = stop->milliseconds_since(*start);
  if (checks.expect_ok(ms, "cuEventElapsedTime"))
    std::printf("vector_add of %d floats: %.3f ms, %.1f GB/s\n", n, *ms,
                3.0 * static_cast<double>(bytes) / (*ms * 1e6));

  if (!checks.expect_ok(dc->copy_to_host(c.data(), bytes), "copy c to the host")) return;
  int wrong = 0, first_wrong = -1;
  for (int i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i] && wrong++ == 0) first_wrong = i;
  checks.expect(
      wrong == 0, "vector_add matches the host exactly",
      wrong == 0 ? "" : std::to_string(wrong) + " elements differ, the first at " + std::to_string(first_wrong));
  LaunchDims too_large = dims;
  too_large.block[0] = 2048;  // past the 1024 threads a block may have
  Status refused = module->launch(*kernel, too_large, stream->handle(), params);
  if (checks.expect_error(refused, "a block of 2048 threads is refused", "cuLaunchKernel: CUDA_ERROR_"))
    checks.expect(refused.error().message().find("block [2048, 1, 1]") != std::string::npos,
                  "the launch error names the block", refused.error().message());
  checks.expect_error(CudaModule::load(context, "not a cubin").status(), "an image that is not a cubin",
                      "cuModuleLoadData: CUDA_ERROR_");
  checks.expect_error(module->kernel("no_such_kernel").status(), "a kernel not in the module",
                      "cuModuleGetFunction: CUDA_ERROR_NOT_FOUND (500): ");
  checks.expect_error(dc->copy_to_host(c.data(), bytes + 4), "a copy larger than the buffer",
                      "cuMemcpyDtoH: 64.0 MiB (67108880 bytes) do not fit a device buffer of 64.0 MiB");
}

void check_out_of_memory(Checks& checks, const CudaContext& context, const CudaDeviceProperties& device) {
  const size_t too_much = static_cast<size_t>(device.memory_bytes) * 2;
  auto buffer = DeviceBuffer::allocate(context, too_much);
  if (checks.expect_error(buffer.status(), "twice the device's memory is out of memory",
                          "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (2): "))
    checks.expect(buffer.error().message().find("asking for " + format_bytes(too_much)) != std::string::npos,
                  "the error names the size asked for", buffer.error().message());
}

int run() {
  Checks checks;
  std::optional<TestGpu> gpu = find_test_gpu(checks);
  if (!gpu) return checks.finish();
  const CudaDeviceProperties& device = gpu->device;
  print_properties(device);
  checks.expect(device.sm_count > 0 && device.memory_bytes > 0 && device.registers_per_sm > 0 &&
                    device.shared_memory_per_block > 0 && device.l2_bytes > 0,
                "the properties are all known");
  auto context = CudaContext::open(*gpu->driver, 0);
  if (!checks.expect_ok(context, "the primary context")) return checks.finish();
  check_vector_add(checks, *context, device);
  check_out_of_memory(checks, *context, device);
  return checks.finish();
}

}  // namespace
}  // namespace kiln

int main() { return kiln::run(); }
