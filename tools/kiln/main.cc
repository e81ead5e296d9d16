// The kiln command-line tool: dispatches to one subcommand per file (cmd_*.cc).
#include <cstdio>
#include <cstring>
#include <string>

#include "commands.h"

namespace {

constexpr const char* kUsage = R"(usage: kiln <command> [options]

commands:
  opt FILE --passes=a,b [--print-after-all] [--print-changed] [--time-passes]
         [--explain-matches]
                       parse a graph, run passes, print the result (--passes= runs none);
                       pattern sets are passes (demo-fusions); --explain-matches says on
                       stderr why their candidate nodes did not match
  run FILE [--inputs a.npy,b.npy | --random-inputs SEED [--dim B=4]] [--outputs DIR]
         [--check-capture] [--device=interpreter|cpu|cuda[:N] [--check]]
                       run a graph in the reference interpreter, print a summary of each
                       output, write out0.npy, out1.npy, ... to DIR; --check-capture also
                       replays it through the C++ frontend (eager and captured) and
                       requires exact agreement; --device=cpu runs it compiled by the CPU
                       backend (kernels cached in $KILN_CACHE_DIR, default ~/.cache/kiln;
                       compiler $CXX or c++) and --check compares that with the interpreter
  grad FILE [--partition=default] [--wrt=a,b] [--json] [--emit=joint]
                       differentiate a graph: print the forward and backward graphs and
                       the values the forward saves for the backward; --emit=joint
                       prints the joint graph (primals and tangents in, outputs and
                       gradients out; an output that is a differentiated input or a
                       view of one takes a tangent too) instead; --device=cpu --report
                       DIR also compiles it as training does and writes a compile
                       report to DIR
  build FILE --emit=loops [--check] [--seed=N]
                       lower the first graph to the loop IR and print it; --check also
                       runs the loop-IR evaluator and the interpreter on seeded random
                       inputs and fails naming the worst element when they differ
  build FILE --device=cpu --emit=cpp
                       print the C++ the CPU backend generates for the first graph
  build FILE --device=cuda --emit=cuda
                       print the CUDA C++ the CUDA backend generates, with its launches
  build FILE --device=cpu --report DIR
                       compile each graph for the CPU and write a compile report to
                       DIR/index.html: graphs, kernels, planned memory, phase times
  build FILE --parse-loops
                       parse loop IR and print it back (round trip)
  ops                  list the op table: name, traits, schema
  backend --device=cpu print the device's backend policy: ops kept whole, ops decomposed, fusion limits
  export FILE -o model.onnx [--opset N] [--dynamic] [--training]
         [--keep-initializers-as-inputs] [--input-names a,b] [--output-names y]
                       export the first graph to ONNX (checked by ONNX's checker and
                       shape inference; docs/ONNX.md)
  import MODEL.pt2 -o MODEL.kir
                       read a torch.export archive (PyTorch 2.15) and write its graph to
                       MODEL.kir and its weights as .npy to MODEL.weights/ (docs/IMPORT.md)
  verify FILE [model.onnx] [--inputs a.npy,... | --random-inputs SEED [--dim B=4]]
         [--rtol R] [--atol A] [--acceptable-error-percentage P] [--intermediates]
         [--backend=ort|reference] [--opset N] [--dynamic]
                       export (or take model.onnx), run it in ONNX Runtime and the graph
                       in the interpreter, print the comparison; exit 1 on a mismatch;
                       --intermediates names the first node whose result diverges
  kernel-mutations FILE [--function NAME] [--names-only]
                       which pointer parameters a user kernel writes, from its IR: Triton
                       TTIR (.ttir), PTX (.ptx) or CUDA C++ (.cu, compiled with NVRTC);
                       each pointer parameter `written` or `read-only`, with the reason
                       where the analysis had to be conservative; --names-only prints
                       only the written parameters' names, one per line
  demo [--train-steps=N] [--report DIR]
                       capture a small model written in C++, print it, run it eagerly and
                       through the interpreter, and show that they agree; then train an
                       MLP and a small GPT with compile_train_step + AdamW compiled for the
                       CPU, print the compile time per phase, and show the loss falling
                       below a stated threshold (N steps each: a shorter run); --report
                       writes both steps' compile reports to DIR/mlp and DIR/gpt
  fuzz-graphs [--seed S] [--count N | --seconds T] [--emit-dir DIR] [--batch K]
         [--max-nodes M] [--grad] [--print]
                       draw random graphs (graph i from seed S+i), run each in the
                       interpreter and compiled for the CPU, and print one line per
                       mismatch; --emit-dir writes each failing graph and its inputs;
                       --grad checks gradients of differentiable graphs against finite
                       differences (docs/FUZZING.md)
  --help               this text
)";

struct Command {
  const char* name;
  int (*run)(const kiln::cli::Args&);
};

constexpr Command kCommands[] = {
    {"opt", kiln::cli::cmd_opt},
    {"run", kiln::cli::cmd_run},
    {"grad", kiln::cli::cmd_grad},
    {"build", kiln::cli::cmd_build},
    {"ops", kiln::cli::cmd_ops},
    {"backend", kiln::cli::cmd_backend},
    {"demo", kiln::cli::cmd_demo},
    {"export", kiln::cli::cmd_export},
    {"verify", kiln::cli::cmd_verify},
    {"import", kiln::cli::cmd_import},
    {"kernel-mutations", kiln::cli::cmd_kernel_mutations},
    {"fuzz-graphs", kiln::cli::cmd_fuzz_graphs},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 ||
      std::strcmp(argv[1], "help") == 0) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  for (const Command& c : kCommands)
    if (std::strcmp(argv[1], c.name) == 0) return c.run(kiln::cli::Args(argv + 2, argv + argc));
  std::fprintf(stderr, "kiln: unknown command '%s' (see kiln --help)\n", argv[1]);
  return 2;
}
