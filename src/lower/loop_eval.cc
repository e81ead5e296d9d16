#include "lower/loop_eval.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include "core/element.h"
#include "lower/loop_control.h"
#include "lower/loop_run.h"

namespace kiln {

namespace {

// A body value: double for floating dtypes, int64 otherwise (bool is 0 or 1).
struct Val {
  double f = 0;
  int64_t i = 0;
};

double as_f(const Val& v, DType t) { return is_floating(t) ? v.f : static_cast<double>(v.i); }

// Converts v of dtype `from` to dtype `to` exactly as a store and a load would.
Val convert(const Val& v, DType from, DType to) {
  alignas(8) std::byte scratch[8] = {};
  if (is_floating(from)) {
    store_double(scratch, to, 0, v.f);
  } else {
    store_int(scratch, to, 0, v.i);
  }
  Val out;
  if (is_floating(to)) {
    out.f = load_double(scratch, to, 0);
  } else {
    out.i = load_int(scratch, to, 0);
  }
  return out;
}

int64_t wrap_add(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
int64_t wrap_sub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
int64_t wrap_mul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

double float_op(OpKind op, const double* a) {
  switch (op) {
    case OpKind::Neg: return -a[0];
    case OpKind::Abs: return std::fabs(a[0]);
    case OpKind::Exp: return std::exp(a[0]);
    case OpKind::Log: return std::log(a[0]);
    case OpKind::Sqrt: return std::sqrt(a[0]);
    case OpKind::Rsqrt: return 1.0 / std::sqrt(a[0]);
    case OpKind::Reciprocal: return 1.0 / a[0];
    case OpKind::Sin: return std::sin(a[0]);
    case OpKind::Cos: return std::cos(a[0]);
    case OpKind::Tanh: return std::tanh(a[0]);
    case OpKind::Sigmoid: return 1.0 / (1.0 + std::exp(-a[0]));
    case OpKind::Relu: return std::isnan(a[0]) || a[0] > 0 ? a[0] : 0.0;
    case OpKind::Add: return a[0] + a[1];
    case OpKind::Sub: return a[0] - a[1];
    case OpKind::Mul: return a[0] * a[1];
    case OpKind::Div: return a[0] / a[1];
    case OpKind::Pow: return std::pow(a[0], a[1]);
    case OpKind::Maximum: return std::isnan(a[0]) || std::isnan(a[1]) ? a[0] + a[1] : std::max(a[0], a[1]);
    case OpKind::Minimum: return std::isnan(a[0]) || std::isnan(a[1]) ? a[0] + a[1] : std::min(a[0], a[1]);
    default: return 0;
  }
}

int64_t int_op(OpKind op, const int64_t* a) {
  switch (op) {
    case OpKind::Neg: return wrap_sub(0, a[0]);
    case OpKind::Abs: return a[0] < 0 ? wrap_sub(0, a[0]) : a[0];
    case OpKind::Relu: return a[0] > 0 ? a[0] : 0;
    case OpKind::Add: return wrap_add(a[0], a[1]);
    case OpKind::Sub: return wrap_sub(a[0], a[1]);
    case OpKind::Mul: return wrap_mul(a[0], a[1]);
    case OpKind::Maximum: return std::max(a[0], a[1]);
    case OpKind::Minimum: return std::min(a[0], a[1]);
    default: return 0;
  }
}

// A comparison in the computation type: double, or int64 for integers (exact past 2^53).
template <typename T>
bool compare(OpKind op, T a, T b) {
  switch (op) {
    case OpKind::Eq: return a == b;
    case OpKind::Ne: return a != b;
    case OpKind::Lt: return a < b;
    case OpKind::Le: return a <= b;
    case OpKind::Gt: return a > b;
    case OpKind::Ge: return a >= b;
    default: return false;
  }
}

bool truthy(const Val& v, DType t) { return is_floating(t) ? v.f != 0 : v.i != 0; }

class Evaluator {
 public:
  explicit Evaluator(const LoopProgram& p) : p_(p) {}

  Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) {
    KILN_TRY(check_loop_inputs(p_, inputs));
    storage_.resize(p_.buffers.size());
    for (size_t b = 0; b < p_.buffers.size(); ++b) {
      const Buffer& buf = p_.buffers[b];
      storage_[b] = Tensor::zeros({buf.storage_size()}, buf.dtype);
    }
    for (size_t i = 0; i < inputs.size(); ++i) buffer_view(p_.inputs[i]).copy_from(inputs[i]);
    KILN_TRY(run_kernels(p_.kernels));
    std::set<int> written;  // inputs a kernel wrote are mutated in place (loop_ir.h)
    for (const LoopKernel& k : p_.kernels)
      for (int b : kernel_buffers_written(k)) written.insert(b);
    for (size_t i = 0; i < inputs.size(); ++i)
      if (written.count(p_.inputs[i])) Tensor(inputs[i]).copy_from(buffer_view(p_.inputs[i]));
    std::vector<Tensor> out;
    for (int b : p_.outputs) out.push_back(buffer_view(b).clone());
    return out;
  }

 private:
  const Buffer& buf(int b) const { return p_.buffers[static_cast<size_t>(b)]; }

  Status run_kernels(const std::vector<LoopKernel>& kernels) {
    for (const LoopKernel& k : kernels) {
      Status s = k.kind == KernelKind::Extern ? run_extern_kernel(p_, k, storage_)
                 : is_control_kernel(k)       ? run_control(k)
                                              : run_loops(k);
      if (!s) return s.error().add_context("in kernel @" + k.name + " of loops @" + p_.name);
    }
    return Status::ok();
  }

  // Element 0 of a one-element bool buffer (check_control_kernel has checked it).
  bool predicate(int b) const { return load_int(storage_[static_cast<size_t>(b)].data_bytes(), DType::Bool, 0) != 0; }

  // cond and while (loop_control.h); a while exchanges its carried and next buffers' storage.
  Status run_control(const LoopKernel& k) {
    KILN_TRY(check_control_kernel(p_, k));
    if (k.kind == KernelKind::Cond) return run_kernels(k.regions.at(predicate(k.predicate) ? 0 : 1));
    while (true) {
      KILN_TRY(run_kernels(k.regions.at(0)));
      if (!predicate(k.predicate)) return Status::ok();
      KILN_TRY(run_kernels(k.regions.at(1)));
      for (size_t i = 0; i < k.carried.size(); ++i)
        std::swap(storage_[static_cast<size_t>(k.carried[i])], storage_[static_cast<size_t>(k.next.at(i))]);
    }
  }

  Tensor buffer_view(int b) const {
    return storage_[static_cast<size_t>(b)].as_strided(buf(b).sizes, buf(b).strides, 0);
  }

  Expected<int64_t> offset_of(const BodyOp& op) const {
    std::optional<int64_t> at = op.index.evaluate(vars_);
    const int64_t n = storage_[static_cast<size_t>(op.buffer)].numel();
    if (!at || *at < 0 || *at >= n)
      return make_error(op.kind == BodyOp::Kind::Load ? "load" : "store", " %", buf(op.buffer).name, "[",
                        op.index.to_string(), "] is outside the buffer (", at ? std::to_string(*at) : "?", " not in [0, ",
                        n, ")) at ", vars_text());
    return *at;
  }

  std::string vars_text() const {
    std::string s;
    for (size_t i = 0; i < vars_.size(); ++i) s += (i ? ", i" : "i") + std::to_string(i) + "=" + std::to_string(vars_[i]);
    return s.empty() ? "the kernel's only point" : s;
  }

  DType dt(const LoopKernel& k, int i) const { return k.body[static_cast<size_t>(i)].dtype; }

  Status eval_op(const LoopKernel& k, size_t i) {
    const BodyOp& op = k.body[i];
    Val& out = vals_[i];
    auto arg = [&](size_t a) -> const Val& { return vals_[static_cast<size_t>(op.args[a])]; };
    auto arg_dt = [&](size_t a) { return dt(k, op.args[a]); };
    switch (op.kind) {
      case BodyOp::Kind::Load: {
        KILN_ASSIGN_OR_RETURN(int64_t at, offset_of(op));
        const Tensor& s = storage_[static_cast<size_t>(op.buffer)];
        if (is_floating(op.dtype)) out.f = load_double(s.data_bytes(), s.dtype(), at);
        else out.i = load_int(s.data_bytes(), s.dtype(), at);
        return Status::ok();
      }
      case BodyOp::Kind::Store: {
        KILN_ASSIGN_OR_RETURN(int64_t at, offset_of(op));
        const Tensor& s = storage_[static_cast<size_t>(op.buffer)];
        if (is_floating(arg_dt(0))) store_double(s.data_bytes(), s.dtype(), at, arg(0).f);
        else store_int(s.data_bytes(), s.dtype(), at, arg(0).i);
        return Status::ok();
      }
      case BodyOp::Kind::Const: {
        Val v;
        if (op.value.is_float()) {
          v.f = op.value.to_double();
          out = convert(v, DType::F64, op.dtype);
        } else {
          v.i = op.value.to_int();
          out = convert(v, DType::I64, op.dtype);
        }
        return Status::ok();
      }
      case BodyOp::Kind::Cast:
        out = convert(arg(0), arg_dt(0), op.dtype);
        return Status::ok();
      case BodyOp::Kind::Index: {
        std::optional<int64_t> at = op.index.evaluate(vars_);
        if (!at) return make_error("index [", op.index.to_string(), "] names a variable outside the loops");
        out.i = *at;
        return Status::ok();
      }
      case BodyOp::Kind::Reduce:
        return Status::ok();  // set by run_loops
      case BodyOp::Kind::Compute:
        break;
    }
    const size_t n = op.args.size();
    if (op.op == OpKind::Where) {
      const Val& chosen = truthy(arg(0), arg_dt(0)) ? arg(1) : arg(2);
      out = convert(chosen, truthy(arg(0), arg_dt(0)) ? arg_dt(1) : arg_dt(2), op.dtype);
      return Status::ok();
    }
    if (op.op == OpKind::LogicalAnd || op.op == OpKind::LogicalOr || op.op == OpKind::LogicalNot) {
      const bool a = truthy(arg(0), arg_dt(0));
      const bool b = n > 1 && truthy(arg(1), arg_dt(1));
      out.i = op.op == OpKind::LogicalAnd ? (a && b) : op.op == OpKind::LogicalOr ? (a || b) : !a;
      return Status::ok();
    }
    bool float_path = false;
    for (size_t a = 0; a < n; ++a) float_path = float_path || is_floating(arg_dt(a));
    if (op.op == OpKind::Isinf || op.op == OpKind::Isnan) {
      const double x = as_f(arg(0), arg_dt(0));
      out.i = float_path && (op.op == OpKind::Isinf ? std::isinf(x) : std::isnan(x));
      return Status::ok();
    }
    if (compute_returns_bool(op.op)) {
      if (float_path) {
        out.i = compare<double>(op.op, as_f(arg(0), arg_dt(0)), as_f(arg(1), arg_dt(1)));
      } else {
        out.i = compare<int64_t>(op.op, arg(0).i, arg(1).i);
      }
      return Status::ok();
    }
    // Floating ops on integer operands (exp of an int) compute in double too.
    const bool float_only = op.op != OpKind::Neg && op.op != OpKind::Abs && op.op != OpKind::Relu &&
                            op.op != OpKind::Add && op.op != OpKind::Sub && op.op != OpKind::Mul &&
                            op.op != OpKind::Maximum && op.op != OpKind::Minimum;
    Val r;
    DType rdt;
    if (float_path || float_only) {
      double a[2] = {0, 0};
      for (size_t x = 0; x < n && x < 2; ++x) a[x] = as_f(arg(x), arg_dt(x));
      r.f = float_op(op.op, a);
      rdt = DType::F64;
    } else {
      int64_t a[2] = {0, 0};
      for (size_t x = 0; x < n && x < 2; ++x) a[x] = arg(x).i;
      r.i = int_op(op.op, a);
      rdt = DType::I64;
    }
    // Within a kernel values stay in double / int64; only the category follows op.dtype.
    if (is_floating(op.dtype) == is_floating(rdt)) out = r;
    else out = convert(r, rdt, op.dtype);
    return Status::ok();
  }

  Status run_body(const LoopKernel& k, size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) KILN_TRY(eval_op(k, i));
    return Status::ok();
  }

  // Calls f() for every point of loops [first, last) (vars_ set), in row-major order.
  template <typename F>
  Status for_each(const LoopKernel& k, size_t first, size_t last, F&& f) {
    for (size_t d = first; d < last; ++d)
      if (k.loops[d] == 0) return Status::ok();
    for (size_t d = first; d < last; ++d) vars_[d] = 0;
    while (true) {
      KILN_TRY(f());
      size_t d = last;
      while (d > first) {
        --d;
        if (++vars_[d] < k.loops[d]) break;
        vars_[d] = 0;
        if (d == first) return Status::ok();
      }
      if (last == first) return Status::ok();
    }
  }

  Status run_loops(const LoopKernel& k) {
    vars_.assign(k.loops.size(), 0);
    if (k.kind != KernelKind::Fused) return run_part(k, 0);
    return for_each(k, 0, k.loops.size(), [&]() -> Status {
      for (const LoopKernel& part : k.parts) KILN_TRY(run_part(part, k.loops.size()));
      return Status::ok();
    });
  }

  // A pointwise or reduction kernel whose first `fixed` loop variables are already set.
  Status run_part(const LoopKernel& k, size_t fixed) {
    vars_.resize(k.loops.size());
    vals_.assign(k.body.size(), Val{});
    const size_t outer = static_cast<size_t>(k.num_outer_loops());
    if (k.kind == KernelKind::Pointwise || k.kind == KernelKind::Scan)  // scan: for_each runs steps in order
      return for_each(k, fixed, k.loops.size(), [&] { return run_body(k, 0, k.body.size()); });
    const size_t red = static_cast<size_t>(k.reduce_op);
    const BodyOp& rop = k.body[red];
    const int src = rop.args.at(0);
    const bool fl = is_floating(dt(k, src));
    return for_each(k, fixed, outer, [&]() -> Status {
      Val acc;
      switch (rop.reduce) {
        case ReduceKind::Sum: break;
        case ReduceKind::Prod: acc.f = 1; acc.i = 1; break;
        case ReduceKind::Max: acc.f = -std::numeric_limits<double>::infinity(); acc.i = std::numeric_limits<int64_t>::min(); break;
        case ReduceKind::Min: acc.f = std::numeric_limits<double>::infinity(); acc.i = std::numeric_limits<int64_t>::max(); break;
      }
      KILN_TRY(for_each(k, outer, k.loops.size(), [&]() -> Status {
        KILN_TRY(run_body(k, 0, red));
        const Val& v = vals_[static_cast<size_t>(src)];
        switch (rop.reduce) {
          case ReduceKind::Sum: if (fl) acc.f += v.f; else acc.i = wrap_add(acc.i, v.i); break;
          case ReduceKind::Prod: if (fl) acc.f *= v.f; else acc.i = wrap_mul(acc.i, v.i); break;
          case ReduceKind::Max: if (fl) { if (std::isnan(v.f) || v.f > acc.f) acc.f = v.f; } else acc.i = std::max(acc.i, v.i); break;
          case ReduceKind::Min: if (fl) { if (std::isnan(v.f) || v.f < acc.f) acc.f = v.f; } else acc.i = std::min(acc.i, v.i); break;
        }
        return Status::ok();
      }));
      vals_[red] = fl == is_floating(rop.dtype) ? acc : convert(acc, fl ? DType::F64 : DType::I64, rop.dtype);
      return run_body(k, red + 1, k.body.size());
    });
  }

  const LoopProgram& p_;
  std::vector<Tensor> storage_;  // one flat tensor per buffer
  std::vector<int64_t> vars_;
  std::vector<Val> vals_;
};

}  // namespace

Expected<std::vector<Tensor>> eval_loops(const LoopProgram& p, std::span<const Tensor> inputs) {
  return Evaluator(p).run(inputs);
}

}  // namespace kiln
