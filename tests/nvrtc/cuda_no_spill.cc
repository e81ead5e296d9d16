// kiln_cuda_no_spill FILE.kir...: every graph of the files lowered for the CUDA backend, its
// kernels emitted (codegen/cuda) and compiled with NVRTC to an sm_90 cubin, several programs
// per NVRTC program on two threads. Fails (exit 1) on a compile error, a register spill, or a
// local-memory stack frame, naming the file, graph and kernel; the stack frames allowed are
// CUDA's own subroutines' in kernels that call them: libdevice's trig argument reduction
// (Payne-Hanek's table for |x| > 105615 in sin, cos, tan) and f64 division's slow path (8
// bytes, for subnormal and huge quotients: lit's elementwise sweep in f64). Graphs that do not parse or lower (a lit
// test's deliberate errors) are counted and skipped. Exits 77 (skipped) where NVRTC is not installed.
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backend/compile_graph.h"
#include "codegen/cuda/cuda_emitter.h"
#include "codegen/cuda/cuda_prelude.h"
#include "ir/parser.h"
#include "lower/compute_op.h"
#include "lower/loop_control.h"
#include "runtime/cuda/cuda_backend.h"
#include "runtime/cuda/nvrtc.h"

namespace kiln {
namespace {

constexpr size_t kProgramsPerCompile = 24;
constexpr int64_t kLibraryStackBytes = 72;  // sin, cos and tan of f32 and f64 in one kernel

struct Emitted {
  std::string where;  // "FILE @graph"
  CudaProgramSource source;
  std::map<std::string, bool> trig;  // each launch's symbol -> whether its kernel calls a subroutine with a frame
};

// Whether `k` computes sin, cos or tan (a normal draw's Box-Muller calls cos), or divides f64s.
bool computes_trig(const LoopKernel& k) {
  for (const LoopKernel* part : loop_kernel_parts(k))
    for (const BodyOp& op : part->body) {
      if (op.kind == BodyOp::Kind::Compute && (op.op == OpKind::Sin || op.op == OpKind::Cos || op.op == OpKind::Tan))
        return true;
      if (op.kind == BodyOp::Kind::Compute && op.op == OpKind::Div && op.dtype == DType::F64) return true;
      if (op.kind == BodyOp::Kind::Random && op.random.kind == RandomKind::Normal) return true;
    }
  return false;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One NVRTC program of `batch`'s kernels, after the prelude they call (each program's prelude
// holds only its own kernels' helpers); the problems found, one a line.
std::string compile_batch(const std::vector<const Emitted*>& batch) {
  std::string kernel_text;
  std::map<std::string, std::pair<std::string, bool>> kernels;  // symbol -> where, trig
  for (const Emitted* e : batch) {
    for (const std::string& k : e->source.kernel_text) kernel_text += k;
    for (const auto& [symbol, trig] : e->trig) kernels[symbol] = {e->where, trig};
  }
  Expected<Cubin> cubin = compile_cuda_to_cubin(cuda::cuda_prelude_for(kernel_text) + kernel_text);
  if (!cubin) {
    std::string names;
    for (const Emitted* e : batch) names += " " + e->where;
    return "compile error in the batch of" + names + ":\n" + cubin.error().message() + "\n";
  }
  std::string problems;
  for (const KernelResources& r : cubin->kernels) {
    auto it = kernels.find(r.name);
    const std::string where = it == kernels.end() ? "?" : it->second.first;
    const bool trig = it != kernels.end() && it->second.second;
    if (r.spills()) problems += where + " " + r.name + ": spills " + std::to_string(r.spill_store_bytes) + " bytes\n";
    if (r.stack_frame_bytes > (trig ? kLibraryStackBytes : 0))
      problems += where + " " + r.name + ": " + std::to_string(r.stack_frame_bytes) + " bytes of stack frame\n";
  }
  if (cubin->kernels.size() != kernels.size())
    problems += "ptxas reported " + std::to_string(cubin->kernels.size()) + " kernels of " +
                std::to_string(kernels.size()) + "\n";
  return problems;
}

int run(int argc, char** argv) {
  if (Expected<std::string> v = nvrtc_version(); !v) {
    std::printf("skipped: NVRTC is not installed: %s\n", v.error().message().c_str());
    return 77;
  }
  const CudaBackend backend;
  std::vector<Emitted> programs;
  int skipped = 0;
  for (int a = 1; a < argc; ++a) {
    auto graphs = parse_graphs(read(argv[a]), argv[a]);
    if (!graphs) {
      ++skipped;
      continue;
    }
    for (const auto& g : *graphs) {
      Expected<LoopProgram> p = lower_graph_for(*g, backend);
      if (!p) {
        ++skipped;
        continue;
      }
      p->name = "p" + std::to_string(programs.size());  // symbols unique across the batch
      Emitted e{.where = std::string(argv[a]) + " @" + g->name(), .source = emit_cuda_program(*p), .trig = {}};
      const std::vector<const LoopKernel*> flat = flat_kernels(*p);
      for (size_t i = 0; i < flat.size(); ++i)
        for (const CudaLaunch& launch : e.source.launches[i]) e.trig[launch.symbol] = computes_trig(*flat[i]);
      programs.push_back(std::move(e));
    }
  }
  std::vector<std::vector<const Emitted*>> batches;
  size_t kernels = 0;
  for (const Emitted& e : programs) {
    if (e.trig.empty()) continue;
    if (batches.empty() || batches.back().size() == kProgramsPerCompile) batches.emplace_back();
    batches.back().push_back(&e);
    kernels += e.trig.size();
  }
  std::string problems;
  std::mutex mu;
  size_t next = 0;
  auto worker = [&] {
    for (;;) {
      size_t b;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (next == batches.size()) return;
        b = next++;
      }
      const std::string found = compile_batch(batches[b]);
      std::lock_guard<std::mutex> lock(mu);
      problems += found;
    }
  };
  std::thread second(worker);
  worker();
  second.join();
  std::printf(
      "%zu programs (%d graphs skipped: they do not parse or lower), %zu kernels in %zu NVRTC programs for sm_90\n",
      programs.size(), skipped, kernels, batches.size());
  if (problems.empty()) return 0;
  std::fputs(problems.c_str(), stdout);
  return 1;
}

}  // namespace
}  // namespace kiln

int main(int argc, char** argv) { return kiln::run(argc, argv); }
