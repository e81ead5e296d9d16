// A loop program (lower/loop_ir.h) as Graphviz DOT text, for the compile report: each kernel a
// box filled by its kind (pointwise, reduction, fused: the scheduler's fusion groups, scan,
// extern: a library or reference kernel, cond and while: control flow over nested kernels,
// drawn as one box that reads and writes what its regions do), each buffer an ellipse (inputs, outputs, temporaries),
// an edge from a buffer to each kernel that reads it and from a kernel to each buffer it writes.
#pragma once

#include <iterator>
#include <string>

#include "lower/loop_ir.h"

namespace kiln {

// Every kernel kind, in the order the report lists them.
inline constexpr KernelKind kReportedKernelKinds[] = {KernelKind::Pointwise, KernelKind::Reduction, KernelKind::Fused,
                                                      KernelKind::Scan,      KernelKind::Extern,    KernelKind::Cond,
                                                      KernelKind::While};
static_assert(std::size(kReportedKernelKinds) == kNumKernelKinds);

const char* kernel_kind_colour(KernelKind k);  // "#rrggbb", shared with the report's legend
const char* kernel_kind_name(KernelKind k);    // "pointwise", ...

std::string loop_program_dot(const LoopProgram& p);

}  // namespace kiln
