#include "device_option.h"

#include "commands.h"
#include "runtime/backend_registry.h"

namespace kiln::cli {

DeviceOption device_option(CommandLine& cl, const std::string& value, bool interpreter_too,
                           const std::string& choices) {
  if (interpreter_too && value == "interpreter") return {};
  const std::optional<Device> device = Device::parse(value);
  if (!device) return {nullptr, cl.usage_error("unknown --device '" + value + "' (" + choices + ")")};
  Expected<std::unique_ptr<Backend>> backend = backend_for(*device);
  if (!backend) return {nullptr, fail(backend.error())};
  return {std::move(*backend), std::nullopt};
}

}  // namespace kiln::cli
