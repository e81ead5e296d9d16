// libFuzzer target over the random-graph generator (fuzz/graph_generator.h): the input's bytes
// are the generator's choices (fuzz::ByteChoices), so coverage steers which ops, shapes and
// attributes are drawn. Each graph runs in the reference interpreter and, lowered as `kiln build
// --emit=loops` lowers it (lower/lower.h), in the loop-IR evaluator, on fuzz_inputs of seed 0;
// they must agree within fuzz/tolerance.h's tolerances, and fail together. Compiling C++ per
// input (the CPU backend, seconds) would starve libFuzzer; `kiln fuzz-graphs` covers that.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz/choices.h"
#include "fuzz/fuzz_inputs.h"
#include "fuzz/graph_generator.h"
#include "fuzz/tensor_values.h"
#include "fuzz/tolerance.h"
#include "interp/interpreter.h"
#include "ir/printer.h"
#include "lower/loop_eval.h"
#include "lower/lower.h"
#include "support/check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kiln;
  fuzz::ByteChoices choices(std::span<const uint8_t>(data, size));
  fuzz::GeneratorOptions options;
  options.max_nodes = 6;
  const std::unique_ptr<Graph> g = fuzz::generate_graph(choices, options);
  const std::vector<Tensor> inputs = fuzz::fuzz_inputs(*g, 0);

  std::vector<Tensor> interpreted = fuzz::clones(inputs), evaluated = fuzz::clones(inputs);
  Expected<std::vector<Tensor>> want = interpret(*g, interpreted);
  Expected<LoopProgram> program = lower_graph(*g);
  Expected<std::vector<Tensor>> got =
      program ? eval_loops(*program, evaluated) : Expected<std::vector<Tensor>>(program.error());
  KILN_CHECK(want.has_value() == got.has_value()) << (want ? "only the loop IR fails: " + got.error().to_string()
                                                           : "only the interpreter fails: " + want.error().to_string())
                                                  << "\n"
                                                  << print_graph(*g);
  if (!want) return 0;
  Expected<fuzz::GraphTolerance> tol = fuzz::estimate_tolerance(*g, inputs);
  KILN_CHECK(tol.has_value()) << tol.error().to_string();
  for (size_t i = 0; i < want->size(); ++i) {
    const int64_t at = fuzz::first_disagreement((*want)[i], (*got)[i], tol->outputs[i]);
    KILN_CHECK(at < 0) << "output " << i << " differs at element " << at << "\n" << print_graph(*g);
  }
  for (int i = 0; i < g->num_inputs(); ++i) {
    const size_t k = static_cast<size_t>(i);
    KILN_CHECK(fuzz::first_disagreement(interpreted[k], evaluated[k], tol->inputs[k]) < 0)
        << "input " << i << " differs after the run\n"
        << print_graph(*g);
  }
  return 0;
}
