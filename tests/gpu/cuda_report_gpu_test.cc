// The compile report's CUDA part of a program loaded on a real GPU (CudaProgram::target_report,
// runtime/cuda/cuda_target_report.h): every launch's registers, local and static shared memory
// are the driver's (cuFuncGetAttribute), registers above 0, with the device's name; a report
// directory written from it holds the section. Built in the whole tree's build only (it
// compiles graphs). Where there is no driver or device it prints "no CUDA device: ..." and
// exits 77.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "backend/compile_graph.h"
#include "gpu_checks.h"
#include "ir/parser.h"
#include "report/compile_report.h"
#include "runtime/cuda/cuda_backend.h"

namespace kiln {
namespace {

// Generated kernels (a softmax's rows, a pointwise chain) and a linear for cuBLASLt.
constexpr const char* kGraph =
    "graph @mixed(%x: f32[64,256], %w: f32[128,256], %b: f32[128]) -> (f32[64,128], f32[64,256]) {\n"
    "  %0 = linear(%x, %w, %b) : f32[64,128]\n"
    "  %1 = softmax(%x) {dim=1} : f32[64,256]\n"
    "  %2 = tanh(%1) : f32[64,256]\n"
    "  return %0, %2\n}";

void check_report(Checks& checks, const std::string& dir) {
  auto g = parse_graph(kGraph);
  if (!checks.expect_ok(g, "the graph parses")) return;
  CudaBackendOptions options;
  options.run.cache_dir = dir + "/cache";
  const CudaBackend backend(Device::cuda(), options);
  Expected<CompiledGraph> c = compile_graph(**g, backend);
  if (!checks.expect_ok(c, "compiles and loads")) return;
  const TargetReport t = c->executable().target_report();
  checks.expect(!t.empty() && t.device.find("(sm_") != std::string::npos, "names the device", t.device);
  checks.expect(!t.kernels.empty(), "lists the launches", std::to_string(t.kernels.size()));
  for (const TargetKernel& k : t.kernels) {
    const std::string name = k.symbol + ": ";
    checks.expect(k.resources_from == "driver", name + "figures from the driver", k.resources_from);
    checks.expect(k.registers.value_or(0) > 0, name + "registers > 0", std::to_string(k.registers.value_or(-1)));
    checks.expect(k.local_bytes.has_value() && k.static_shared_bytes.has_value(),
                  name + "local and static shared memory known");
    std::printf("%s %d registers, %lld local bytes, %lld static shared bytes\n", k.symbol.c_str(),
                k.registers.value_or(-1), static_cast<long long>(k.local_bytes.value_or(-1)),
                static_cast<long long>(k.static_shared_bytes.value_or(-1)));
  }
  checks.expect(t.host_copied_ops.empty(), "nothing is copied through the host");
  CompileReport r{.title = "gpu"};
  r.programs.push_back(report_program("@mixed", *c, backend));
  Status written = write_compile_report(r, dir + "/report");
  if (!checks.expect(static_cast<bool>(written), "the report writes", written ? "" : written.error().message())) return;
  std::ifstream in(dir + "/report/index.html");
  std::stringstream html;
  html << in.rdbuf();
  checks.expect(html.str().find("<td class=\"code\">driver</td>") != std::string::npos,
                "the report shows the driver's figures");
}

int run() {
  Checks checks;
  if (!find_test_gpu(checks)) return checks.finish();
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("kiln-cuda-report-gpu-" + std::to_string(::getpid()))).string();
  check_report(checks, dir);
  std::filesystem::remove_all(dir);
  return checks.finish();
}

}  // namespace
}  // namespace kiln

int main() { return kiln::run(); }
