#include "codegen/cpp/cpp_reduce.h"

#include <cmath>

#include "codegen/cpp/cpp_scalar.h"
#include "support/check.h"

namespace kiln::cpp {

int64_t reduce_points(const LoopKernel& k) {
  int64_t n = 1;
  for (size_t d = static_cast<size_t>(k.num_outer_loops()); d < k.loops.size(); ++d)
    if (__builtin_mul_overflow(n, k.loops[d], &n)) return INT64_MAX;
  return n;
}

bool sums_in_blocks(ReduceKind kind, DType source, int64_t points) {
  return kind == ReduceKind::Sum && is_floating(source) && points > kReduceBlock;
}

Accumulator accumulator_for(const LoopKernel& k) {
  const BodyOp& rop = k.body[static_cast<size_t>(k.reduce_op)];
  Accumulator a;
  a.kind = rop.reduce;
  a.source = k.body[static_cast<size_t>(rop.args.at(0))].dtype;
  const bool fl = is_floating(a.source);
  const bool single = a.source != DType::F64;
  switch (a.kind) {
    case ReduceKind::Sum:
      a.type = fl ? std::string(value_type(a.source)) : "uint64_t";
      a.init = fl ? float_literal(0.0, single) : "0";
      if (fl) a.total = "double";
      a.blocks = sums_in_blocks(a.kind, a.source, reduce_points(k));
      a.clause = a.blocks ? "reduction(+:acc_l[:" + std::to_string(kLanes) + "])" : "reduction(+:acc)";
      break;
    case ReduceKind::Prod:  // floating: in order, in double, as the evaluator multiplies
      a.type = fl ? "double" : "uint64_t";
      a.init = fl ? float_literal(1.0, false) : "1";
      if (!fl) a.clause = "reduction(*:acc)";  // integer products are exact in any order
      break;
    case ReduceKind::Max:
    case ReduceKind::Min: {
      const bool max = a.kind == ReduceKind::Max;
      a.type = fl ? std::string(value_type(a.source)) : "int64_t";
      a.init = fl ? float_literal(max ? -INFINITY : INFINITY, single) : (max ? "INT64_MIN" : "INT64_MAX");
      a.nan_flag = fl;
      a.clause = std::string("reduction(") + (max ? "max" : "min") + ":acc)" + (fl ? " reduction(|:acc_nan)" : "");
      break;
    }
    case ReduceKind::Argmax:
    case ReduceKind::Argmin:
    case ReduceKind::WelfordMean:
    case ReduceKind::WelfordM2:
      KILN_UNREACHABLE("kernel @" + k.name + ": argmax, argmin and welford are lane reductions (cpp_lane_reduce.h)");
  }
  return a;
}

std::string Accumulator::declare() const {
  const std::string lanes = std::to_string(kLanes);
  if (blocks)
    return total + " acc_l[" + lanes + "];  // the lanes' totals\nfor (int64_t l = 0; l < " + lanes +
           "; ++l) acc_l[l] = " + float_literal(0.0, false) + ";";
  const std::string s = type + " acc = " + init + ";";
  return nan_flag ? s + "\nint acc_nan = 0;" : s;
}

std::string Accumulator::part_declare() const { return type + " part = " + init + ";"; }
std::string Accumulator::part_join() const { return "acc_l[l] += part;"; }
// Pairwise (a vector add per halving): GCC keeps a sequential sum of the lanes in order, 16
// dependent additions per row, which cost a sum of exp over rows of 1024 a third of its time.
std::string Accumulator::lanes_total() const {
  return "for (int64_t h = " + std::to_string(kLanes / 2) +
         "; h > 0; h /= 2)\n  for (int64_t l = 0; l < h; ++l) acc_l[l] += acc_l[l + h];\nconst " + total +
         " acc = acc_l[0];";
}

std::string Accumulator::update(const std::string& v, const std::string& into) const {
  switch (kind) {
    case ReduceKind::Sum: return into + (type == "uint64_t" ? " += (uint64_t)" : " += ") + v + ";";
    case ReduceKind::Prod: return into + (type == "uint64_t" ? " *= (uint64_t)" : " *= ") + v + ";";
    case ReduceKind::Max:
    case ReduceKind::Min: {
      const std::string cmp = kind == ReduceKind::Max ? " > " : " < ";
      std::string s = into + " = " + v + cmp + into + " ? " + v + " : " + into + ";";
      if (nan_flag) s += "\n" + into + "_nan |= std::isnan(" + v + ");";
      return s;
    }
    case ReduceKind::Argmax:
    case ReduceKind::Argmin:
    case ReduceKind::WelfordMean:
    case ReduceKind::WelfordM2: break;
  }
  return "";
}

std::string Accumulator::result(DType out) const {
  if (is_floating(source)) {
    const std::string held = blocks ? total : type;
    if (!is_floating(out)) return convert_value("acc", held == "double" ? DType::F64 : DType::F32, out);
    return value_type(out) == held ? "acc" : "(" + std::string(value_type(out)) + ")acc";
  }
  const std::string v = type == "uint64_t" ? "(int64_t)acc" : "acc";
  if (is_floating(out)) return convert_value(v, DType::I64, out);
  return out == DType::Bool ? "(" + v + " != 0)" : v;
}

}  // namespace kiln::cpp
