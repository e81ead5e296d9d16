// User kernels: GPU kernels a user brings (Triton TTIR, PTX, CUDA C++), registered once and
// called from captured programs as `kernel_call` nodes (ops.def).
//
// The table holds what every consumer needs of a registered kernel, computed once at
// registration (kernels/register_kernel.h): its parameters in order, which pointer
// parameters it writes (the mutation analysis of its IR; never empty because of an error),
// its launch grid as a function of the arguments, and optionally a CPU reference
// implementation, which lets graphs that call the kernel run in the interpreter and on the
// CPU backend. Capture records the written parameters on the node (`written=`), so
// functionalization reads a typed fact from the graph and never re-analyzes the kernel.
//
// The table is append-only and thread-safe; an entry, once added, never moves or changes.
// Like the op table it is process-wide data, not configuration: a name names one kernel.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/scalar.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "support/diagnostic.h"

namespace kiln {

struct UserKernelParam {
  std::string name;         // the author's name ("out"), else "arg<i>"
  std::string type;         // as the kernel's IR spells it ("!tt.ptr<f32>", ".u64", "float*")
  bool is_pointer = false;  // a tensor argument; otherwise a scalar
  bool written = false;     // the mutation analysis says the kernel may write through it
  std::string reason;       // why it is reported written without proof (fallback), if so
};

// One argument of a call: a tensor for a pointer parameter, a scalar for the others.
struct UserKernelArg {
  Tensor tensor;  // undefined for scalars
  Scalar scalar;
  bool is_tensor() const { return tensor.defined(); }
};

// An argument as the grid function sees it: a tensor's shape (symbolic while capturing) or
// a scalar's value.
struct UserKernelArgInfo {
  std::optional<Shape> shape;
  Scalar scalar;
};

// The launch grid (up to 3 dims) from the arguments; nullopt when it cannot be computed yet
// (a symbolic size), in which case it is computed at run time from the concrete shapes.
using UserKernelGridFn = std::function<std::optional<std::vector<int64_t>>(std::span<const UserKernelArgInfo>)>;

// The CPU reference: runs the kernel's effect on `args` (in parameter order), writing into
// the tensors of written parameters. Tensors that alias one another in the caller alias here
// too. An error it returns names the problem; kiln adds which node ran it.
using UserKernelCpuFn = std::function<Status(std::span<UserKernelArg> args, std::span<const int64_t> grid)>;

struct UserKernel {
  std::string name;         // the table's key and the `kernel=` attribute of kernel_call nodes
  std::string function;     // the kernel function in its IR (a mangled name for C++ kernels)
  std::string source_kind;  // "ttir", "ptx" or "cuda"
  std::string ir;           // the IR text (TTIR or PTX) the analysis read
  std::vector<UserKernelParam> params;
  bool analysis_fallback = false;           // the analysis could not decide: every pointer written
  std::vector<std::string> analysis_notes;  // what made the answer conservative, with places
  double analysis_ms = 0;                   // time the analysis took at registration
  UserKernelGridFn grid;
  UserKernelCpuFn cpu;  // empty: the kernel runs only on a GPU

  // Indices of the written pointer parameters, in order.
  std::vector<int64_t> written_params() const;
};

class UserKernelTable {
 public:
  // The process's table.
  static UserKernelTable& global();

  // Adds `kernel` under its name. Registering a name again is an error unless the IR and
  // function are the same (then the existing entry is returned: registration is idempotent).
  Expected<const UserKernel*> add(UserKernel kernel);
  // The kernel of that name, or null.
  const UserKernel* find(std::string_view name) const;
  std::vector<std::string> names() const;

 private:
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<const UserKernel>> kernels_;
};

// The registered kernel `name`, or an error that says it is not registered.
Expected<const UserKernel*> find_user_kernel(std::string_view name);

}  // namespace kiln
