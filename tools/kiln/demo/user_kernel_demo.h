// The user-kernel part of `kiln demo`: a Triton kernel registered from its TTIR, its mutation
// analysis, a program that calls it (once out of place, once in place) captured and
// functionalized, and the functionalized graph run against eager execution.
#pragma once

namespace kiln::demo {

// Prints the tour; false when something failed or eager and interpreted results differ.
bool user_kernel_tour();

}  // namespace kiln::demo
