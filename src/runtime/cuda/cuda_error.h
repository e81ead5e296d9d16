// How a failed CUDA driver call reads: "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory,
// asking for 80.0 GiB". The driver names its own results (cuGetErrorName/String); the few codes
// kiln acts on are named here too, for a driver that cannot answer (the toolkit's stub).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kiln {

// CUresult, the driver's result type (cuda.h's enum), and the codes kiln acts on.
using CuResult = int;
constexpr CuResult kCudaSuccess = 0;
constexpr CuResult kCudaErrorOutOfMemory = 2;
constexpr CuResult kCudaErrorStubLibrary = 34;
constexpr CuResult kCudaErrorNoDevice = 100;

// cuda.h's name for `result` ("CUDA_ERROR_NO_DEVICE") for the codes kiln names itself, else "".
std::string_view known_cuda_result_name(CuResult result);

// "<call>: <name> (<result>): <description>, <detail>"; an empty name (the driver did not know
// it) reads "CUDA error", an empty description or detail is left out with its separator.
std::string format_cuda_error(std::string_view call, CuResult result, std::string_view name,
                              std::string_view description, std::string_view detail = {});

// A byte count as people read it: "512 B", "1.5 KiB", "80.0 GiB".
std::string format_bytes(uint64_t bytes);

}  // namespace kiln
