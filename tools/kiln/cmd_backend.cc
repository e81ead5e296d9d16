// kiln backend --device=D: prints the policy of the backend that compiles for device D
// (backend/backend_policy.h): which ops it keeps whole and why, which it decomposes, and its
// fusion limits. A device with no backend in this build is an error that says so.
#include <cstdio>
#include <optional>
#include <string>

#include "command_line.h"
#include "commands.h"
#include "device_option.h"

namespace kiln::cli {

int cmd_backend(const Args& args) {
  CommandLine cl("backend", "usage: kiln backend --device=cpu|cuda[:N]\n");
  cl.files(0, 0, "no files");
  cl.option("--device");
  if (std::optional<int> rc = cl.parse(args)) return *rc;
  const std::optional<std::string> value = cl.value("--device");
  if (!value) return cl.usage_error("give --device");
  DeviceOption d = device_option(cl, *value, false, "cpu, cuda or cuda:N");
  if (d.status) return *d.status;
  std::printf("backend %s for device %s\n%s", d.backend->name().c_str(), d.backend->device().to_string().c_str(),
              policy_text(d.backend->policy()).c_str());
  return 0;
}

}  // namespace kiln::cli
