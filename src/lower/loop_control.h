// Control-flow kernels of the loop IR (KernelKind::Cond, KernelKind::While), which run nested
// kernel lists (regions) of the same program over its buffers, and the walks over a program
// whose kernels nest. docs/LOWERING.md ("Control flow") has the text form:
//
//   kernel @k0 cond %p { then { kernel ... } else { kernel ... } }
//   kernel @k3 while carry (%c0, %c1) next (%n0, %n1) { cond %q { kernel ... } body { kernel ... } }
//
// Semantics (the evaluator and the compiled runtime implement them alike):
//  - cond: reads element 0 of the bool buffer %p and runs the `then` region's kernels when it
//    is true, the `else` region's otherwise.
//  - while: repeats: run the `cond` region; stop when element 0 of %q is false; run the `body`
//    region; then each carried buffer %c_i and its next buffer %n_i exchange their contents
//    (the body reads the carried values and stores the next ones, so a body that reads carried
//    value a while it writes carried value b sees the old a). Zero trips leave the carried
//    buffers as they were. Termination is the program's business, as in the graph.
// Rules (check_control_kernel): the predicate is a bool buffer, not empty; carried and next
// buffers are temporaries, each named once, pairwise of one dtype, sizes and strides (a runtime
// exchanges them by swapping pointers). A temporary that only kernels inside a while's regions
// touch holds nothing from one iteration to the next, so the memory planner may share its
// bytes; the predicate, carried and next buffers, and buffers used outside the loop, do hold.
#pragma once

#include <set>
#include <vector>

#include "lower/loop_ir.h"
#include "support/diagnostic.h"

namespace kiln {

inline bool is_control_kernel(const LoopKernel& k) { return k.kind == KernelKind::Cond || k.kind == KernelKind::While; }

// Every kernel of `p` in pre-order: a kernel, then the kernels of its regions in order,
// recursively. A kernel's place in this list is its flat index: code generation names kernels
// and the runtime finds their functions by it. Without control kernels it is p.kernels.
std::vector<const LoopKernel*> flat_kernels(const LoopProgram& p);

// Per flat index: one past the flat index of the last kernel nested in that kernel's regions
// (i + 1 for a kernel without regions), so that kernels of one list sit at i, ends[i], ...
std::vector<int> flat_kernel_ends(const LoopProgram& p);

// The buffers control kernel `k` touches itself (predicate, carried, next), without its regions'.
std::set<int> control_buffers(const LoopKernel& k);

// Replaces every buffer index `k` holds, recursively, by map[index].
void remap_kernel_buffers(LoopKernel& k, const std::vector<int>& map);

// Names every kernel k0, k1, ... in pre-order (flat index order).
void number_kernels(LoopProgram& p);

// The rules above for control kernel `k` of `p`; the message names the kernel's buffers.
Status check_control_kernel(const LoopProgram& p, const LoopKernel& k);

}  // namespace kiln
