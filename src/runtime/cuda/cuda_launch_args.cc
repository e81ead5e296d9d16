#include "runtime/cuda/cuda_launch_args.h"

#include "support/check.h"

namespace kiln {

PackedLaunchArgs::PackedLaunchArgs(const std::vector<CudaArg>& args, std::vector<CuDevicePtr>& buffer_addresses,
                                   CuDevicePtr scratch, CuDevicePtr error_slot)
    : fixed_(std::make_unique<CuDevicePtr[]>(args.size())) {
  for (size_t i = 0; i < args.size(); ++i) {
    const CudaArg& a = args[i];
    switch (a.kind) {
      case CudaArg::Kind::Buffer:
        KILN_CHECK(a.buffer >= 0 && static_cast<size_t>(a.buffer) < buffer_addresses.size())
            << "a launch argument names buffer " << a.buffer << " of " << buffer_addresses.size();
        params_.push_back(&buffer_addresses[static_cast<size_t>(a.buffer)]);
        continue;
      case CudaArg::Kind::Scratch: fixed_[i] = scratch + static_cast<CuDevicePtr>(a.offset); break;
      case CudaArg::Kind::ErrorSlot: fixed_[i] = error_slot; break;
    }
    params_.push_back(&fixed_[i]);
  }
}

}  // namespace kiln
