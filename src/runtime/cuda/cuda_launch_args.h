// A launch's kernel parameters packed once, when the program loads, in the form cuLaunchKernel
// takes them: one pointer per parameter to the parameter's value. A buffer parameter points at
// the buffer's entry in the program's table of device addresses (the driver reads the values
// at each launch), so that a while loop exchanges a carried buffer and its next one by swapping
// two entries of the table; scratch and error-slot parameters point at values held here.
#pragma once

#include <memory>
#include <vector>

#include "codegen/cuda/cuda_program_source.h"
#include "runtime/cuda/cuda_driver.h"

namespace kiln {

class PackedLaunchArgs {
 public:
  // `buffer_addresses` (by buffer index) must outlive the packing and keep its size; each
  // Scratch argument's value is `scratch` + its offset, the ErrorSlot's `error_slot`.
  PackedLaunchArgs(const std::vector<CudaArg>& args, std::vector<CuDevicePtr>& buffer_addresses, CuDevicePtr scratch,
                   CuDevicePtr error_slot);

  // cuLaunchKernel's kernelParams.
  void** params() { return params_.data(); }
  size_t size() const { return params_.size(); }
  // The value parameter `i` has now.
  CuDevicePtr value(size_t i) const { return *static_cast<const CuDevicePtr*>(params_[i]); }

 private:
  std::unique_ptr<CuDevicePtr[]> fixed_;  // the scratch and error-slot values, by parameter
  std::vector<void*> params_;
};

}  // namespace kiln
