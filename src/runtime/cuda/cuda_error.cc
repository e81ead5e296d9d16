#include "runtime/cuda/cuda_error.h"

#include <array>
#include <cstdio>
#include <utility>

namespace kiln {

std::string_view known_cuda_result_name(CuResult result) {
  static constexpr std::array<std::pair<CuResult, std::string_view>, 13> kNames{{
      {kCudaSuccess, "CUDA_SUCCESS"},
      {1, "CUDA_ERROR_INVALID_VALUE"},
      {kCudaErrorOutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY"},
      {3, "CUDA_ERROR_NOT_INITIALIZED"},
      {kCudaErrorStubLibrary, "CUDA_ERROR_STUB_LIBRARY"},
      {kCudaErrorNoDevice, "CUDA_ERROR_NO_DEVICE"},
      {101, "CUDA_ERROR_INVALID_DEVICE"},
      {200, "CUDA_ERROR_INVALID_IMAGE"},
      {201, "CUDA_ERROR_INVALID_CONTEXT"},
      {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
      {500, "CUDA_ERROR_NOT_FOUND"},
      {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
      {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
  }};
  for (const auto& [code, name] : kNames)
    if (code == result) return name;
  return {};
}

std::string format_cuda_error(std::string_view call, CuResult result, std::string_view name,
                              std::string_view description, std::string_view detail) {
  std::string text(call);
  text += ": ";
  text += name.empty() ? "CUDA error" : name;
  text += " (" + std::to_string(result) + ")";
  std::string_view separator = ": ";
  for (std::string_view part : {description, detail}) {
    if (part.empty()) continue;
    text += separator;
    text += part;
    separator = ", ";
  }
  return text;
}

std::string format_bytes(uint64_t bytes) {
  static constexpr std::array<const char*, 5> kUnits{"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes) / 1024.0;
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < kUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return text;
}

}  // namespace kiln
