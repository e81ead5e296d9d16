// Internal invariants: KILN_CHECK(cond) << "context"; prints the context and aborts.
// Never use it for user mistakes; those are Diagnostics (diagnostic.h).
#pragma once

#include <sstream>
#include <string>

namespace kiln {

// What the thread is working on, printed under a failed check: `CheckContext c("seed 12");`
// for the scope of one fuzz case, so an abort names the input that caused it. Nests.
class CheckContext {
 public:
  explicit CheckContext(std::string what);
  ~CheckContext();
  CheckContext(const CheckContext&) = delete;
  CheckContext& operator=(const CheckContext&) = delete;
};

}  // namespace kiln

namespace kiln::detail {

class CheckFailure {
 public:
  CheckFailure(const char* cond, const char* file, int line);
  [[noreturn]] ~CheckFailure();
  template <typename T>
  CheckFailure& operator<<(const T& v) {
    os_ << v;
    return *this;
  }

 private:
  std::ostringstream os_;
};

// Lets `KILN_CHECK(c) << x;` be a void expression in a conditional.
struct CheckVoidify {
  void operator&(CheckFailure&) {}
};

}  // namespace kiln::detail

#define KILN_CHECK(cond) \
  (cond) ? (void)0 : ::kiln::detail::CheckVoidify() & ::kiln::detail::CheckFailure(#cond, __FILE__, __LINE__)

#define KILN_UNREACHABLE(msg) (::kiln::detail::CheckFailure("unreachable", __FILE__, __LINE__) << msg)
