// CUDA kernel signatures (kernels/cuda_signature.h): parameter names, types and pointer-ness,
// C and C++ linkage, namespaces, templates, what the scanner skips, its errors, and the
// matching of PTX .entry names (mangled or not) to source kernels.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "kernels/cuda_signature.h"
#include "kernels/ptx_reader.h"
#include "test_files.h"

namespace kiln::kernels {
namespace {

const std::string kCorpus = std::string(KILN_SOURCE_DIR) + "/tests/kernels/cuda";

using test::read_file;

std::vector<CudaKernelSignature> read_ok(const std::string& source) {
  Expected<std::vector<CudaKernelSignature>> s = read_cuda_signatures(source, "k.cu");
  EXPECT_TRUE(s) << s.error().to_string();
  return s ? std::move(*s) : std::vector<CudaKernelSignature>{};
}

TEST(CudaSignature, ParameterNamesTypesAndPointers) {
  std::vector<CudaKernelSignature> sigs = read_ok(R"(
extern "C" __global__ void __launch_bounds__(256, 2)
k(const float* __restrict__ a, float *out, float x[], size_t n, unsigned long long count,
  const __grid_constant__ Map m, Pair<float*, int> pair, int, float*, const int = 3) {}
)");
  ASSERT_EQ(sigs.size(), 1u);
  const CudaKernelSignature& k = sigs[0];
  EXPECT_EQ(k.name, "k");
  EXPECT_TRUE(k.extern_c);
  EXPECT_EQ(k.loc.to_string(), "k.cu:3:1");
  struct Want {
    const char* name;
    const char* type;
    bool pointer;
  };
  const Want want[] = {{"a", "const float* __restrict__", true},
                       {"out", "float*", true},
                       {"x", "float*", true},
                       {"n", "size_t", false},
                       {"count", "unsigned long long", false},
                       {"m", "const __grid_constant__ Map", false},
                       {"pair", "Pair<float*, int>", false},
                       {"", "int", false},
                       {"", "float*", true},
                       {"", "const int", false}};
  ASSERT_EQ(k.params.size(), std::size(want));
  for (size_t i = 0; i < std::size(want); ++i) {
    EXPECT_EQ(k.params[i].name, want[i].name) << i;
    EXPECT_EQ(k.params[i].type, want[i].type) << i;
    EXPECT_EQ(k.params[i].is_pointer, want[i].pointer) << i;
  }
}

TEST(CudaSignature, ExternCBlocksAndVoidParameterLists) {
  std::vector<CudaKernelSignature> sigs = read_ok(R"(
extern "C" {
__global__ void in_block(void) {}
}
__global__ void outside(int* p) {}
extern "C" __global__ void single(int* p);
__device__ void helper(int* p) {}
)");
  ASSERT_EQ(sigs.size(), 3u);
  EXPECT_TRUE(sigs[0].extern_c);
  EXPECT_TRUE(sigs[0].params.empty());
  EXPECT_FALSE(sigs[1].extern_c);
  EXPECT_TRUE(sigs[2].extern_c);
  EXPECT_TRUE(sigs[0].matches_ptx_name("in_block"));
  EXPECT_FALSE(sigs[1].matches_ptx_name("outside"));
  EXPECT_TRUE(sigs[1].matches_ptx_name("_Z7outsidePi"));
}

// Names as nvcc 13 mangles them (checked with nvcc -ptx on the same source).
TEST(CudaSignature, MatchesMangledNamesByTheirSourceNames) {
  std::vector<CudaKernelSignature> sigs = read_ok(R"(
static __global__ void sk(float* o) {}
namespace { __global__ void ak(float* o) {} }
namespace a { namespace b { __global__ void nk(float* o) {} } }
namespace c::d { template <typename T> __global__ void tk(T* o, int n) {} }
)");
  ASSERT_EQ(sigs.size(), 4u);
  EXPECT_EQ(sigs[1].namespaces, std::vector<std::string>{""});
  EXPECT_EQ(sigs[2].namespaces, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(sigs[3].namespaces, (std::vector<std::string>{"c", "d"}));
  EXPECT_TRUE(sigs[0].matches_ptx_name("_Z2skPf"));
  EXPECT_FALSE(sigs[0].matches_ptx_name("_Z3skxPf"));
  EXPECT_FALSE(sigs[0].matches_ptx_name("sk"));
  EXPECT_FALSE(sigs[0].matches_ptx_name("_ZN1a2skEPf"));
  EXPECT_TRUE(sigs[1].matches_ptx_name("_ZN39_GLOBAL__N__5e31be09_7_mang_cu_01379f162akEPf"));
  EXPECT_TRUE(sigs[2].matches_ptx_name("_ZN1a1b2nkEPf"));
  EXPECT_FALSE(sigs[2].matches_ptx_name("_ZN1a2nkEPf"));
  EXPECT_FALSE(sigs[2].matches_ptx_name("_ZN1a1c2nkEPf"));
  EXPECT_TRUE(sigs[3].matches_ptx_name("_ZN1c1d2tkIfEEvPT_i"));
  EXPECT_FALSE(sigs[3].matches_ptx_name("_ZN1c1d2tkx"));
  EXPECT_FALSE(sigs[3].matches_ptx_name("_ZN1c1d9999999tkIfEEvPT_i"));
  EXPECT_EQ(find_cuda_signature(sigs, "_ZN1a1b2nkEPf"), &sigs[2]);
  EXPECT_EQ(find_cuda_signature(sigs, "nk"), nullptr);
}

TEST(CudaSignature, ExplicitInstantiationPrefersTheNamedDefinition) {
  std::vector<CudaKernelSignature> sigs = read_ok(R"(
template <typename T> __global__ void fill(T* out, T v);
template <typename T> __global__ void fill(T* out, T v) { *out = v; }
template __global__ void fill<float>(float*, float);
)");
  ASSERT_EQ(sigs.size(), 3u);
  EXPECT_EQ(sigs[2].name, "fill");
  EXPECT_EQ(sigs[2].params[0].name, "");
  EXPECT_EQ(sigs[2].params[0].type, "float*");
  const CudaKernelSignature* s = find_cuda_signature(sigs, "_Z4fillIfEvPT_S0_");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->params[0].name, "out");
}

TEST(CudaSignature, SkipsCommentsStringsAndPreprocessorLines) {
  std::vector<CudaKernelSignature> sigs = read_ok(R"src(
#define KERNEL __global__ void from_macro(int* p) {}
#define LONG(x) \
   __global__ void continued(int* x) {}
// __global__ void in_comment(int* p);
/* __global__ void in_block_comment(int* p); */
const char* s = "__global__ void in_string(int* p)";
const char* r = R"x(__global__ void in_raw(int* p))x";
char q = '"';
constexpr long big = 1'000'000;
__global__ void real(int* p /* the output */, int n = 1'000) {}
)src");
  ASSERT_EQ(sigs.size(), 1u);
  EXPECT_EQ(sigs[0].name, "real");
  ASSERT_EQ(sigs[0].params.size(), 2u);
  EXPECT_EQ(sigs[0].params[1].name, "n");
  EXPECT_EQ(sigs[0].loc.line, 11);
}

TEST(CudaSignature, MalformedSourceIsAnErrorAtItsPlace) {
  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {"__global__ void k(int* p) {}\n/* open", "k.cu:2:1: error: unterminated /* comment"},
      {"const char* s = \"open\n", "k.cu:1:17: error: unterminated string"},
      {"char c = 'x\n", "k.cu:1:10: error: unterminated character literal"},
      {"auto r = R\"x(open", "k.cu:1:10: error: unterminated raw string"},
      {"__global__ int x;", "k.cu:1:1: error: __global__ without a parameter list"},
      {"\n  __global__ void k(int* p", "k.cu:2:20: error: unclosed parameter list of k"},
  };
  for (const Case& c : cases) {
    Expected<std::vector<CudaKernelSignature>> s = read_cuda_signatures(c.text, "k.cu");
    ASSERT_FALSE(s) << "accepted: " << c.text;
    EXPECT_EQ(s.error().to_string().substr(0, std::string(c.error).size()), c.error) << s.error().to_string();
  }
}

// Every corpus kernel's .entry in its PTX matches exactly one kernel of its source.
TEST(CudaSignature, EveryCorpusEntryMatchesItsSource) {
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(kCorpus)) {
    if (e.path().extension() != ".cu") continue;
    ++files;
    std::filesystem::path ptx_path = e.path();
    ptx_path.replace_extension(".ptx");
    Expected<std::vector<CudaKernelSignature>> sigs = read_cuda_signatures(read_file(e.path()), e.path());
    ASSERT_TRUE(sigs) << sigs.error().to_string();
    Expected<PtxModule> ptx = read_ptx(read_file(ptx_path), ptx_path);
    ASSERT_TRUE(ptx) << ptx.error().to_string();
    for (const PtxFunction& f : ptx->functions) {
      if (!f.is_entry) continue;
      int matches = 0;
      for (const CudaKernelSignature& s : *sigs) {
        if (!s.matches_ptx_name(f.name)) continue;
        ++matches;
        EXPECT_EQ(s.params.size(), f.params.size()) << f.name;
      }
      EXPECT_GE(matches, 1) << f.name << " in " << ptx_path;
      EXPECT_NE(find_cuda_signature(*sigs, f.name), nullptr);
    }
  }
  EXPECT_GE(files, 12);
}

}  // namespace
}  // namespace kiln::kernels
