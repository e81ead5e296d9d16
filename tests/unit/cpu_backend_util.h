// Helpers for the CPU backend tests: a private kernel cache directory per test process
// (never the user's ~/.cache), merging several loop programs into one so that one compile
// covers many cases, and tolerance checks against the interpreter and the evaluator.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/tensor_compare.h"
#include "lower/loop_eval.h"
#include "lower/loop_ir.h"
#include "runtime/cpu/compiled_program.h"

namespace kiln {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it when destroyed.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + prefix + "-XXXXXX";
    if (mkdtemp(pattern.data())) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The kernel cache of this test process: created on first use, removed at exit.
inline const std::string& test_cache_dir() {
  static const TempDir dir("kiln-test-cache");
  return dir.path();
}

inline CpuCompileOptions test_compile_options(int jobs = 2) {
  CpuCompileOptions o;
  o.cache_dir = test_cache_dir();
  o.jobs = jobs;
  return o;
}

// One program that runs `parts` one after another: their inputs first (part order), then
// their other buffers; names get a "c<part>_" prefix. Its outputs are the parts' outputs in order.
inline LoopProgram merge_programs(const std::string& name, const std::vector<LoopProgram>& parts) {
  LoopProgram m;
  m.name = name;
  std::vector<std::vector<int>> remap(parts.size());
  auto add = [&](size_t c, int b) {
    Buffer buf = parts[c].buffers[static_cast<size_t>(b)];
    buf.name = "c" + std::to_string(c) + "_" + buf.name;
    remap[c][static_cast<size_t>(b)] = static_cast<int>(m.buffers.size());
    m.buffers.push_back(std::move(buf));
  };
  for (size_t c = 0; c < parts.size(); ++c) {
    remap[c].assign(parts[c].buffers.size(), -1);
    for (int b : parts[c].inputs) {
      add(c, b);
      m.inputs.push_back(static_cast<int>(m.buffers.size()) - 1);
    }
  }
  for (size_t c = 0; c < parts.size(); ++c) {
    for (size_t b = 0; b < parts[c].buffers.size(); ++b)
      if (remap[c][b] < 0) add(c, static_cast<int>(b));
    for (int b : parts[c].outputs) m.outputs.push_back(remap[c][static_cast<size_t>(b)]);
    for (LoopKernel k : parts[c].kernels) {
      k.name = "c" + std::to_string(c) + "_" + k.name;
      for (BodyOp& op : k.body)
        if (op.buffer >= 0) op.buffer = remap[c][static_cast<size_t>(op.buffer)];
      for (ExternOperand& o : k.operands)
        if (o.buffer >= 0) o.buffer = remap[c][static_cast<size_t>(o.buffer)];
      for (int& b : k.results) b = remap[c][static_cast<size_t>(b)];
      m.kernels.push_back(std::move(k));
    }
  }
  return m;
}

// The outputs of `p` on `inputs` compiled and run, and the loop-IR evaluator's; a test failure
// and no outputs where either fails.
struct CompiledAndEvaluated {
  std::vector<Tensor> compiled, evaluated;
};
inline CompiledAndEvaluated run_compiled_and_evaluated(const LoopProgram& p, const std::vector<Tensor>& inputs) {
  auto compiled = CompiledProgram::compile(p, test_compile_options());
  if (!compiled) {
    ADD_FAILURE() << compiled.error().to_string();
    return {};
  }
  auto got = compiled->run(inputs);
  if (!got) ADD_FAILURE() << got.error().to_string();
  auto eval = eval_loops(p, inputs);
  if (!eval) ADD_FAILURE() << eval.error().to_string();
  if (!got || !eval) return {};
  return {std::move(*got), std::move(*eval)};
}

// Every element of `got` within the dtype's default tolerance of `want` (same type).
inline void expect_close(const Tensor& want, const Tensor& got, const std::string& what) {
  ASSERT_EQ(want.type(), got.type()) << what;
  std::optional<Mismatch> m = worst_mismatch(want, got, default_tolerance(want.dtype()));
  EXPECT_FALSE(m) << what << ": element " << m->index << ": want " << m->want << ", got " << m->got;
}

}  // namespace kiln
