// Template part of diagnostic.h: make_error streams its arguments into a message.
#pragma once

#include <sstream>

namespace kiln {

template <typename... Args>
Diagnostic make_error(Args&&... args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return Diagnostic(os.str());
}

}  // namespace kiln
