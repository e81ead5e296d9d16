#include "codegen/cuda/cuda_reduce.h"

#include <cmath>

#include "codegen/cpp/cpp_scalar.h"
#include "support/check.h"

namespace kiln::cuda {

namespace {

bool sums(ReduceKind k) { return k == ReduceKind::Sum || k == ReduceKind::Prod || k == ReduceKind::WelfordMean; }

// `e` of dtype `held` (as its value type) as a value of dtype `out`; floating values stay
// unrounded (an f16 result in float) until a cast or store, as the C++ printer leaves them.
std::string converted(const std::string& e, DType held, DType out) {
  if (is_floating(held) && is_floating(out))
    return cpp::value_type(out) == cpp::value_type(held) ? e : "(" + std::string(cpp::value_type(out)) + ")" + e;
  return cpp::convert_value(e, held, out);
}

}  // namespace

bool has_welford_m2(const LoopKernel& part) {
  if (part.kind != KernelKind::Reduction) return false;
  for (size_t r = static_cast<size_t>(part.reduce_op); r < reduce_ops_end(part); ++r)
    if (part.body[r].reduce == ReduceKind::WelfordM2) return true;
  return false;
}

BlockAccumulator::BlockAccumulator(const BodyOp& rop, DType value, std::string name, int64_t count)
    : kind_(rop.reduce), name_(std::move(name)), count_(count) {
  const bool fl = is_floating(value);
  if (kind_ == ReduceKind::WelfordM2 || (sums(kind_) && fl)) {
    type_ = "double";
    held_ = DType::F64;
  } else if (sums(kind_)) {
    type_ = "uint64_t";  // wrapping, as the evaluator's integer sums and products
    held_ = DType::I64;
  } else {
    held_ = fl ? value : DType::I64;
    type_ = std::string(cpp::value_type(held_));
  }
}

std::string BlockAccumulator::slot(const std::string& prefix, const std::string& field, const std::string& at) const {
  return prefix + name_ + field + (at.empty() ? "" : "[" + at + "]");
}

std::vector<BlockAccumulator::Field> BlockAccumulator::fields() const {
  switch (kind_) {
    case ReduceKind::Argmax:
    case ReduceKind::Argmin: return {{type_, ""}, {"int64_t", "_i"}};
    case ReduceKind::WelfordM2: return {{"double", "_n"}, {"double", "_m"}, {"double", ""}};
    default: return {{type_, ""}};
  }
}

std::string BlockAccumulator::identity() const {
  const bool single = type_ == "float";
  switch (kind_) {
    case ReduceKind::Sum:
    case ReduceKind::WelfordMean: return type_ == "double" ? "0.0" : "0";
    case ReduceKind::Prod: return type_ == "double" ? "1.0" : "1";
    case ReduceKind::Max: return is_floating(held_) ? cpp::float_literal(-INFINITY, single) : "INT64_MIN";
    case ReduceKind::Min: return is_floating(held_) ? cpp::float_literal(INFINITY, single) : "INT64_MAX";
    default: break;
  }
  KILN_UNREACHABLE("a state of several fields has no single identity");
}

std::string BlockAccumulator::declare() const {
  switch (kind_) {
    case ReduceKind::Argmax:
    case ReduceKind::Argmin: return type_ + " " + name_ + " = 0;\nint64_t " + name_ + "_i = -1;";
    case ReduceKind::WelfordM2: return "double " + name_ + "_n = 0.0, " + name_ + "_m = 0.0, " + name_ + " = 0.0;";
    default: return type_ + " " + name_ + " = " + identity() + ";";
  }
}

std::string BlockAccumulator::start_at(const std::string& prefix, const std::string& at) const {
  return slot(prefix, "", at) + " = " + identity() + ";";
}

std::string BlockAccumulator::fold(const std::string& state, const std::string& x) const {
  switch (kind_) {
    case ReduceKind::Sum:
    case ReduceKind::WelfordMean: return state + " += " + x + ";";
    case ReduceKind::Prod: return state + " *= " + x + ";";
    case ReduceKind::Max: return state + " = kiln_max_nan(" + state + ", " + x + ");";
    case ReduceKind::Min: return state + " = kiln_min_nan(" + state + ", " + x + ");";
    default: break;
  }
  KILN_UNREACHABLE("a state of several fields folds through update or combine");
}

std::string BlockAccumulator::update_at(const std::string& prefix, const std::string& at, const std::string& v) const {
  return fold(slot(prefix, "", at), "(" + type_ + ")" + v);
}

std::string BlockAccumulator::update(const std::string& v, const std::string& ix) const {
  const std::string x = "(" + type_ + ")" + v;
  switch (kind_) {
    case ReduceKind::Sum:
    case ReduceKind::WelfordMean:
    case ReduceKind::Prod:
    case ReduceKind::Max:
    case ReduceKind::Min: return fold(name_, x);
    case ReduceKind::Argmax:
    case ReduceKind::Argmin:
      return "if (kiln_arg_before(" + x + ", (int64_t)" + ix + ", " + name_ + ", " + name_ + "_i, " +
             (kind_ == ReduceKind::Argmax ? "true" : "false") + ")) {\n  " + name_ + " = " + x + ";\n  " + name_ +
             "_i = (int64_t)" + ix + ";\n}";
    case ReduceKind::WelfordM2:
      // d * rcp(n), within an ulp of d / n: a double division's slow path is a call, whose
      // saved registers ptxas counts as spills inside the fold's loop.
      return "{\n  const double x = " + x + ";\n  " + name_ + "_n += 1.0;\n  const double d = x - " + name_ +
             "_m;\n  " + name_ + "_m += d * __drcp_rn(" + name_ + "_n);\n  " + name_ + " += d * (x - " + name_ +
             "_m);\n}";
  }
  KILN_UNREACHABLE("bad reduce kind");
}

std::string BlockAccumulator::save(const std::string& prefix, const std::string& at) const {
  std::string s;
  for (const Field& f : fields())
    s += (s.empty() ? "" : "\n") + slot(prefix, f.suffix, at) + " = " + name_ + f.suffix + ";";
  return s;
}

std::string BlockAccumulator::copy(const std::string& prefix, const std::string& at, const std::string& from_prefix,
                                   const std::string& from) const {
  std::string s;
  for (const Field& f : fields())
    s += (s.empty() ? "" : "\n") + slot(prefix, f.suffix, at) + " = " + slot(from_prefix, f.suffix, from) + ";";
  return s;
}

template <typename Into, typename From>
std::string BlockAccumulator::join(const Into& into, const From& from) const {
  const std::string mine = into(""), other = from("");
  switch (kind_) {
    case ReduceKind::Sum:
    case ReduceKind::WelfordMean:
    case ReduceKind::Prod:
    case ReduceKind::Max:
    case ReduceKind::Min: return fold(mine, other);
    case ReduceKind::Argmax:
    case ReduceKind::Argmin: {
      const std::string mi = into("_i"), oi = from("_i");
      return "if (kiln_arg_before(" + other + ", " + oi + ", " + mine + ", " + mi + ", " +
             (kind_ == ReduceKind::Argmax ? "true" : "false") + ")) {\n  " + mine + " = " + other + ";\n  " + mi +
             " = " + oi + ";\n}";
    }
    case ReduceKind::WelfordM2: {
      // Chan et al.'s join of two (count, mean, m2) states.
      const std::string na = into("_n"), nb = from("_n"), ma = into("_m"), mb = from("_m");
      return "if (" + nb + " > 0.0) {\n  const double n = " + na + " + " + nb + ", d = " + mb + " - " + ma + ";\n  " +
             mine + " += " + other + " + d * d * (" + na + " * " + nb + " / n);\n  " + ma + " += d * (" + nb +
             " / n);\n  " + na + " = n;\n}";
    }
  }
  KILN_UNREACHABLE("bad reduce kind");
}

std::string BlockAccumulator::combine(const std::string& prefix, const std::string& into,
                                      const std::string& from) const {
  return join([&](const std::string& f) { return slot(prefix, f, into); },
              [&](const std::string& f) { return slot(prefix, f, from); });
}

std::string BlockAccumulator::join_from(const std::string& prefix, const std::string& at) const {
  return join([&](const std::string& f) { return slot("", f, ""); },
              [&](const std::string& f) { return slot(prefix, f, at); });
}

std::string BlockAccumulator::shuffle_join(const std::string& offset) const {
  std::string s = "{";
  for (const Field& f : fields())
    s += "\n  const " + f.type + " " + slot("sh_", f.suffix, "") + " = __shfl_down_sync(0xffffffffu, " +
         slot("", f.suffix, "") + ", " + offset + ");";
  const std::string joined = join([&](const std::string& f) { return slot("", f, ""); },
                                  [&](const std::string& f) { return slot("sh_", f, ""); });
  size_t start = 0;
  while (start <= joined.size()) {  // indented one level, line by line
    const size_t end = joined.find('\n', start);
    s += "\n  " + joined.substr(start, end - start);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return s + "\n}";
}

std::string BlockAccumulator::broadcast_lane_zero() const {
  std::string s;
  for (const Field& f : fields())
    s += (s.empty() ? "" : "\n") + slot("", f.suffix, "") + " = __shfl_sync(0xffffffffu, " + slot("", f.suffix, "") +
         ", 0);";
  return s;
}

std::string BlockAccumulator::restore(const std::string& prefix, const std::string& at) const {
  return copy("", "", prefix, at);
}

std::string BlockAccumulator::result(const std::string& prefix, const std::string& at, DType out) const {
  const std::string total = slot(prefix, "", at);
  switch (kind_) {
    case ReduceKind::Argmax:
    case ReduceKind::Argmin: return converted(slot(prefix, "_i", at), DType::I64, out);
    case ReduceKind::WelfordMean:
      return converted("(" + total + " / " + std::to_string(count_) + ".0)", DType::F64, out);
    default: break;
  }
  if (type_ == "uint64_t") return converted("(int64_t)" + total, DType::I64, out);
  if (!is_floating(held_) && out == DType::Bool) return "(" + total + " != 0)";
  return converted(total, held_, out);
}

}  // namespace kiln::cuda
