#include "report/render_svg.h"

#include <vector>

#include "runtime/cpu/process.h"

namespace kiln {

Expected<std::string> find_dot_program(const std::string& dot_program) {
  const std::string name = dot_program.empty() ? "dot" : dot_program;
  std::string path = resolve_program(name);
  if (path.empty())
    return make_error("Graphviz '", name, "' not found", name.find('/') == std::string::npos ? " in PATH" : "",
                      " (Debian: apt-get install graphviz)");
  return path;
}

Status render_svg(const std::string& dot_executable, const std::string& dot_path, const std::string& svg_path) {
  const std::vector<std::string> argv = {dot_executable, "-Tsvg", dot_path, "-o", svg_path};
  KILN_ASSIGN_OR_RETURN(ProcessResult r, run_process(argv));
  if (!r.ok())
    return make_error("Graphviz failed (", r.how_it_ended(), "): ", command_line_text(argv), "\n",
                      r.output.substr(0, 2000));
  return Status::ok();
}

}  // namespace kiln
