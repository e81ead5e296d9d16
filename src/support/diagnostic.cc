#include "support/diagnostic.h"

namespace kiln {

std::string SourceLoc::to_string() const {
  std::string s = file.empty() ? std::string("<input>") : file;
  if (line > 0) s += ":" + std::to_string(line);
  if (line > 0 && col > 0) s += ":" + std::to_string(col);
  return s;
}

Diagnostic& Diagnostic::add_context(const std::string& line) {
  if (!context_.empty()) context_ += "\n";
  context_ += "  " + line;
  return *this;
}

std::string Diagnostic::to_string() const {
  std::string s = loc_.known() ? loc_.to_string() + ": error: " : std::string("error: ");
  s += message_;
  if (!context_.empty()) s += "\n" + context_;
  return s;
}

}  // namespace kiln
