// Backend: what the target-neutral driver (backend/compile_graph.h) asks of a target, in four
// parts (DESIGN.md section 6): its policy (which ops it keeps whole, its fusion limits), its
// emitter (loop IR to source text), its compiler and its executor (source to a loaded program
// that runs). A backend is found by device (runtime/backend_registry.h); docs/BACKENDS.md
// says how a new one plugs in.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backend/backend_policy.h"
#include "backend/target_report.h"
#include "core/device.h"
#include "core/tensor.h"
#include "lower/loop_ir.h"
#include "lower/memory_plan.h"
#include "support/diagnostic.h"

namespace kiln {

// Seconds a backend spent turning one loop program into a loaded one.
struct BackendTimes {
  double emit = 0;     // source text
  double compile = 0;  // the target's compiler (0 on cache hits), finding it and the cache entries included
  double load = 0;     // loading the binary and finding its kernels
};

// A loop program compiled and loaded by a backend: the executor.
class Executable {
 public:
  virtual ~Executable() = default;
  // The interpreter's contract: inputs in graph order, one tensor per output.
  virtual Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const = 0;
  virtual const LoopProgram& program() const = 0;  // as compiled
  virtual const MemoryPlan& memory_plan() const = 0;
  virtual const BackendTimes& times() const = 0;
  // What the compile report shows of the loaded program beyond its loop IR and memory plan
  // (target_report.h); empty where the target has nothing more to show.
  virtual TargetReport target_report() const { return {}; }
};

// The emitted source's language and the extension of the file the report writes it to.
struct SourceFormat {
  std::string language;   // "C++"
  std::string extension;  // "cpp"
};

// A program compiled for a target but not loaded (Backend::describe).
struct DescribedProgram {
  MemoryPlan memory_plan;  // as compile() would plan it
  TargetReport target;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual Device device() const = 0;
  virtual std::string name() const = 0;  // "CPU": in messages and the compile report
  virtual const BackendPolicy& policy() const = 0;
  // The emitter: the source text compile() builds `p` from (for --emit and the report).
  virtual std::string emit(const LoopProgram& p) const = 0;
  virtual SourceFormat source_format() const = 0;
  // The compiler and executor: emits, compiles (through the backend's kernel cache) and loads.
  // Errors: what the target cannot run (named at the node), a missing or failing compiler.
  virtual Expected<std::unique_ptr<Executable>> compile(LoopProgram p) const = 0;
  // Ok where this machine can load and run the backend's programs; else why not (no driver, no
  // such device). The default: always (the CPU).
  virtual Status available() const { return Status::ok(); }
  // What the compile report can show of `p` where compile() cannot load it (no device):
  // compiled as far as the target allows without one. The default: the backend describes only
  // what it loads (an error naming it).
  virtual Expected<DescribedProgram> describe(const LoopProgram& p) const;
};

}  // namespace kiln
