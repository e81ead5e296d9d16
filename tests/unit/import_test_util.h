// What the .pt2 import tests share (test_import_pt2.cc, test_import_text.cc): the archives of
// tests/import/data (made by tests/import/make_pt2_archives.py), the skip where kiln was built
// without .pt2 import, and the check that an imported archive computes PyTorch's output.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "backend/compile_graph.h"
#include "core/npy.h"
#include "core/tensor_compare.h"
#include "cpu_backend_util.h"
#include "import/import_pt2.h"
#include "interp/interpreter.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "runtime/cpu/cpu_backend.h"

namespace kiln::test {

inline std::string import_data_path(const std::string& file) {
  return std::string(KILN_SOURCE_DIR) + "/tests/import/data/" + file;
}

// Skips the test, with import_pt2's own message, where kiln was built without .pt2 import.
#define SKIP_WITHOUT_PT2()                                                              \
  do {                                                                                  \
    if (!pt2_import_available()) GTEST_SKIP() << import_pt2("x.pt2").error().message(); \
  } while (0)

inline void expect_matches_pytorch(const Tensor& want, const Tensor& got, const std::string& what) {
  ASSERT_EQ(want.sizes(), got.sizes()) << what;
  std::optional<Mismatch> m = worst_mismatch(want, got, {1e-5, 1e-6});
  EXPECT_FALSE(m) << what << ": element " << m->index << " is " << m->got << ", PyTorch gives " << m->want;
}

// Imports `name`.pt2, runs it on `name`_input<i>.npy in the interpreter and compiled for the
// CPU, each against PyTorch's `name`_output.npy, and returns the graph's text, which must parse
// back to itself ("" where the import failed, the failure recorded).
inline std::string check_matches_pytorch(const std::string& name) {
  Expected<ImportedProgram> m = import_pt2(import_data_path(name + ".pt2"));
  if (!m) {
    ADD_FAILURE() << m.error().to_string();
    return "";
  }
  std::vector<Tensor> user;
  for (size_t i = 0;; ++i) {
    const std::string path = import_data_path(name + "_input" + std::to_string(i) + ".npy");
    if (!std::filesystem::exists(path)) break;
    Expected<Tensor> x = read_npy(path);
    if (!x) {
      ADD_FAILURE() << x.error().to_string();
      return "";
    }
    user.push_back(*x);
  }
  Expected<Tensor> want = read_npy(import_data_path(name + "_output.npy"));
  Expected<std::vector<Tensor>> inputs = m->inputs_with(user);
  if (!want || !inputs) {
    ADD_FAILURE() << (want ? inputs.error().to_string() : want.error().to_string());
    return "";
  }
  Expected<std::vector<Tensor>> interpreted = interpret(*m->graph, *inputs);
  EXPECT_TRUE(interpreted) << interpreted.error().to_string();
  if (interpreted) {
    EXPECT_EQ(interpreted->size(), 1u) << name;
    expect_matches_pytorch(*want, (*interpreted)[0], name + " in the interpreter");
  }
  Expected<CompiledGraph> compiled = compile_graph(*m->graph, CpuBackend({.compile = test_compile_options()}));
  EXPECT_TRUE(compiled) << compiled.error().to_string();
  if (compiled) {
    Expected<std::vector<Tensor>> ran = compiled->run(*inputs);
    EXPECT_TRUE(ran) << ran.error().to_string();
    if (ran) expect_matches_pytorch(*want, (*ran)[0], name + " compiled for the CPU");
  }
  std::string text = print_graph(*m->graph);
  Expected<std::unique_ptr<Graph>> parsed = parse_graph(text, name);
  EXPECT_TRUE(parsed) << parsed.error().to_string() << "\n" << text;
  if (parsed) {
    EXPECT_EQ(print_graph(**parsed), text);
  }
  return text;
}

}  // namespace kiln::test
