// kiln::Error: how the C++ API reports user errors where it cannot return Expected.
//
// kiln reports user errors as Diagnostics through Expected/Status. Functions that return a
// value a program uses directly throw kiln::Error instead, which carries the Diagnostic: the
// math API (`kiln::add(a, b)`, `a + b`, `x.sum({1})`, modules' forward), Tensor's own
// constructors and accessors (core/tensor.h), and SymExpr::symbol. Nothing fails silently
// and nothing aborts. capture(), Captured::run() and the replay functions catch kiln::Error and
// return it as Expected, so code that uses them never sees exceptions. It lives in support/,
// the layer of errors, so that core/ (Tensor) can throw it as the frontend does.
#pragma once

#include <stdexcept>
#include <utility>

#include "support/diagnostic.h"

namespace kiln {

class Error : public std::runtime_error {
 public:
  explicit Error(Diagnostic d) : std::runtime_error(d.to_string()), diag_(std::move(d)) {}
  const Diagnostic& diagnostic() const { return diag_; }

 private:
  Diagnostic diag_;
};

// The value of `e`, or throws its Diagnostic as kiln::Error.
template <typename T>
T value_or_throw(Expected<T> e) {
  if (!e) throw Error(std::move(e.error()));
  return std::move(e).value();
}

}  // namespace kiln
