// The PTX mutation analysis (kernels/ptx_mutation.h) on hand-written PTX, one behaviour per
// test with its negative beside it; the CUDA corpus (tests/kernels/cuda/, nvcc's PTX and, when
// NVRTC is installed, NVRTC's) against its expected answers; and NVRTC (runtime/cuda/nvrtc.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "kernels/cuda_signature.h"
#include "kernels/ptx_mutation.h"
#include "kernels/ptx_reader.h"
#include "runtime/cuda/nvrtc.h"
#include "test_files.h"

namespace kiln::kernels {
namespace {

const std::string kCorpus = std::string(KILN_SOURCE_DIR) + "/tests/kernels/cuda";

using test::read_file;

using Names = std::vector<std::string>;

constexpr const char* kHeader = ".version 9.0\n.target sm_90\n.address_size 64\n";
constexpr const char* kRegs = ".reg .pred %p<9>;\n.reg .b32 %r<99>;\n.reg .f32 %f<9>;\n.reg .b64 %rd<99>;\n";

// Kernel k(u64 out0, u64 out1, u32 n) with %rd1/%rd2 loaded from the pointers (as generic
// addresses), %rd3/%rd4 their global forms, and `body` after that. Line 14 is the body's first.
std::string kernel(const std::string& body, const std::string& before = "") {
  return std::string(kHeader) + before +
         ".visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1, .param .u32 k_param_2)\n{\n" + kRegs +
         "ld.param.u64 %rd1, [k_param_0];\nld.param.u64 %rd2, [k_param_1];\n"
         "cvta.to.global.u64 %rd3, %rd1;\ncvta.to.global.u64 %rd4, %rd2;\n" +
         body + "\nret;\n}\n";
}

MutationAnalysis analyze(const std::string& ptx, const std::string& cuda = "") {
  Expected<PtxModule> m = read_ptx(ptx, "t.ptx");
  EXPECT_TRUE(m) << m.error().to_string();
  if (!m) return {};
  PtxAnalysisOptions options;
  if (!cuda.empty()) {
    Expected<std::vector<CudaKernelSignature>> sigs = read_cuda_signatures(cuda, "t.cu");
    EXPECT_TRUE(sigs && !sigs->empty());
    if (sigs && !sigs->empty()) options.signature = sigs->front();
  }
  Expected<MutationAnalysis> r = analyze_ptx(*m, options);
  EXPECT_TRUE(r) << r.error().to_string();
  return r ? std::move(*r) : MutationAnalysis{};
}

// Precise: exactly `names`, no fallback, no reasons.
void expect_precise(const MutationAnalysis& r, const Names& names, const std::string& what = "") {
  EXPECT_EQ(r.written_names(), names) << what;
  EXPECT_FALSE(r.fallback) << what;
  EXPECT_TRUE(r.reasons.empty()) << what << ": " << (r.reasons.empty() ? "" : r.reasons[0]);
}

// Conservative: every pointer parameter written, the first reason containing `reason`.
void expect_conservative(const MutationAnalysis& r, bool fallback, const std::string& reason,
                         const std::string& what = "") {
  EXPECT_EQ(r.written_names(), (Names{"arg0", "arg1"})) << what;
  EXPECT_EQ(r.fallback, fallback) << what;
  ASSERT_FALSE(r.reasons.empty()) << what;
  EXPECT_NE(r.reasons[0].find(reason), std::string::npos) << what << ": " << r.reasons[0];
}

TEST(PtxMutation, StoreThroughAParameterIsAWriteALoadIsNot) {
  MutationAnalysis r = analyze(kernel("ld.global.f32 %f1, [%rd3];\nst.global.f32 [%rd4+4], %f1;"));
  expect_precise(r, {"arg1"});
  EXPECT_EQ(r.function, "k");
  ASSERT_EQ(r.params.size(), 3u);
  EXPECT_EQ(r.params[0].type, ".u64");
  EXPECT_TRUE(r.params[0].is_pointer);
  EXPECT_FALSE(r.params[0].written);
  EXPECT_FALSE(r.params[2].is_pointer);
  EXPECT_TRUE(r.params[1].reason.empty());
}

TEST(PtxMutation, SharedLocalAndParamStoresAreNotGlobalWrites) {
  expect_precise(analyze(kernel("st.shared.f32 [%rd1], %f1;\nst.local.f32 [%rd1], %f1;\n"
                                "st.shared::cluster.f32 [%rd1], %f1;")),
                 {});
  expect_precise(analyze(kernel("st.shared.f32 [%rd1], %f1;\nst.f32 [%rd2], %f1;")), {"arg1"}, "generic");
}

TEST(PtxMutation, ParameterUsedDirectlyInTheAddress) {
  expect_precise(analyze(kernel("mov.u64 %rd9, k_param_1;\ncvta.param.u64 %rd10, %rd9;\n"
                                "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%rd10, {%r1}], [%r2];")),
                 {"arg1"}, "tensor map");
  expect_precise(analyze(kernel("st.global.u32 [k_param_0+8], %r1;")), {"arg0"}, "symbol address");
}

// A value loaded from memory is an offset when it is narrower than a pointer or scaled before
// the add, a possible pointer when it reaches the address as a base.
TEST(PtxMutation, LoadedIndicesAreOffsets) {
  const char* bodies[] = {
      "ld.global.u32 %r1, [%rd3];\nmul.wide.s32 %rd5, %r1, 4;\nadd.s64 %rd6, %rd4, %rd5;\nst.global.f32 [%rd6], %f1;",
      "ld.global.u32 %r1, [%rd3];\ncvt.u64.u32 %rd5, %r1;\nadd.s64 %rd6, %rd4, %rd5;\nst.global.f32 [%rd6], %f1;",
      "ld.global.u64 %rd5, [%rd3];\nshl.b64 %rd6, %rd5, 2;\nadd.s64 %rd7, %rd4, %rd6;\nst.global.f32 [%rd7], %f1;",
      "ld.global.u64 %rd5, [%rd3];\nmul.lo.s64 %rd6, %rd5, 4;\nadd.s64 %rd7, %rd4, %rd6;\nst.global.f32 [%rd7], %f1;",
      "ld.global.nc.u64 %rd5, [%rd3];\nmad.lo.s64 %rd7, %rd5, 4, %rd4;\nst.global.f32 [%rd7], %f1;",
  };
  for (const char* body : bodies) expect_precise(analyze(kernel(body)), {"arg1"}, body);
}

TEST(PtxMutation, LoadedPointersMakeTheAnswerConservative) {
  const char* glue[] = {
      "mov.u64 %rd6, %rd5;",
      "add.s64 %rd6, %rd5, 16;",
      "sub.s64 %rd6, %rd5, %rd4;",
      "cvta.to.global.u64 %rd6, %rd5;",
      "cvt.u64.u64 %rd6, %rd5;",
      "selp.b64 %rd6, %rd5, %rd4, %p1;",
      "and.b64 %rd6, %rd5, -16;",
      "or.b64 %rd6, %rd5, 1;",
      "mad.lo.s64 %rd6, %rd9, 4, %rd5;",
  };
  for (const char* g : glue) {
    std::string body = std::string("ld.global.u64 %rd5, [%rd3];\n") + g + "\nst.global.f32 [%rd6], %f1;";
    MutationAnalysis r = analyze(kernel(body));
    expect_conservative(r, false, "t.ptx:16:1: stores through a pointer loaded from memory (ld.global.u64 at line 14)",
                        g);
    EXPECT_FALSE(r.params[0].reason.empty()) << g;
    EXPECT_EQ(r.params[0].reason, r.reasons[0]) << g;
  }
}

TEST(PtxMutation, AProvenWriteKeepsNoReasonInAConservativeAnswer) {
  MutationAnalysis r = analyze(kernel("st.global.f32 [%rd4], %f1;\nld.u64 %rd5, [%rd3];\nst.f32 [%rd5], %f1;"));
  EXPECT_EQ(r.written_names(), (Names{"arg0", "arg1"}));
  EXPECT_FALSE(r.params[0].reason.empty());
  EXPECT_TRUE(r.params[1].reason.empty());
  ASSERT_EQ(r.reasons.size(), 1u);
  EXPECT_NE(r.reasons[0].find("t.ptx:16:1: stores through a pointer loaded from memory (ld.u64 at line 15)"),
            std::string::npos);
}

TEST(PtxMutation, PointerRebuiltFromHalvesIsStillAPointer) {
  expect_conservative(analyze(kernel("ld.global.v2.u32 {%r1, %r2}, [%rd3];\nmov.b64 %rd5, {%r1, %r2};\n"
                                     "st.global.f32 [%rd5], %f1;")),
                      false, "stores through a pointer loaded from memory");
  expect_precise(analyze(kernel("mov.b64 {%r1, %r2}, %rd2;\nmov.b64 %rd5, {%r1, %r2};\nst.global.f32 [%rd5], %f1;")),
                 {"arg1"}, "a parameter split and rebuilt");
  expect_conservative(analyze(kernel("ld.global.u32 %r1, [%rd3];\nfrob.b64 %rd5, %r1;\nst.global.f32 [%rd5], %f1;")),
                      false, "stores through a pointer loaded from memory", "an unknown widening instruction");
}

TEST(PtxMutation, AnAtomicsOldValueIsReadFromMemory) {
  MutationAnalysis r = analyze(kernel("atom.global.exch.b64 %rd5, [%rd3], 0;\nst.global.f32 [%rd5], %f1;"));
  expect_conservative(r, false, "(atom.global.exch.b64 at line 14)");
  EXPECT_TRUE(r.params[0].reason.empty());  // the atomic itself writes arg0
  expect_precise(analyze(kernel("atom.global.add.u32 %r5, [%rd3], 1;\nmul.wide.u32 %rd5, %r5, 4;\n"
                                "add.s64 %rd6, %rd4, %rd5;\nst.global.f32 [%rd6], %f1;")),
                 {"arg0", "arg1"}, "an atomic's result used as an index");
}

TEST(PtxMutation, EveryKindOfGlobalWrite) {
  const char* writes[] = {
      "st.global.v4.f32 [%rd4], {%f1, %f2, %f3, %f4};",
      "st.volatile.global.u32 [%rd4], %r1;",
      "st.relaxed.sys.global.u32 [%rd4], %r1;",
      "st.global.L1::no_allocate.v2.u64 [%rd4+8], {%rd9, %rd10};",
      "atom.global.add.f32 %f2, [%rd4], %f1;",
      "atom.add.relaxed.gpu.s32 %r1,[%rd2],%r2;",
      "atom.global.cas.b32 %r1, [%rd4], %r2, %r3;",
      "red.global.add.u32 [%rd4], 1;",
      "red.release.gpu.global.add.u32 [%rd4+8], 1;",
      "cp.async.bulk.global.shared::cta.bulk_group [%rd4], [%r1], 256;",
      "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd4], [%r1], 256;",
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd4, {%r1, %r2}], [%r3];",
      "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [%rd4, {%r1}], [%r3];",
      "multimem.st.relaxed.gpu.f32 [%rd2], %f1;",
      "multimem.red.relaxed.gpu.add.f32 [%rd2], %f1;",
      "wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd4], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, %r1;",
      "sust.b.1d.b32.trap [%rd2, {%r1}], {%r2};",
      "discard.global.L2 [%rd4], 128;",
      "tensormap.replace.tile.global_address.global.b1024.b64 [%rd4], %rd1;",
  };
  for (const char* w : writes) expect_precise(analyze(kernel(w)), {"arg1"}, w);
}

TEST(PtxMutation, MemoryInstructionsThatWriteNoGlobalMemory) {
  const char* others[] = {
      "ld.global.f32 %f1, [%rd4];",
      "ldu.global.f32 %f1, [%rd4];",
      "prefetch.global.L2 [%rd4];",
      "cp.async.bulk.prefetch.L2.global [%rd4], 256;",
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd4], 256, [%r2];",
      "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd4, {%r2}], [%r3];",
      "cp.async.ca.shared.global [%r1], [%rd4], 16;",
      "st.shared.u32 [%rd4], %r1;",
      "atom.shared.add.u32 %r1, [%rd4], 1;",
      "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%rd4], 1, [%r2];",
      "mbarrier.arrive.b64 %rd9, [%rd4];",
      "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%rd4], {%r1};",
      "cp.async.bulk.commit_group;",
      "cp.async.bulk.wait_group.read 0;",
      "fence.proxy.tensormap::generic.acquire.gpu [%rd4], 128;",
  };
  for (const char* o : others) expect_precise(analyze(kernel(o)), {}, o);
}

TEST(PtxMutation, WhatItCannotFollowIsAFallback) {
  expect_conservative(
      analyze(kernel("frob.global.u32 [%rd4], %r1;")), true,
      "t.ptx:14:1: frob.global.u32: an instruction with a memory operand that the analysis does not know");
  expect_conservative(analyze(kernel("st.global.f32 %rd4, %f1;")), true,
                      "t.ptx:14:1: st.global.f32 writes memory but has no address operand");
  expect_conservative(analyze(kernel("st.global.u32 [4096], %r1;")), true, "writes to a constant address 4096");
  // An unknown instruction that only computes is followed through every operand.
  expect_precise(analyze(kernel("frob.b64 %rd5, %rd2, %r1;\nst.global.f32 [%rd5], %f1;")), {"arg1"}, "unknown compute");
}

// The predicate that chooses between two pointers carries no address.
TEST(PtxMutation, SelectedPointersAreBothWrittenTheirPredicateIsNot) {
  std::string ptx =
      std::string(kHeader) +
      ".visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1, .param .u64 k_param_2)\n{\n" + kRegs +
      "ld.param.u64 %rd1, [k_param_0];\nld.param.u64 %rd2, [k_param_1];\nld.param.u64 %rd3, [k_param_2];\n"
      "setp.ge.u64 %p1, %rd9, %rd3;\nselp.b64 %rd4, %rd1, %rd2, %p1;\nst.global.f32 [%rd4], %f1;\n}\n";
  expect_precise(analyze(ptx), {"arg0", "arg1"});
}

// Without the signature a .u64 parameter may be a pointer or a size_t.
TEST(PtxMutation, SignatureNamesParametersAndSaysWhichArePointers) {
  std::string ptx = std::string(kHeader) + ".visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)\n{\n" +
                    kRegs +
                    "ld.param.u64 %rd1, [k_param_0];\nld.param.u64 %rd2, [k_param_1];\n"
                    "not.b64 %rd3, %rd9;\nadd.s64 %rd4, %rd3, %rd2;\nshl.b64 %rd5, %rd4, 2;\n"
                    "add.s64 %rd6, %rd1, %rd5;\nst.global.f32 [%rd6], %f1;\n}\n";
  MutationAnalysis raw = analyze(ptx);
  expect_precise(raw, {"arg0", "arg1"}, "no signature");
  MutationAnalysis named = analyze(ptx, "extern \"C\" __global__ void k(float* out, size_t n) {}");
  expect_precise(named, {"out"}, "signature");
  ASSERT_EQ(named.params.size(), 2u);
  EXPECT_EQ(named.params[0].type, "float*");
  EXPECT_EQ(named.params[1].name, "n");
  EXPECT_EQ(named.params[1].type, "size_t");
  EXPECT_FALSE(named.params[1].is_pointer);
}

// A struct passed by value may hold pointers, whatever the signature calls its type.
TEST(PtxMutation, AggregateParametersCountAsPointers) {
  std::string ptx = std::string(kHeader) +
                    ".visible .entry k(.param .align 8 .b8 k_param_0[16], .param .align 8 .b8 k_param_1[16])\n{\n" +
                    kRegs + "ld.param.u64 %rd1, [k_param_0+8];\nst.global.f32 [%rd1], %f1;\n}\n";
  MutationAnalysis r = analyze(ptx, "struct A { float* a; float* b; }; extern \"C\" __global__ void k(A x, A y) {}");
  expect_precise(r, {"x"});
  EXPECT_TRUE(r.params[1].is_pointer);
  EXPECT_EQ(r.params[1].type, "A");
  EXPECT_EQ(analyze(ptx).params[0].type, ".b8[16]");
}

TEST(PtxMutation, ThirtyTwoBitAddressing) {
  std::string ptx =
      ".version 9.0\n.target sm_90\n.address_size 32\n"
      ".visible .entry k(.param .u32 k_param_0, .param .u32 k_param_1, .param .f32 k_param_2)\n{\n"
      ".reg .b32 %r<9>;\n.reg .f32 %f<2>;\n"
      "ld.param.u32 %r1, [k_param_0];\nld.param.u32 %r2, [k_param_1];\n"
      "ld.global.u32 %r3, [%r2];\nadd.s32 %r4, %r1, 4;\nst.global.f32 [%r4], %f1;\n}\n";
  MutationAnalysis r = analyze(ptx);
  expect_precise(r, {"arg0"});
  EXPECT_TRUE(r.params[1].is_pointer);
  EXPECT_FALSE(r.params[2].is_pointer);
}

// --- calls ---

constexpr const char* kStoreHelper =
    ".func _Z3putPfi(.param .b64 _Z3putPfi_param_0, .param .b32 _Z3putPfi_param_1)\n{\n"
    ".reg .b32 %r<3>;\n.reg .b64 %rd<5>;\n"
    "ld.param.u64 %rd1, [_Z3putPfi_param_0];\nld.param.u32 %r1, [_Z3putPfi_param_1];\n"
    "mul.wide.s32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.u32 [%rd3], %r1;\nret;\n}\n";

std::string call_put(const std::string& arg) {
  return "{\n.param .b64 param0;\nst.param.b64 [param0+0], " + arg +
         ";\n.param .b32 param1;\nst.param.b32 [param1+0], %r1;\ncall.uni\n_Z3putPfi,\n(\nparam0,\nparam1\n);\n}\n";
}

TEST(PtxMutation, CalleeWritesMapBackToEachCallsArguments) {
  expect_precise(analyze(kernel(call_put("%rd4"), kStoreHelper)), {"arg1"});
  expect_precise(analyze(kernel(call_put("%rd3") + call_put("%rd4"), kStoreHelper)), {"arg0", "arg1"}, "two calls");
  expect_precise(analyze(kernel("ld.global.u32 %r1, [%rd3];\n" + call_put("%rd4"), kStoreHelper)), {"arg1"},
                 "a loaded value passed as the index");
  expect_conservative(analyze(kernel("ld.global.u64 %rd5, [%rd3];\n" + call_put("%rd5"), kStoreHelper)), false,
                      "stores through a pointer loaded from memory (ld.global.u64 at line 25)");
}

constexpr const char* kIdentity =
    ".func (.param .b64 func_retval0) _Z2idPf(.param .b64 _Z2idPf_param_0)\n{\n.reg .b64 %rd<3>;\n"
    "ld.param.u64 %rd1, [_Z2idPf_param_0];\nadd.s64 %rd2, %rd1, 4;\nst.param.b64 [func_retval0+0], %rd2;\nret;\n}\n";
constexpr const char* kLoadPointer =
    ".func (.param .b64 func_retval0) _Z2ldPf(.param .b64 _Z2ldPf_param_0)\n{\n.reg .b64 %rd<3>;\n"
    "ld.param.u64 %rd1, [_Z2ldPf_param_0];\nld.u64 %rd2, [%rd1];\nst.param.b64 [func_retval0+0], %rd2;\nret;\n}\n";

std::string call_returning(const std::string& fn, const std::string& arg) {
  return "{\n.param .b64 param0;\nst.param.b64 [param0+0], " + arg + ";\n.param .b64 retval0;\ncall.uni (retval0), " +
         fn + ", (param0);\nld.param.b64 %rd20, [retval0+0];\n}\nst.global.f32 [%rd20], %f1;";
}

TEST(PtxMutation, ReturnedPointersComeFromTheCallsArguments) {
  expect_precise(analyze(kernel(call_returning("_Z2idPf", "%rd4"), kIdentity)), {"arg1"});
  expect_conservative(analyze(kernel(call_returning("_Z2ldPf", "%rd4"), kLoadPointer)), false,
                      "stores through a pointer loaded from memory (call.uni at line");
}

TEST(PtxMutation, CallsItCannotFollowAreFallbacks) {
  expect_conservative(analyze(kernel("call.uni (retval0), %rd5, (param0), prototype_0;")), true,
                      "t.ptx:14:1: indirect call through %rd5");
  expect_conservative(analyze(kernel("call.uni ext, (param0);", ".extern .func ext(.param .b64 p);\n")), true,
                      "call to ext, whose body is not in the module");
  expect_conservative(analyze(kernel("call.uni _Z3putPfi, (param0);", kStoreHelper)), true,
                      "call to _Z3putPfi with 1 arguments and 0 results; it has 2 and 0");
  const char* recursive =
      ".func f(.param .b64 f_param_0)\n{\n.reg .b64 %rd<2>;\n"
      "ld.param.u64 %rd1, [f_param_0];\n{\n.param .b64 param0;\n"
      "st.param.b64 [param0+0], %rd1;\ncall.uni f, (param0);\n}\nret;\n}\n";
  expect_conservative(
      analyze(kernel("{\n.param .b64 param0;\nst.param.b64 [param0+0], %rd1;\ncall.uni f, (param0);\n}", recursive)),
      true, "recursive call to f");
  expect_precise(analyze(kernel("call.uni (retval0), vprintf, (param0, param1);\nst.global.f32 [%rd4], %f1;",
                                ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);\n")),
                 {"arg1"}, "printf");
  expect_precise(analyze(kernel("call.uni (retval0), malloc, (param0);\nld.param.b64 %rd5, [retval0];\n"
                                "st.global.f32 [%rd5], %f1;",
                                ".extern .func (.param .b64 func_retval0) malloc(.param .b64 p);\n")),
                 {}, "a store to fresh memory from malloc");
}

// A fallback reports every pointer parameter, never an empty set, each with the reason.
TEST(PtxMutation, AFallbackNeverLeavesAPointerUnwritten) {
  MutationAnalysis r = analyze(kernel("frob.u32 [%rd9], %r1;\nfrob.u32 [%rd9], %r2;"));
  EXPECT_TRUE(r.fallback);
  EXPECT_EQ(r.written_names(), (Names{"arg0", "arg1"}));
  EXPECT_EQ(r.reasons.size(), 2u);
  for (const ParamMutation& p : r.params) {
    if (p.is_pointer) {
      EXPECT_EQ(p.reason, r.reasons[0]);
    }
  }
}

TEST(PtxMutation, InputsThatDoNotFitTogetherAreErrors) {
  Expected<PtxModule> m = read_ptx(kernel("ret;"), "t.ptx");
  ASSERT_TRUE(m);
  struct Case {
    PtxAnalysisOptions options;
    const char* error;
  };
  Expected<std::vector<CudaKernelSignature>> other =
      read_cuda_signatures("extern \"C\" __global__ void other(int* p) {}");
  Expected<std::vector<CudaKernelSignature>> k1 = read_cuda_signatures("extern \"C\" __global__ void k(int* p) {}");
  ASSERT_TRUE(other && k1);
  const Case cases[] = {
      {{"nope", std::nullopt}, "t.ptx: no function named nope (entries: k)"},
      {{"", other->front()}, "t.ptx: no .entry is the kernel other (entries: k)"},
      {{"", k1->front()}, "t.ptx: the signature of k has 1 parameters, .entry k has 3"},
  };
  for (const Case& c : cases) {
    Expected<MutationAnalysis> r = analyze_ptx(*m, c.options);
    ASSERT_FALSE(r) << c.error;
    EXPECT_EQ(r.error().message(), c.error);
  }
  Expected<PtxModule> empty = read_ptx(".version 9.0\n.func f() { ret; }\n", "e.ptx");
  ASSERT_TRUE(empty);
  Expected<MutationAnalysis> r = analyze_ptx(*empty, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "e.ptx: no .entry in the module");
}

// --- the corpus ---

struct Expectation {
  Names written;
  bool conservative = false;
};

Expectation read_expected(const std::string& path) {
  Expectation e;
  std::istringstream in(read_file(path));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# conservative:", 0) == 0) e.conservative = true;
    if (!line.empty() && line[0] != '#') e.written.push_back(line);
  }
  return e;
}

// Analyzes the kernel of `cu_path` in `ptx` with its signature and compares with `.expected`.
void check_corpus_kernel(const std::filesystem::path& cu_path, const std::string& ptx, const std::string& ptx_name) {
  std::filesystem::path expected_path = cu_path;
  expected_path.replace_extension(".expected");
  ASSERT_TRUE(std::filesystem::exists(expected_path)) << expected_path;
  Expectation want = read_expected(expected_path);
  Expected<PtxModule> m = read_ptx(ptx, ptx_name);
  ASSERT_TRUE(m) << m.error().to_string();
  Expected<std::vector<CudaKernelSignature>> sigs = read_cuda_signatures(read_file(cu_path), cu_path);
  ASSERT_TRUE(sigs) << sigs.error().to_string();
  const PtxFunction* entry = m->first_entry();
  ASSERT_NE(entry, nullptr);
  const CudaKernelSignature* sig = find_cuda_signature(*sigs, entry->name);
  ASSERT_NE(sig, nullptr) << entry->name;
  Expected<MutationAnalysis> r = analyze_ptx(*m, {"", *sig});
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->written_names(), want.written) << ptx_name;
  EXPECT_FALSE(r->fallback) << ptx_name;
  EXPECT_EQ(!r->reasons.empty(), want.conservative) << ptx_name << (r->reasons.empty() ? "" : ": " + r->reasons[0]);
}

std::vector<std::filesystem::path> corpus_sources() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(kCorpus))
    if (e.path().extension() == ".cu") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(PtxCorpus, NvccPtxGivesTheExpectedAnswers) {
  std::vector<std::filesystem::path> sources = corpus_sources();
  EXPECT_GE(sources.size(), 12u);
  for (const std::filesystem::path& cu : sources) {
    std::filesystem::path ptx = cu;
    ptx.replace_extension(".ptx");
    check_corpus_kernel(cu, read_file(ptx), ptx.filename());
  }
}

TEST(NvrtcCorpus, NvrtcPtxGivesTheSameAnswers) {
  Expected<std::string> version = nvrtc_version();
  if (!version) GTEST_SKIP() << "NVRTC is not installed here: " << version.error().message();
  for (const std::filesystem::path& cu : corpus_sources()) {
    NvrtcOptions options;
    options.name = cu.filename();
    Expected<std::string> ptx = compile_cuda_to_ptx(read_file(cu), options);
    ASSERT_TRUE(ptx) << ptx.error().to_string();
    check_corpus_kernel(cu, *ptx, cu.filename().string() + " (NVRTC " + *version + ")");
  }
}

// --- NVRTC ---

TEST(Nvrtc, FlagsAreTheDocumentedOnes) {
  EXPECT_EQ(nvrtc_flags({}), (Names{"--gpu-architecture=compute_90", "-default-device", "-std=c++17"}));
  NvrtcOptions o;
  o.arch = "compute_100";
  o.include_dirs = {"/opt/inc"};
  o.extra = {"-lineinfo"};
  EXPECT_EQ(nvrtc_flags(o),
            (Names{"--gpu-architecture=compute_100", "-default-device", "-std=c++17", "-I/opt/inc", "-lineinfo"}));
}

TEST(Nvrtc, CompileErrorsCarryNvrtcsLog) {
  if (Expected<std::string> v = nvrtc_version(); !v)
    GTEST_SKIP() << "NVRTC is not installed here: " << v.error().message();
  NvrtcOptions o;
  o.name = "broken.cu";
  Expected<std::string> ptx =
      compile_cuda_to_ptx("extern \"C\" __global__ void k(float* o) { o[0] = nothing_here; }", o);
  ASSERT_FALSE(ptx);
  std::string e = ptx.error().to_string();
  EXPECT_NE(e.find("NVRTC: broken.cu does not compile"), std::string::npos) << e;
  EXPECT_NE(e.find("identifier \"nothing_here\" is undefined"), std::string::npos) << e;
  o.arch = "compute_10";
  Expected<std::string> bad_arch = compile_cuda_to_ptx("__global__ void k() {}", o);
  ASSERT_FALSE(bad_arch);
  EXPECT_NE(bad_arch.error().message().find("compute_10"), std::string::npos) << bad_arch.error().message();
}

TEST(Nvrtc, CompiledPtxReadsAndAnalyzes) {
  if (Expected<std::string> v = nvrtc_version(); !v)
    GTEST_SKIP() << "NVRTC is not installed here: " << v.error().message();
  const char* source =
      "namespace ops { __global__ void copy(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; } }";
  Expected<std::string> ptx = compile_cuda_to_ptx(source);
  ASSERT_TRUE(ptx) << ptx.error().to_string();
  EXPECT_NE(ptx->find(".target sm_90"), std::string::npos);
  Expected<PtxModule> m = read_ptx(*ptx, "copy.ptx");
  ASSERT_TRUE(m) << m.error().to_string();
  Expected<std::vector<CudaKernelSignature>> sigs = read_cuda_signatures(source);
  ASSERT_TRUE(sigs);
  Expected<MutationAnalysis> r = analyze_ptx(*m, {"", sigs->front()});
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->written_names(), Names{"out"});
}

}  // namespace
}  // namespace kiln::kernels
