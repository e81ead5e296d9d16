#include "codegen/cpp/cpp_reduce.h"

#include <cmath>

#include "codegen/cpp/cpp_scalar.h"
#include "support/check.h"

namespace kiln::cpp {

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
      a.clause = "reduction(+:acc)";
      break;
    case ReduceKind::Prod:
      a.type = fl ? std::string(value_type(a.source)) : "uint64_t";
      a.init = fl ? float_literal(1.0, single) : "1";
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

std::string Accumulator::update(const std::string& v) const {
  switch (kind) {
    case ReduceKind::Sum: return type == "uint64_t" ? "acc += (uint64_t)" + v + ";" : "acc += " + v + ";";
    case ReduceKind::Prod: return type == "uint64_t" ? "acc *= (uint64_t)" + v + ";" : "acc *= " + v + ";";
    case ReduceKind::Max:
    case ReduceKind::Min: {
      const std::string cmp = kind == ReduceKind::Max ? " > " : " < ";
      std::string s = "acc = " + v + cmp + "acc ? " + v + " : acc;";
      if (nan_flag) s += "\nacc_nan |= std::isnan(" + v + ");";
      return s;
    }
    case ReduceKind::Argmax:
    case ReduceKind::Argmin:
    case ReduceKind::WelfordMean:
    case ReduceKind::WelfordM2:
      break;
  }
  return "";
}

std::string Accumulator::result(DType out) const {
  if (is_floating(source)) {
    const DType held = source == DType::F64 ? DType::F64 : DType::F32;
    if (!is_floating(out)) return convert_value("acc", held, out);
    return value_type(out) == type ? "acc" : "(" + std::string(value_type(out)) + ")acc";
  }
  const std::string v = type == "uint64_t" ? "(int64_t)acc" : "acc";
  if (is_floating(out)) return convert_value(v, DType::I64, out);
  return out == DType::Bool ? "(" + v + " != 0)" : v;
}

}  // namespace kiln::cpp
