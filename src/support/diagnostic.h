// User-facing errors: a Diagnostic names the problem and where it is (file:line:col,
// or the node in IR syntax). They travel up as Status / Expected<T>; the process never
// aborts for them. Broken internal invariants use KILN_CHECK (check.h) instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace kiln {

// A position in a text file; line and col are 1-based, 0 when unknown.
struct SourceLoc {
  std::string file;
  int line = 0;
  int col = 0;

  bool known() const { return line > 0; }
  std::string to_string() const;  // "file:line:col" (parts that are unknown are left out)
};

class Diagnostic {
 public:
  explicit Diagnostic(std::string message, SourceLoc loc = {}) : message_(std::move(message)), loc_(std::move(loc)) {}

  const std::string& message() const { return message_; }
  const SourceLoc& loc() const { return loc_; }
  // Context is appended on a new line, e.g. "while executing %3 = add(%1, %2) : f32[4]".
  const std::string& context() const { return context_; }

  Diagnostic& with_loc(SourceLoc loc) {
    if (!loc_.known()) loc_ = std::move(loc);
    return *this;
  }
  Diagnostic& add_context(const std::string& line);

  // "file:line:col: error: message\n  context" when the location is known, else "error: message...".
  std::string to_string() const;

 private:
  std::string message_;
  SourceLoc loc_;
  std::string context_;
};

// Ok or a Diagnostic.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Diagnostic d) : diag_(std::move(d)) {}  // NOLINT: implicit on purpose, `return Diagnostic(...)`
  static Status ok() { return Status(); }

  bool is_ok() const { return !diag_.has_value(); }
  explicit operator bool() const { return is_ok(); }
  const Diagnostic& error() const { return *diag_; }
  Diagnostic& error() { return *diag_; }

 private:
  std::optional<Diagnostic> diag_;
};

// A value or a Diagnostic.
template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}       // NOLINT
  Expected(Diagnostic d) : v_(std::move(d)) {}      // NOLINT
  Expected(Status s) : v_(std::move(s.error())) {}  // NOLINT: only from a failed Status

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Diagnostic& error() const { return std::get<1>(v_); }
  Diagnostic& error() { return std::get<1>(v_); }
  Status status() const { return has_value() ? Status() : Status(error()); }

 private:
  std::variant<T, Diagnostic> v_;
};

// Formats like printf-free streaming: make_error("add: operand ", i, " has shape ", s).
template <typename... Args>
Diagnostic make_error(Args&&... args);

}  // namespace kiln

// Propagate an error from an expression returning Status or Expected<T>.
#define KILN_TRY(expr)                                      \
  do {                                                      \
    auto kiln_try_result_ = (expr);                         \
    if (!kiln_try_result_) return kiln_try_result_.error(); \
  } while (0)

#define KILN_CONCAT_INNER(a, b) a##b
#define KILN_CONCAT(a, b) KILN_CONCAT_INNER(a, b)
// KILN_ASSIGN_OR_RETURN(auto x, expr): x = *expr, or return its error.
#define KILN_ASSIGN_OR_RETURN(decl, expr)                                                 \
  auto KILN_CONCAT(kiln_aor_, __LINE__) = (expr);                                         \
  if (!KILN_CONCAT(kiln_aor_, __LINE__)) return KILN_CONCAT(kiln_aor_, __LINE__).error(); \
  decl = std::move(KILN_CONCAT(kiln_aor_, __LINE__)).value()

#include "support/diagnostic_impl.h"
