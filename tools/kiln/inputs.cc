// Graph inputs for the subcommands that run graphs (run, verify): read from .npy files or
// made from a seed.
#include <limits>
#include <map>
#include <set>

#include "commands.h"
#include "core/npy.h"
#include "core/random.h"
#include "core/symbol_bindings.h"

namespace kiln::cli {

namespace {

std::string input_name(const Graph& g, int i) {
  return "input " + std::to_string(i) + " (%" + g.input(i)->name() + ")";
}

constexpr int64_t kMaxRandomElements = int64_t{1} << 32;

// Each --dim must size a symbol that some input's dims use: a misspelt symbol would
// otherwise be ignored without a word.
Status check_dim_names(const Graph& g, const std::map<std::string, int64_t>& dims) {
  std::set<std::string> symbols;
  for (const Value* in : g.inputs())
    for (const Dim& d : in->type().shape.dims())
      if (d.is_symbolic()) d.expr().collect_symbols(symbols);
  for (const auto& [name, size] : dims) {
    if (symbols.count(name)) continue;
    std::string known;
    for (const std::string& s : symbols) known += (known.empty() ? "" : ", ") + s;
    return make_error("--dim ", name, "=", size, ": no input of graph @", g.name(), " has the symbolic dim ", name,
                      known.empty() ? " (its inputs have no symbolic dims)" : " (its inputs' symbols: " + known + ")");
  }
  return Status::ok();
}

// An error when an input of `type` (`sizes` once --dim bound its symbols) has more elements
// than random inputs are made for; it suggests --dim only where the type has symbols.
Status check_random_size(const std::string& what, const TensorType& type, const std::vector<int64_t>& sizes) {
  int64_t numel = 1;
  bool overflow = false;
  for (int64_t s : sizes) overflow = overflow || __builtin_mul_overflow(numel, s, &numel);
  if (!overflow && numel <= kMaxRandomElements) return Status::ok();
  if (!type.shape.is_static()) return make_error(what, " would have more than 2^32 elements; give smaller --dim sizes");
  return make_error(what, " has ", overflow ? "more than 2^63" : std::to_string(numel), " elements (", type.to_string(),
                    "), more than --random-inputs makes (2^32); give it as a .npy file with --inputs");
}

std::vector<int> every_input(const Graph& g) {
  std::vector<int> all;
  for (int i = 0; i < g.num_inputs(); ++i) all.push_back(i);
  return all;
}

Expected<std::vector<Tensor>> read_inputs(const Graph& g, const std::vector<std::string>& files,
                                          const std::vector<int>& positions, const std::string& what) {
  if (files.size() != positions.size())
    return make_error(what, " takes ", positions.size(), " input", positions.size() == 1 ? "" : "s",
                      ", but --inputs gives ", files.size());
  std::vector<Tensor> inputs;
  SymbolBindings symbols;
  for (size_t k = 0; k < positions.size(); ++k) {
    const int i = positions[k];
    const std::string& path = files[k];
    KILN_ASSIGN_OR_RETURN(Tensor t, read_npy(path));
    KILN_TRY(symbols.bind(g.input(i)->type(), t.type(), input_name(g, i) + " from " + path));
    inputs.push_back(std::move(t));
  }
  return inputs;
}

Expected<std::vector<Tensor>> random_inputs(const Graph& g, uint64_t seed_value,
                                            const std::map<std::string, int64_t>& dims,
                                            const std::vector<int>& positions) {
  KILN_TRY(check_dim_names(g, dims));
  std::vector<Tensor> inputs;
  for (const int i : positions) {
    const TensorType& type = g.input(i)->type();
    std::vector<int64_t> sizes;
    for (const Dim& d : type.shape.dims()) {
      if (d.is_static()) {
        sizes.push_back(d.value());
        continue;
      }
      std::optional<int64_t> size = d.expr().evaluate(dims);
      if (!size && d.is_symbol())
        return make_error(input_name(g, i), " has the symbolic dim ", d.symbol_name(), ": give its size with --dim ",
                          d.symbol_name(), "=N");
      if (!size)
        return make_error(input_name(g, i), " has the symbolic dim ", d.to_string(),
                          ": give the size of each symbol in it with --dim NAME=N");
      sizes.push_back(*size);
    }
    KILN_TRY(check_random_size(input_name(g, i), type, sizes));
    uint64_t seed = random_u64(RandomStream{seed_value, 0}, static_cast<uint64_t>(i));
    DType dt = type.dtype;
    if (is_floating(dt))
      inputs.push_back(Tensor::randn(sizes, seed, dt));
    else if (dt == DType::Bool)
      inputs.push_back(Tensor::randint(0, 2, sizes, seed, DType::I64).to(DType::Bool));
    else
      inputs.push_back(Tensor::randint(is_signed(dt) ? -8 : 0, is_signed(dt) ? 8 : 16, sizes, seed, dt));
  }
  return inputs;
}

}  // namespace

void declare_input_options(CommandLine& cl) { cl.option("--inputs").option("--random-inputs").option("--dim"); }

InputSource input_source(CommandLine& cl) {
  InputSource source;
  const std::vector<std::string> files = cl.list("--inputs");
  if (cl.values("--inputs").size() + cl.values("--random-inputs").size() > 1) {
    cl.usage_error("give --inputs or --random-inputs once");
    return source;
  }
  if (files == std::vector<std::string>{"random"})  // DESIGN.md's spelling of --random-inputs 0
    source.seed = 0;
  else
    source.files = files;
  if (std::optional<int64_t> seed = cl.integer("--random-inputs", 0, std::numeric_limits<int64_t>::max()))
    source.seed = static_cast<uint64_t>(*seed);
  source.dims = cl.dims("--dim");
  if (!source.dims.empty() && !source.seed && !cl.failed())
    cl.usage_error("--dim is only for --random-inputs (with --inputs, dims come from the files)");
  return source;
}

int no_inputs_given(CommandLine& cl, const Graph& g) {
  return cl.usage_error("graph @" + g.name() + " has inputs: give --inputs a.npy,... or --random-inputs SEED");
}

Expected<std::vector<Tensor>> graph_inputs(const Graph& g, const InputSource& source) {
  return graph_inputs(g, source, every_input(g), "graph @" + g.name());
}

Expected<std::vector<Tensor>> graph_inputs(const Graph& g, const InputSource& source, const std::vector<int>& positions,
                                           const std::string& what) {
  return source.seed ? random_inputs(g, *source.seed, source.dims, positions)
                     : read_inputs(g, source.files, positions, what);
}

}  // namespace kiln::cli
