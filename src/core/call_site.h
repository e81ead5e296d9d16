// CallSite: the place in user code that called a frontend function, taken as a defaulted
// trailing parameter (`CallSite loc = CallSite::current()`) so that a captured node and an
// eager error name the user's line. It is std::source_location where the standard library
// provides it; clang 14 (used for the fuzz builds) cannot compile libstdc++ 12's version, so
// there it is a stand-in with the same interface built on the compiler's builtins.
#pragma once

#include <version>

#if defined(__cpp_lib_source_location)
#include <source_location>
#endif

namespace kiln {

#if defined(__cpp_lib_source_location)

using CallSite = std::source_location;

#else

class CallSite {
 public:
  constexpr CallSite() = default;
  static constexpr CallSite current(const char* file = __builtin_FILE(), unsigned line = __builtin_LINE(),
                                    unsigned column = __builtin_COLUMN()) noexcept {
    return CallSite(file, line, column);
  }

  constexpr const char* file_name() const { return file_; }
  constexpr unsigned line() const { return line_; }  // 0: unknown
  constexpr unsigned column() const { return column_; }

 private:
  constexpr CallSite(const char* file, unsigned line, unsigned column) : file_(file), line_(line), column_(column) {}

  const char* file_ = "";
  unsigned line_ = 0;
  unsigned column_ = 0;
};

#endif

}  // namespace kiln
