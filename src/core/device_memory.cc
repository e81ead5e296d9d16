#include "core/device_memory.h"

#include <array>
#include <atomic>

#include "support/check.h"

namespace kiln {
namespace {

constexpr size_t kKinds = 2;  // Device::Kind's enumerators

std::array<std::atomic<const DeviceMemory*>, kKinds>& registry() {
  static std::array<std::atomic<const DeviceMemory*>, kKinds> memories{};
  return memories;
}

size_t slot(Device::Kind kind) {
  KILN_CHECK(kind != Device::Kind::Cpu) << "the host's memory is not a registered device memory";
  return static_cast<size_t>(kind);
}

// The name people call a kind of device by, in errors ("no CUDA device").
const char* kind_name(Device::Kind kind) { return kind == Device::Kind::Cuda ? "CUDA" : "CPU"; }

}  // namespace

const DeviceMemory* register_device_memory(Device::Kind kind, const DeviceMemory* memory) {
  return registry()[slot(kind)].exchange(memory);
}

Expected<const DeviceMemory*> device_memory_for(Device device) {
  const char* kind = kind_name(device.kind());
  const DeviceMemory* memory = registry()[slot(device.kind())].load();
  if (!memory)
    return make_error("no ", kind, " device: this program has no ", kind,
                      " device layer (kiln::kiln links runtime/cuda, which registers it)");
  Expected<int> count = memory->device_count();
  if (!count) return make_error("no ", kind, " device: ", count.error().message());
  if (*count == 0) return make_error("no ", kind, " device: the driver sees none on this machine");
  if (device.index() >= *count)
    return make_error(device.to_string(), " does not exist: this machine has ", *count, " ", kind, " device",
                      *count == 1 ? "" : "s");
  return memory;
}

}  // namespace kiln
