#include "codegen/cpp/cpp_random.h"

#include "core/random.h"
#include "support/check.h"

namespace kiln::cpp {

std::string random_expr(const RandomDraw& d, std::span<const std::string> args, DType out) {
  KILN_CHECK(args.size() == 1 || args.size() == 3) << "random takes a counter and an optional state";
  const std::string seed = std::to_string(d.seed) + "ull";
  const std::string key = args.size() == 3 ? "kiln_random_key(" + args[1] + ", " + seed + ")" : seed;
  const std::string offset = args.size() == 3 ? "(uint64_t)" + args[2] : "0ull";
  const std::string stream = key + ", " + offset + ", " + args[0];
  switch (d.kind) {
    case RandomKind::Uniform:
      if (out == DType::F64) return "kiln_uniform_d(kiln_random_u64(" + stream + "))";
      return "kiln_uniform_f(kiln_random_u64(" + stream + "), " + std::to_string(uniform_bits(out)) + ")";
    case RandomKind::Normal:
      return std::string(out == DType::F64 ? "" : "(float)") + "kiln_random_normal(" + stream + ")";
    case RandomKind::Int:
      if (d.modulus == 0) return "(int64_t)kiln_random_u64(" + stream + ")";
      return "(int64_t)(kiln_random_u64(" + stream + ") % " + std::to_string(d.modulus) + "ull)";
  }
  KILN_UNREACHABLE("unknown random kind");
}

}  // namespace kiln::cpp
