// The CUDA driver loaded at run time (runtime/cuda/cuda_driver.h) where there is no GPU: a
// driver that is not there and the toolkit's stub are clear errors, and failed calls read as
// "<call>: <NAME> (<code>): <description>, <detail>". The GPU side is tests/gpu/.
#include <gtest/gtest.h>

#include <filesystem>

#include "runtime/cuda/cuda_driver.h"

namespace kiln {
namespace {

TEST(CudaDriver, AMissingDriverSaysWhichLibraryAndWhatToInstall) {
  auto driver = CudaDriver::load("/nonexistent/kiln-test/libcuda.so.1");
  ASSERT_FALSE(driver);
  const std::string& message = driver.error().message();
  EXPECT_EQ(message.rfind("the CUDA driver (/nonexistent/kiln-test/libcuda.so.1) not found (", 0), 0u) << message;
  EXPECT_NE(message.find("No such file or directory"), std::string::npos) << message;
  EXPECT_NE(message.find("install the NVIDIA driver"), std::string::npos) << message;
}

// The toolkit ships a stub libcuda for linking; its cuInit answers CUDA_ERROR_STUB_LIBRARY and
// its cuGetErrorName does not know that name, so kiln's own is used.
TEST(CudaDriver, TheToolkitsStubIsNotADriver) {
  const std::string stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (!std::filesystem::exists(stub)) GTEST_SKIP() << "no CUDA toolkit stub at " << stub;
  auto driver = CudaDriver::load(stub);
  ASSERT_FALSE(driver);
  const std::string& message = driver.error().message();
  EXPECT_EQ(message,
            "cuInit: CUDA_ERROR_STUB_LIBRARY (34): it is the CUDA toolkit's stub library, not a driver: install the "
            "NVIDIA driver")
      << message;
}

TEST(CudaError, ACallNameCodeDescriptionAndDetail) {
  EXPECT_EQ(format_cuda_error("cuMemAlloc", kCudaErrorOutOfMemory, known_cuda_result_name(kCudaErrorOutOfMemory),
                              "out of memory", "asking for " + format_bytes(80ull << 30)),
            "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory, asking for 80.0 GiB");
  EXPECT_EQ(format_cuda_error("cuInit", kCudaErrorNoDevice, known_cuda_result_name(kCudaErrorNoDevice),
                              "no CUDA-capable device is detected"),
            "cuInit: CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected");
  EXPECT_EQ(format_cuda_error("cuModuleLoadData", 209, known_cuda_result_name(209), "no kernel image is available"),
            "cuModuleLoadData: CUDA_ERROR_NO_BINARY_FOR_GPU (209): no kernel image is available");
}

TEST(CudaError, ACodeNobodyNamesStillSaysItsNumber) {
  EXPECT_EQ(known_cuda_result_name(12345), "");
  EXPECT_EQ(format_cuda_error("cuLaunchKernel", 12345, "", ""), "cuLaunchKernel: CUDA error (12345)");
  EXPECT_EQ(format_cuda_error("cuInit", kCudaErrorStubLibrary, "CUDA_ERROR_STUB_LIBRARY", "", "it is a stub"),
            "cuInit: CUDA_ERROR_STUB_LIBRARY (34): it is a stub");
}

TEST(CudaError, BytesReadInBinaryUnits) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(256ull << 20), "256.0 MiB");
  EXPECT_EQ(format_bytes(80ull << 30), "80.0 GiB");
}

}  // namespace
}  // namespace kiln
