// Helpers shared by the subcommands.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "commands.h"
#include "core/tensor_compare.h"

namespace kiln::cli {

int fail(const Diagnostic& d) {
  std::fprintf(stderr, "%s\n", d.to_string().c_str());
  return 1;
}

bool readable_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    std::fprintf(stderr, "kiln: cannot read %s: it is a directory, not a file\n", path.c_str());
    return false;
  }
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    std::fclose(f);
    return true;
  }
  std::fprintf(stderr, "kiln: cannot read %s: %s\n", path.c_str(), std::strerror(errno));
  return false;
}

bool read_file(const std::string& path, std::string& out) {
  if (!readable_file(path)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "kiln: cannot read %s\n", path.c_str());
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

std::string index_text(const Tensor& t, int64_t flat) {
  std::vector<int64_t> idx(t.sizes().size());
  for (size_t d = idx.size(); d-- > 0;) {
    idx[d] = flat % t.sizes()[d];
    flat /= t.sizes()[d];
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

bool outputs_agree(const std::string& cmd, const std::string& what, std::span<const Tensor> want,
                   std::span<const Tensor> got, std::span<const std::string> names) {
  for (size_t j = 0; j < want.size(); ++j) {
    const Tensor& w = want[j];
    const Tensor& o = got[j];
    if (w.sizes() != o.sizes() || w.dtype() != o.dtype()) {
      std::fprintf(stderr, "kiln %s: output %zu (%%%s): the interpreter gives %s, %s give %s\n", cmd.c_str(), j,
                   names[j].c_str(), w.type().to_string().c_str(), what.c_str(), o.type().to_string().c_str());
      return false;
    }
    const Tolerance tol = default_tolerance(w.dtype());
    if (std::optional<Mismatch> m = worst_mismatch(w, o, tol)) {
      std::fprintf(stderr,
                   "kiln %s: output %zu (%%%s) differs: worst element %s: interpreter %.17g, %s %.17g (%s %s)\n",
                   cmd.c_str(), j, names[j].c_str(), index_text(w, m->index).c_str(), m->want, what.c_str(), m->got,
                   std::string(dtype_name(w.dtype())).c_str(), tol.to_string().c_str());
      return false;
    }
  }
  return true;
}

bool written_inputs_agree(const std::string& cmd, const std::string& what, const Graph& g,
                          std::span<const Tensor> interpreted, std::span<const Tensor> after) {
  std::vector<std::string> names;
  for (const Value* v : g.inputs()) names.push_back(v->name() + ", an input, after the run");
  return outputs_agree(cmd, what, interpreted, after, names);
}

}  // namespace kiln::cli
