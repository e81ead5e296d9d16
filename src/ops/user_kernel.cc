#include "ops/user_kernel.h"

namespace kiln {

std::vector<int64_t> UserKernel::written_params() const {
  std::vector<int64_t> out;
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].is_pointer && params[i].written) out.push_back(static_cast<int64_t>(i));
  return out;
}

UserKernelTable& UserKernelTable::global() {
  static UserKernelTable table;
  return table;
}

Expected<const UserKernel*> UserKernelTable::add(UserKernel kernel) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& k : kernels_) {
    if (k->name != kernel.name) continue;
    if (k->ir == kernel.ir && k->function == kernel.function) return k.get();
    return make_error("a different kernel is already registered as '", kernel.name, "'; give this one another name");
  }
  kernels_.push_back(std::make_unique<const UserKernel>(std::move(kernel)));
  return kernels_.back().get();
}

const UserKernel* UserKernelTable::find(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& k : kernels_)
    if (k->name == name) return k.get();
  return nullptr;
}

std::vector<std::string> UserKernelTable::names() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& k : kernels_) out.push_back(k->name);
  return out;
}

Expected<const UserKernel*> find_user_kernel(std::string_view name) {
  if (const UserKernel* k = UserKernelTable::global().find(name)) return k;
  std::vector<std::string> known = UserKernelTable::global().names();
  std::string list;
  for (const std::string& n : known) list += (list.empty() ? "" : ", ") + n;
  return make_error("no user kernel named '", name, "' is registered",
                    known.empty() ? std::string(" (none are)") : " (registered: " + list + ")");
}

}  // namespace kiln
