// Registering a user kernel: its source is analyzed once (analyze_kernel.h) and the kernel
// enters the kernel table (ops/user_kernel.h) with its parameters, what it writes, its grid
// function and its CPU reference, ready for call_kernel (frontend/call_kernel.h).
#pragma once

#include <string>

#include "kernels/kernel_source.h"
#include "ops/user_kernel.h"
#include "support/diagnostic.h"

namespace kiln::kernels {

struct KernelRegistration {
  std::string name = {};       // the table's name; empty: the kernel's own name
  KernelSource source = {};    // TTIR, PTX or CUDA C++
  std::string function = {};   // the kernel in the source; empty: its first
  UserKernelGridFn grid = {};  // empty: a grid of one program
  UserKernelCpuFn cpu = {};    // empty: the kernel runs only on a GPU
};

// The registered kernel. Errors: the source's (see analyze_kernel), or a name already taken
// by a different kernel.
Expected<const UserKernel*> register_kernel(KernelRegistration registration);

}  // namespace kiln::kernels
