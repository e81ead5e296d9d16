// --device, as the commands that compile read it: "interpreter" where a command runs the
// reference interpreter too, or a device (Device::parse: "cpu", "cuda", "cuda:1") whose
// backend the registry gives (runtime/backend_registry.h).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "backend/backend.h"
#include "command_line.h"

namespace kiln::cli {

struct DeviceOption {
  std::unique_ptr<Backend> backend;  // null: the interpreter
  std::optional<int> status;         // set when the command must stop with this exit status
};

// A value that names neither the interpreter (where `interpreter_too`) nor a device is a usage
// error on `cl` (status 2: "unknown --device 'gpu' (choices)"); a device that has no backend in
// this build is a user error (status 1, backend_for's message on stderr).
DeviceOption device_option(CommandLine& cl, const std::string& value, bool interpreter_too, const std::string& choices);

}  // namespace kiln::cli
