// Index expressions of the loop IR as C++ int64_t arithmetic: `8 * i0 + i1 + 3`. div and mod
// are floor division and non-negative modulo by a positive constant: plain `/` and `%` where
// the dividend is provably non-negative (loop variables are), kiln_floordiv / kiln_mod
// (prelude) otherwise, so the result is exact for every dividend.
#pragma once

#include <string>

#include "lower/index_expr.h"

namespace kiln::cpp {

std::string index_cpp(const IndexExpr& e);

}  // namespace kiln::cpp
