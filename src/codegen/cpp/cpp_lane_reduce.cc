#include "codegen/cpp/cpp_lane_reduce.h"

#include <cmath>

#include "codegen/cpp/cpp_scalar.h"
#include "support/check.h"

namespace kiln::cpp {

namespace {

const std::string kL = std::to_string(kLanes);

bool is_arg(ReduceKind k) { return k == ReduceKind::Argmax || k == ReduceKind::Argmin; }

// `for (int64_t l = 0; l < 16; ++l) body`
std::string for_lanes(const std::string& body) { return "for (int64_t l = 0; l < " + kL + "; ++l) " + body; }

// Whether the point (v, i) replaces the best point (b, bi) of an argmax (argmin): bi < 0 (none
// yet), a NaN over a number, a larger (smaller) value, or an equal value (NaN included) at a
// smaller index.
std::string takes(ReduceKind kind, bool floating, const std::string& v, const std::string& i, const std::string& b,
                  const std::string& bi) {
  const std::string better = "(" + v + (kind == ReduceKind::Argmax ? " > " : " < ") + b + " || (" + v + " == " + b +
                             " && " + i + " < " + bi + "))";
  if (!floating) return "(" + bi + " < 0 || " + better + ")";
  return "(" + bi + " < 0 || (" + v + " != " + v + " ? (" + b + " == " + b + " || " + i + " < " + bi + ") : " + better +
         "))";
}

std::string identity(const LaneAccumulator& a) {
  const bool fl = is_floating(a.source), single = a.type == "float";
  switch (a.kind) {
    case ReduceKind::Prod: return fl ? float_literal(1.0, single) : "1";
    case ReduceKind::Max: return fl ? float_literal(-INFINITY, single) : "INT64_MIN";
    case ReduceKind::Min: return fl ? float_literal(INFINITY, single) : "INT64_MAX";
    default: return fl ? float_literal(0.0, single) : "0";
  }
}

// The fold of value x (and index xi) into accumulator `acc` (and `acc_i`, NaN flag `acc_n`).
std::string fold(const LaneAccumulator& a, const std::string& acc, const std::string& acc_i, const std::string& acc_n,
                 const std::string& x, const std::string& xi) {
  const bool fl = is_floating(a.source);
  const std::string wide = a.type == "uint64_t" ? "(uint64_t)" + x : x;
  switch (a.kind) {
    case ReduceKind::Sum: return acc + " += " + wide + ";";
    case ReduceKind::Prod: return acc + " *= " + wide + ";";
    case ReduceKind::Max:
    case ReduceKind::Min: {
      std::string s = acc + " = " + x + (a.kind == ReduceKind::Max ? " > " : " < ") + acc + " ? " + x + " : " + acc + ";";
      if (fl) s += "\n" + acc_n + " |= std::isnan(" + x + ");";
      return s;
    }
    case ReduceKind::Argmax:
    case ReduceKind::Argmin: {
      const std::string t = a.name + "_take";
      return "const bool " + t + " = " + takes(a.kind, fl, x, xi, acc, acc_i) + ";\n" + acc + " = " + t + " ? " + x +
             " : " + acc + ";\n" + acc_i + " = " + t + " ? " + xi + " : " + acc_i + ";";
    }
  }
  return "";
}

bool has_nan_flag(const LaneAccumulator& a) {
  return is_floating(a.source) && (a.kind == ReduceKind::Max || a.kind == ReduceKind::Min);
}

}  // namespace

size_t reduce_ops_end(const LoopKernel& k) {
  size_t end = static_cast<size_t>(k.reduce_op);
  while (end < k.body.size() && k.body[end].kind == BodyOp::Kind::Reduce) ++end;
  return end;
}

bool uses_lanes(const LoopKernel& k) {
  if (k.kind != KernelKind::Reduction || k.reduce_op < 0) return false;
  const size_t red = static_cast<size_t>(k.reduce_op);
  return reduce_ops_end(k) != red + 1 || static_cast<int>(k.body[red].reduce) > static_cast<int>(ReduceKind::Min);
}

std::vector<LaneAccumulator> lane_accumulators(const LoopKernel& k) {
  std::vector<LaneAccumulator> out;
  for (size_t r = static_cast<size_t>(k.reduce_op); r < reduce_ops_end(k); ++r) {
    const BodyOp& rop = k.body[r];
    LaneAccumulator a;
    a.op = static_cast<int>(r);
    a.kind = rop.reduce;
    a.value = "v" + std::to_string(rop.args.at(0));
    if (is_arg(a.kind)) a.index = "v" + std::to_string(rop.args.at(1));
    a.source = k.body[static_cast<size_t>(rop.args.at(0))].dtype;
    a.name = "a" + std::to_string(out.size());
    const bool fl = is_floating(a.source);
    const bool wraps = !fl && (a.kind == ReduceKind::Sum || a.kind == ReduceKind::Prod);
    a.type = fl ? std::string(value_type(a.source)) : wraps ? "uint64_t" : "int64_t";
    a.lanes = !(fl && a.kind == ReduceKind::Prod);
    out.push_back(std::move(a));
  }
  return out;
}

std::string LaneAccumulator::declare() const {
  const std::string id = identity(*this);
  if (!lanes) return type + " " + name + "_t = " + id + ";";
  std::string s = type + " " + name + "[" + kL + "];\n" + type + " " + name + "_t = " + id + ";";
  std::string init = name + "[l] = " + id + ";";
  if (has_nan_flag(*this)) {
    s += "\nint " + name + "_n[" + kL + "];\nint " + name + "_tn = 0;";
    init += " " + name + "_n[l] = 0;";
  }
  if (is_arg(kind)) {
    s += "\nint64_t " + name + "_i[" + kL + "];\nint64_t " + name + "_ti = -1;";
    init += " " + name + "_i[l] = -1;";
  }
  return s + "\n" + for_lanes("{ " + init + " }");
}

std::string LaneAccumulator::lane_update() const {
  if (!lanes) return tail_update();
  return fold(*this, name + "[l]", name + "_i[l]", name + "_n[l]", value, index);
}

std::string LaneAccumulator::tail_update() const {
  return fold(*this, name + "_t", name + "_ti", name + "_tn", value, index);
}

std::string LaneAccumulator::combine(DType out) const {
  std::string s;
  const std::string acc = name + "_t";
  if (lanes) {
    const std::string lane = name + "[l]";
    std::string body;
    if (is_arg(kind)) {
      body = "if (" + name + "_i[l] >= 0 && " + takes(kind, is_floating(source), lane, name + "_i[l]", acc, name + "_ti") +
             ") { " + acc + " = " + lane + "; " + name + "_ti = " + name + "_i[l]; }";
    } else {
      body = "{ " + fold(*this, acc, "", name + "_tn", lane, "") + " }";
      if (has_nan_flag(*this)) body = "{ " + acc + " = " + lane + (kind == ReduceKind::Max ? " > " : " < ") + acc +
                                      " ? " + lane + " : " + acc + "; " + name + "_tn |= " + name + "_n[l]; }";
    }
    s += for_lanes(body) + "\n";
  }
  if (has_nan_flag(*this)) s += "if (" + name + "_tn) " + acc + " = " + float_literal(NAN, type == "float") + ";\n";
  std::string value;
  if (is_arg(kind)) {
    value = convert_value(name + "_ti", DType::I64, out);
  } else if (is_floating(source)) {
    const DType held = type == "float" ? DType::F32 : DType::F64;
    value = is_floating(out) && value_type(out) == type ? acc : convert_value(acc, held, out);
  } else {
    value = convert_value(type == "uint64_t" ? "(int64_t)" + acc : acc, DType::I64, out);
  }
  return s + "const " + std::string(value_type(out)) + " v" + std::to_string(op) + " = " + value + ";";
}

}  // namespace kiln::cpp
