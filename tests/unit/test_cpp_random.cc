// The generated code's random draws (the prelude's Philox-4x32-10, kiln_random_key and the
// uniform and normal transforms) against core/random.h, through compiled `random` body ops:
// the same bits for 64-bit integers and uniform draws of every floating dtype over many keys
// (literal seeds, rng_states with extreme words) and counters (small, across 2^32, near
// 2^63), over loops long enough to run vectorized and in parallel. Normal draws call libm's
// log, cos and sqrt in double as core/random.cc does; the bound tested is 1e-12 absolute.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/element.h"
#include "core/random.h"
#include "cpu_backend_util.h"
#include "lower/loop_eval.h"
#include "lower/loop_text.h"
#include "runtime/cpu/compiled_program.h"

namespace kiln {
namespace {

constexpr int64_t kStates = 48, kPoints = 1024;

// Counter families: element j of a row draws at counter base + step * j.
struct Counters {
  const char* index;  // the loop IR index expression
  uint64_t base, step;
};
const Counters kCounters[] = {
    {"i1", 0, 1},
    {"4294966784 + i1", 4294966784ull, 1},                    // across 2^32: the high word turns
    {"9223372036854774784 + i1", 9223372036854774784ull, 1},  // just below 2^63
    {"1000003*i1 + 17", 17, 1000003},
};
constexpr uint64_t kSeeds[] = {0, 1, 0xFFFFFFFFull, 0x100000000ull, 0xFFFFFFFFFFFFFFFFull, 0x9E3779B97F4A7C15ull};

// One kernel per counter family over [kStates, kPoints]: full 64-bit draws under row i0's
// rng_state, f64/f32/f16/bf16 uniform draws and f64/f32 normal draws under it, and 64-bit
// draws under each literal seed (rows repeat: the counter varies along i1 only).
std::string program_text() {
  std::string outs, buffers, kernels;
  const std::string shape = "[" + std::to_string(kStates) + "," + std::to_string(kPoints) + "]";
  const std::string strides = " strides [" + std::to_string(kPoints) + ",1]\n";
  const char* dtypes[] = {"i64", "f64", "f32", "f16", "bf16", "f64", "f32"};
  const char* kinds[] = {"int", "uniform", "uniform", "uniform", "uniform", "normal", "normal"};
  const size_t state_draws = std::size(dtypes);
  int b = 0;
  for (size_t c = 0; c < std::size(kCounters); ++c) {
    kernels += "  kernel @k" + std::to_string(c) + " pointwise {\n    for i0 in range(" + std::to_string(kStates) +
               ") {\n      for i1 in range(" + std::to_string(kPoints) + ") {\n";
    kernels += "        %i = index " + std::string(kCounters[c].index) + "\n";
    kernels += "        %s = load %s[2*i0]\n        %o = load %s[2*i0 + 1]\n";
    auto out = [&](const std::string& dtype, const std::string& draw) {
      const std::string name = "o" + std::to_string(b++);
      outs += (outs.empty() ? "%" : ", %") + name;
      buffers += "  buffer %" + name + " : " + dtype + shape + strides;
      kernels += "        %" + name + " = " + draw + " : " + dtype + "\n";
      kernels += "        store %" + name + "[" + std::to_string(kPoints) + "*i0 + i1], %" + name + "\n";
    };
    for (size_t d = 0; d < state_draws; ++d)
      out(dtypes[d], std::string("random ") + kinds[d] + " %i state %s, %o seed " + std::to_string(42 + c));
    for (uint64_t seed : kSeeds) out("i64", "random int %i seed " + std::to_string(seed));
    kernels += "      }\n    }\n  }\n";
  }
  return "loops @draws(%s: i64[" + std::to_string(kStates * 2) + "]) -> (" + outs + ") {\n" + buffers + kernels + "}\n";
}

// rng_states: extreme words first, then pseudo-random ones.
Tensor states() {
  std::vector<int64_t> words = {
      0, 0, -1, -1,         std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), 1,
      0, 0, 1,  0x7FFFFFFF, static_cast<int64_t>(0x80000000ull)};
  for (int64_t i = static_cast<int64_t>(words.size()); i < kStates * 2; ++i)
    words.push_back(static_cast<int64_t>(random_u64(RandomStream{99, 0}, static_cast<uint64_t>(i))));
  return Tensor::from_ints(words, {kStates * 2}, DType::I64);
}

uint64_t bits_of(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::F64: {
      double v = t.data<double>()[i];
      uint64_t u;
      std::memcpy(&u, &v, 8);
      return u;
    }
    case DType::F32: {
      float v = t.data<float>()[i];
      uint32_t u;
      std::memcpy(&u, &v, 4);
      return u;
    }
    case DType::F16:
    case DType::BF16: return reinterpret_cast<const uint16_t*>(t.data_bytes())[i];
    default: return static_cast<uint64_t>(t.item_int(i));
  }
}

TEST(CppRandom, DrawsMatchCoreRandomOverKeysAndCounters) {
  auto p = parse_loops(program_text());
  ASSERT_TRUE(p) << p.error().to_string();
  auto c = CompiledProgram::compile(*p, test_compile_options(1));
  ASSERT_TRUE(c) << c.error().to_string();
  const Tensor s = states();
  auto out = c->run({&s, 1});
  ASSERT_TRUE(out) << out.error().to_string();
  auto evaluated = eval_loops(*p, {&s, 1});
  ASSERT_TRUE(evaluated) << evaluated.error().to_string();

  const size_t per_family = 7 + std::size(kSeeds);
  double worst_normal = 0;
  int64_t differing_normals = 0;
  for (size_t f = 0; f < std::size(kCounters); ++f) {
    const uint64_t node_seed = 42 + f;
    for (int64_t row = 0; row < kStates; ++row) {
      const RandomStream st = stream_from_state(static_cast<uint64_t>(s.item_int(2 * row)),
                                                static_cast<uint64_t>(s.item_int(2 * row + 1)), node_seed);
      for (int64_t j = 0; j < kPoints; ++j) {
        const uint64_t counter = kCounters[f].base + kCounters[f].step * static_cast<uint64_t>(j);
        const int64_t at = row * kPoints + j;
        auto got = [&](size_t k) -> const Tensor& { return (*out)[f * per_family + k]; };
        ASSERT_EQ(static_cast<uint64_t>(got(0).item_int(at)), random_u64(st, counter))
            << "family " << f << " row " << row << " j " << j;
        const DType uniform_dtypes[] = {DType::F64, DType::F32, DType::F16, DType::BF16};
        for (size_t u = 0; u < 4; ++u) {
          Tensor want = Tensor::zeros({1}, uniform_dtypes[u]);
          store_double(want.data_bytes(), uniform_dtypes[u], 0,
                       uniform_double(st, counter, uniform_bits(uniform_dtypes[u])));
          ASSERT_EQ(bits_of(got(1 + u), at), bits_of(want, 0))
              << dtype_name(uniform_dtypes[u]) << " family " << f << " j " << j;
        }
        const double normal = normal_double(st, counter);
        const double diff = std::fabs(got(5).item_double(at) - normal);
        worst_normal = std::max(worst_normal, diff);
        differing_normals += diff != 0;
        ASSERT_LE(std::fabs(got(6).item_double(at) - static_cast<float>(normal)), 1e-12 + 6e-8 * std::fabs(normal));
        for (size_t k = 0; k < std::size(kSeeds); ++k)
          ASSERT_EQ(static_cast<uint64_t>(got(7 + k).item_int(at)), random_u64(RandomStream{kSeeds[k], 0}, counter))
              << "seed " << kSeeds[k] << " family " << f << " j " << j;
      }
    }
  }
  EXPECT_LE(worst_normal, 1e-12);
  std::printf("normal draws: %lld of %lld differ from core/random.h, by at most %g\n",
              static_cast<long long>(differing_normals),
              static_cast<long long>(std::size(kCounters) * kStates * kPoints), worst_normal);
  // The evaluator gives the interpreter's bits everywhere (normal included: it calls core/random.h).
  for (size_t o = 0; o < out->size(); ++o) {
    if (o % per_family == 5 || o % per_family == 6) continue;  // normal: bounded above
    const Tensor& e = (*evaluated)[o];
    for (int64_t i = 0; i < e.numel(); i += 97) ASSERT_EQ(bits_of(e, i), bits_of((*out)[o], i)) << "output " << o;
  }
}

}  // namespace
}  // namespace kiln
