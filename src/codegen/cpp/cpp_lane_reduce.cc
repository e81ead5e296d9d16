#include "codegen/cpp/cpp_lane_reduce.h"

#include <cmath>

#include "codegen/cpp/cpp_scalar.h"

namespace kiln::cpp {

namespace {

const std::string kL = std::to_string(kLanes);

bool is_arg(ReduceKind k) { return k == ReduceKind::Argmax || k == ReduceKind::Argmin; }
bool is_welford(ReduceKind k) { return k == ReduceKind::WelfordMean || k == ReduceKind::WelfordM2; }

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
      std::string s =
          acc + " = " + x + (a.kind == ReduceKind::Max ? " > " : " < ") + acc + " ? " + x + " : " + acc + ";";
      if (fl) s += "\n" + acc_n + " |= std::isnan(" + x + ");";
      return s;
    }
    case ReduceKind::Argmax:
    case ReduceKind::Argmin: {
      const std::string t = a.name + "_take";
      return "const bool " + t + " = " + takes(a.kind, fl, x, xi, acc, acc_i) + ";\n" + acc + " = " + t + " ? " + x +
             " : " + acc + ";\n" + acc_i + " = " + t + " ? " + xi + " : " + acc_i + ";";
    }
    case ReduceKind::WelfordMean:
    case ReduceKind::WelfordM2: break;  // welford_update
  }
  return "";
}

// Welford's step for value x: the sum `s` grows by x (the mean is the sum over the count, an
// infinity or NaN propagating as in a sum); the running mean `m`, which only serves m2, moves
// by (x - m) * r, with r = 1/count after x (the lanes' count is shared, so r is computed once
// per group), and `q` (m2) grows by (x - m_old) * (x - m_new).
std::string welford_update(const LaneAccumulator& a, const std::string& s, const std::string& m, const std::string& q,
                           const std::string& r) {
  const std::string x = "(" + a.type + ")" + a.value, d = a.name + "_d";
  return s + " += " + x + ";\nconst " + a.type + " " + d + " = " + x + " - " + m + ";\n" + m + " += " + d + " * " + r +
         ";\n" + q + " += " + d + " * (" + x + " - " + m + ");";
}

bool has_nan_flag(const LaneAccumulator& a) {
  return is_floating(a.source) && (a.kind == ReduceKind::Max || a.kind == ReduceKind::Min);
}

// A Welford result `acc` (a double) as the value of a reduce op of dtype `out`: held in float or
// double without rounding to `out` (values round only at cast and store, as in the evaluator).
std::string welford_value(const std::string& acc, DType out) {
  if (!is_floating(out)) return convert_value(acc, DType::F64, out);
  return value_type(out) == "double" ? acc : "(float)" + acc;
}

}  // namespace

bool uses_lanes(const LoopKernel& k) {
  if (k.kind != KernelKind::Reduction || k.reduce_op < 0) return false;
  const size_t red = static_cast<size_t>(k.reduce_op);
  return reduce_ops_end(k) != red + 1 || !is_plain_fold(k.body[red].reduce);
}

std::vector<LaneAccumulator> lane_accumulators(const LoopKernel& k) {
  std::vector<LaneAccumulator> out;
  for (size_t r = static_cast<size_t>(k.reduce_op); r < reduce_ops_end(k); ++r) {
    const BodyOp& rop = k.body[r];
    if (is_welford(rop.reduce)) {  // joins the Welford accumulator of the same value
      const std::string value = "v" + std::to_string(rop.args.at(0));
      bool joined = false;
      for (LaneAccumulator& a : out)
        if (!joined && is_welford(a.kind) && a.value == value) {
          a.ops.push_back(static_cast<int>(r));
          joined = true;
        }
      if (joined) continue;
    }
    LaneAccumulator a;
    a.ops = {static_cast<int>(r)};
    a.kind = is_welford(rop.reduce) ? ReduceKind::WelfordMean : rop.reduce;
    a.value = "v" + std::to_string(rop.args.at(0));
    if (is_arg(a.kind)) a.index = "v" + std::to_string(rop.args.at(1));
    a.source = k.body[static_cast<size_t>(rop.args.at(0))].dtype;
    a.name = "a" + std::to_string(out.size());
    const bool fl = is_floating(a.source);
    const bool wraps = !fl && (a.kind == ReduceKind::Sum || a.kind == ReduceKind::Prod);
    // Welford accumulates in double whatever the value's type: in float its running mean
    // rounds at the value's magnitude, and m2 of values with a large mean and a small spread
    // loses digits that the reference's double (and the two-pass form in float) keep.
    // A floating product folds in order, in double, as the evaluator multiplies.
    a.lanes = !(fl && a.kind == ReduceKind::Prod);
    a.type = is_welford(a.kind) || !a.lanes ? "double"
             : fl                           ? std::string(value_type(a.source))
             : wraps                        ? "uint64_t"
                                            : "int64_t";
    a.blocks = sums_in_blocks(a.kind, a.source, reduce_points(k));
    out.push_back(std::move(a));
  }
  return out;
}

std::string LaneAccumulator::declare() const {
  if (is_welford(kind))
    return type + " " + name + "_s[" + kL + "];\n" + type + " " + name + "_m[" + kL + "];\n" + type + " " + name +
           "_q[" + kL + "];\nint64_t " + name + "_n = 0;  // points per lane\n" + type + " " + name + "_ts = 0, " +
           name + "_tm = 0, " + name + "_tq = 0;\nint64_t " + name + "_tn = 0;\n" +
           for_lanes("{ " + name + "_s[l] = 0; " + name + "_m[l] = 0; " + name + "_q[l] = 0; }");
  const std::string id = identity(*this);
  if (!lanes) return type + " " + name + "_t = " + id + ";";
  if (blocks)
    return type + " " + name + "[" + kL + "];\ndouble " + name + "_w[" + kL + "];  // the lanes' totals\ndouble " +
           name + "_t = 0.0;\n" + for_lanes("{ " + name + "[l] = " + id + "; " + name + "_w[l] = 0.0; }");
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

std::string LaneAccumulator::group_start() const {
  if (!is_welford(kind)) return "";
  return "++" + name + "_n;\nconst " + type + " " + name + "_r = (" + type + ")1 / (" + type + ")" + name + "_n;";
}

std::string LaneAccumulator::lane_update() const {
  if (is_welford(kind)) return welford_update(*this, name + "_s[l]", name + "_m[l]", name + "_q[l]", name + "_r");
  if (!lanes) return tail_update();
  return fold(*this, name + "[l]", name + "_i[l]", name + "_n[l]", value, index);
}

std::string LaneAccumulator::block_end() const {
  if (!blocks) return "";
  return for_lanes("{ " + name + "_w[l] += " + name + "[l]; " + name + "[l] = " + identity(*this) + "; }");
}

std::string LaneAccumulator::tail_update() const {
  if (is_welford(kind))
    return "++" + name + "_tn;\n" +
           welford_update(*this, name + "_ts", name + "_tm", name + "_tq",
                          "((" + type + ")1 / (" + type + ")" + name + "_tn)");
  return fold(*this, name + "_t", name + "_ti", name + "_tn", value, index);
}

// The lanes (kLanes of n_ points each) and the tail (tn_ points) combine into m2: the lanes'
// m2 plus n_ times the squared deviations of their running means from the mean of those (lm_),
// then the tail's joining by Chan's formula; and, when `mean`, into the mean of all their
// points: their sums over their count (0 / 0: NaN over no point).
std::string welford_combine(const LaneAccumulator& a, bool mean) {
  const std::string& n = a.name;
  const std::string t = a.type, c = "(" + t + ")";
  return t + " " + n + "_lm = 0, " + n + "_m2 = 0;\n" + "if (" + n + "_n > 0) {\n" + "  " +
         for_lanes(n + "_lm += " + n + "_m[l];") + "\n" + "  " + n + "_lm /= " + c + kL + ";\n" + "  " +
         for_lanes("{ const " + t + " d = " + n + "_m[l] - " + n + "_lm; " + n + "_m2 += " + n + "_q[l] + " + c + n +
                   "_n * d * d; }") +
         "\n" + "}\n" + "const int64_t " + n + "_c = " + kL + " * " + n + "_n + " + n + "_tn;\n" + "if (" + n +
         "_tn > 0) {\n" + "  const " + t + " d = " + n + "_tm - " + n + "_lm, w = " + c + n + "_tn / " + c + n +
         "_c;\n" + "  " + n + "_m2 += " + n + "_tq + d * d * " + c + "(" + kL + " * " + n + "_n) * w;\n" + "}\n" +
         (mean ? t + " " + n + "_mean = " + n + "_ts;\n" + for_lanes(n + "_mean += " + n + "_s[l];") + "\n" + n +
                     "_mean /= " + c + n + "_c;\n"
               : "");
}

std::string LaneAccumulator::combine(const LoopKernel& k) const {
  if (is_welford(kind)) {
    bool mean = false;
    for (int op : ops) mean = mean || k.body[static_cast<size_t>(op)].reduce == ReduceKind::WelfordMean;
    std::string s = welford_combine(*this, mean);
    for (int op : ops) {
      const BodyOp& rop = k.body[static_cast<size_t>(op)];
      const std::string acc = name + (rop.reduce == ReduceKind::WelfordMean ? "_mean" : "_m2");
      s += "const " + std::string(value_type(rop.dtype)) + " v" + std::to_string(op) + " = " +
           welford_value(acc, rop.dtype) + ";\n";
    }
    s.pop_back();
    return s;
  }
  const int op = ops.at(0);
  const DType out = k.body[static_cast<size_t>(op)].dtype;
  std::string s;
  const std::string acc = name + "_t";
  if (lanes) {
    const std::string lane = name + "[l]";
    std::string body;
    if (is_arg(kind)) {
      body = "if (" + name + "_i[l] >= 0 && " +
             takes(kind, is_floating(source), lane, name + "_i[l]", acc, name + "_ti") + ") { " + acc + " = " + lane +
             "; " + name + "_ti = " + name + "_i[l]; }";
    } else if (blocks) {
      body = acc + " += " + name + "_w[l];";
    } else {
      body = "{ " + fold(*this, acc, "", name + "_tn", lane, "") + " }";
      if (has_nan_flag(*this))
        body = "{ " + acc + " = " + lane + (kind == ReduceKind::Max ? " > " : " < ") + acc + " ? " + lane + " : " +
               acc + "; " + name + "_tn |= " + name + "_n[l]; }";
    }
    s += for_lanes(body) + "\n";
  }
  if (has_nan_flag(*this)) s += "if (" + name + "_tn) " + acc + " = " + float_literal(NAN, type == "float") + ";\n";
  std::string value;
  if (is_arg(kind)) {
    value = convert_value(name + "_ti", DType::I64, out);
  } else if (is_floating(source)) {
    const std::string total = blocks ? "double" : type;
    const DType held = total == "float" ? DType::F32 : DType::F64;
    value = is_floating(out) && value_type(out) == total ? acc : convert_value(acc, held, out);
  } else {
    value = convert_value(type == "uint64_t" ? "(int64_t)" + acc : acc, DType::I64, out);
  }
  return s + "const " + std::string(value_type(out)) + " v" + std::to_string(op) + " = " + value + ";";
}

bool uses_welford_chunks(const LoopKernel& k) {
  if (!uses_lanes(k)) return false;
  for (size_t r = static_cast<size_t>(k.reduce_op); r < reduce_ops_end(k); ++r)
    if (!is_welford(k.body[r].reduce)) return false;
  return true;
}

std::vector<WelfordChunks> welford_chunks(const LoopKernel& k) {
  std::vector<WelfordChunks> out;
  for (LaneAccumulator& a : lane_accumulators(k)) {
    WelfordChunks w;
    const std::string& n = a.name;
    // The chunk's values and sum in the value's compute type (integers in double).
    const std::string t = is_floating(a.source) ? std::string(value_type(a.source)) : "double";
    w.declare = "int64_t " + n + "_n = 0;\ndouble " + n + "_sum = 0, " + n + "_m2 = 0;";
    // An infinite or NaN shift would make every shifted value inf - inf or NaN.
    w.shift = n + "_k = std::isfinite((" + t + ")" + a.value + ") ? (" + t + ")" + a.value + " : (" + t + ")0;";
    w.begin = t + " " + n + "_c[" + std::to_string(kReduceBlock) + "];\n" + t + " " + n + "_s = 0;";
    w.fold = n + "_c[j] = (" + t + ")" + a.value + " - " + n + "_k;\n" + n + "_s += " + n + "_c[j];";
    w.clause = "reduction(+:" + n + "_s)";
    std::string result;
    for (int op : a.ops) {
      const BodyOp& rop = k.body[static_cast<size_t>(op)];
      // The mean: the shift plus the sum of the shifted values over the count (0 / 0: NaN over
      // no point).
      const std::string acc = rop.reduce == ReduceKind::WelfordMean
                                  ? "((double)" + n + "_k + " + n + "_sum / (double)" + n + "_n)"
                                  : n + "_m2";
      result += std::string(result.empty() ? "" : "\n") + "const " + std::string(value_type(rop.dtype)) + " v" +
                std::to_string(op) + " = " + welford_value(acc, rop.dtype) + ";";
    }
    w.result = result;
    a.type = t;  // in chunks, the type of the chunk's values and sums
    w.acc = a;
    out.push_back(std::move(w));
  }
  return out;
}

namespace {

// The join of the state (count sn > 0, sum ss, m2 sq) into the running one named `to` (to_n,
// to_sum, to_m2), as a block of statements: the sums add (the means are the sums over the
// counts), and m2 by Chan's formula, which needs the running state's mean (none when empty).
std::string chan_join(const std::string& to, const std::string& sn, const std::string& ss, const std::string& sq) {
  return "{\n"
         "  const int64_t c = " +
         to + "_n + " + sn + ";\n" + "  if (" + to + "_n > 0) {\n" + "    const double d = (double)" + ss +
         " / (double)" + sn + " - " + to + "_sum / (double)" + to + "_n;\n" + "    " + to + "_m2 += d * d * (double)" +
         to + "_n * ((double)" + sn + " / (double)c);\n" + "  }\n" + "  " + to + "_m2 += (double)" + sq + ";\n" + "  " +
         to + "_sum += (double)" + ss + ";\n" + "  " + to + "_n = c;\n" + "}";
}

}  // namespace

std::string WelfordChunks::join(int64_t points) const {
  const std::string& n = acc.name;
  const std::string& t = acc.type;
  const std::string p = std::to_string(points);
  return "const " + t + " " + n + "_cm = " + n + "_s / (" + t + ")" + p + ";\n" + t + " " + n + "_cq = 0;\n" +
         "#pragma omp simd reduction(+:" + n + "_cq)\n" + "for (int64_t j = 0; j < " + p + "; ++j) { const " + t +
         " d = " + n + "_c[j] - " + n + "_cm; " + n + "_cq += d * d; }\n" + chan_join(n, p, n + "_s", n + "_cq");
}

std::string WelfordChunks::total_declare() const {
  const std::string& n = acc.name;
  return "int64_t " + n + "_all_n = 0;\ndouble " + n + "_all_sum = 0, " + n + "_all_m2 = 0;";
}

std::string WelfordChunks::total_join() const {
  const std::string& n = acc.name;
  return "if (" + n + "_n > 0) " + chan_join(n + "_all", n + "_n", n + "_sum", n + "_m2");  // doubles already
}

std::string WelfordChunks::from_total() const {
  const std::string& n = acc.name;
  return "int64_t " + n + "_n = " + n + "_all_n;\ndouble " + n + "_sum = " + n + "_all_sum, " + n + "_m2 = " + n +
         "_all_m2;";
}

}  // namespace kiln::cpp
