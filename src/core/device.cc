#include "core/device.h"

#include <charconv>

namespace kiln {

std::optional<Device> Device::parse(std::string_view s) {
  if (s == "cpu") return cpu();
  if (s == "cuda") return cuda(0);
  if (s.substr(0, 5) == "cuda:") {
    int idx = 0;
    auto rest = s.substr(5);
    auto res = std::from_chars(rest.data(), rest.data() + rest.size(), idx);
    if (res.ec == std::errc() && res.ptr == rest.data() + rest.size() && idx >= 0) return cuda(idx);
  }
  return std::nullopt;
}

std::string Device::to_string() const { return is_cpu() ? "cpu" : "cuda:" + std::to_string(index_); }

}  // namespace kiln
