#include "lower/loop_eval.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include "core/element.h"
#include "core/random.h"
#include "lower/eval_compute.h"
#include "lower/loop_control.h"
#include "lower/loop_run.h"
#include "lower/reduce_fold.h"
#include "ops/kernel_util.h"
#include "ops/op_info.h"

namespace kiln {

namespace {

using Val = EvalValue;  // double for floating dtypes, int64 otherwise (bool is 0 or 1)

Val convert(const Val& v, DType from, DType to) { return convert_eval_value(v, from, to); }

// A Random op's draw (loop_ir.h): the counter and the optional state are i64 values.
Val random_draw(const BodyOp& op, const std::vector<Val>& vals) {
  auto word = [&](size_t a) { return static_cast<uint64_t>(vals[static_cast<size_t>(op.args[a])].i); };
  const RandomStream stream =
      op.args.size() == 3 ? stream_from_state(word(1), word(2), op.random.seed) : RandomStream{op.random.seed, 0};
  Val out;
  switch (op.random.kind) {
    case RandomKind::Uniform: out.f = uniform_double(stream, word(0), uniform_bits(op.dtype)); break;
    case RandomKind::Normal: out.f = normal_double(stream, word(0)); break;
    case RandomKind::Int: {
      const uint64_t r = random_u64(stream, word(0));
      out.i = static_cast<int64_t>(op.random.modulus != 0 ? r % op.random.modulus : r);
      break;
    }
  }
  return out;
}

bool truthy(const Val& v, DType t) { return is_floating(t) ? v.f != 0 : v.i != 0; }

// A literal rounded to dtype t (a const, a masked load's value where its mask is false).
Val literal(const Scalar& s, DType t) {
  Val v;
  if (s.is_float()) {
    v.f = s.to_double();
    return convert(v, DType::F64, t);
  }
  v.i = s.to_int();
  return convert(v, DType::I64, t);
}

class Evaluator {
 public:
  explicit Evaluator(const LoopProgram& p) : p_(p) {}

  // eval_kernel_checks: kernel `k` over `storage` with no stores, evaluating only what its
  // Indirect ops need (their operands, transitively).
  Status run_checks(const LoopKernel& k, std::span<const Tensor> storage) {
    storage_.assign(storage.begin(), storage.end());
    checks_only_ = true;
    return run_loops(k);
  }

  Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) {
    KILN_TRY(check_loop_inputs(p_, inputs));
    KILN_TRY(check_loop_inputs_on_host(p_, inputs, "the loop-IR evaluator"));
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
    for (size_t j = 0; at && j < op.indirect.size(); ++j)
      at = wrap_add(*at, wrap_mul(op.indirect[j], vals_[static_cast<size_t>(op.indirect_arg(j))].i));
    const int64_t n = storage_[static_cast<size_t>(op.buffer)].numel();
    if (!at || *at < 0 || *at >= n)
      return make_error(op.kind == BodyOp::Kind::Load ? "load" : "store", " %", buf(op.buffer).name, "[",
                        op.index.to_string(), "] is outside the buffer (", at ? std::to_string(*at) : "?",
                        " not in [0, ", n, ")) at ", vars_text());
    return *at;
  }

  std::string vars_text() const {
    std::string s;
    for (size_t i = 0; i < vars_.size(); ++i)
      s += (i ? ", i" : "i") + std::to_string(i) + "=" + std::to_string(vars_[i]);
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
        if (op.masked && !truthy(vals_[static_cast<size_t>(op.mask())], dt(k, op.mask()))) {
          out = literal(op.value, op.dtype);
          return Status::ok();
        }
        KILN_ASSIGN_OR_RETURN(int64_t at, offset_of(op));
        const Tensor& s = storage_[static_cast<size_t>(op.buffer)];
        if (is_floating(op.dtype))
          out.f = load_double(s.data_bytes(), s.dtype(), at);
        else
          out.i = load_int(s.data_bytes(), s.dtype(), at);
        return Status::ok();
      }
      case BodyOp::Kind::Store: {
        if (checks_only_) return Status::ok();
        KILN_ASSIGN_OR_RETURN(int64_t at, offset_of(op));
        const Tensor& s = storage_[static_cast<size_t>(op.buffer)];
        if (is_floating(arg_dt(0)))
          store_double(s.data_bytes(), s.dtype(), at, arg(0).f);
        else
          store_int(s.data_bytes(), s.dtype(), at, arg(0).i);
        return Status::ok();
      }
      case BodyOp::Kind::Const: out = literal(op.value, op.dtype); return Status::ok();
      case BodyOp::Kind::Cast: out = convert(arg(0), arg_dt(0), op.dtype); return Status::ok();
      case BodyOp::Kind::Index: {
        std::optional<int64_t> at = op.index.evaluate(vars_);
        if (!at) return make_error("index [", op.index.to_string(), "] names a variable outside the loops");
        out.i = *at;
        return Status::ok();
      }
      case BodyOp::Kind::Random: out = random_draw(op, vals_); return Status::ok();
      case BodyOp::Kind::Indirect: {
        const int64_t v = arg(0).i;
        const int64_t w = op.wrap && v < 0 ? v + op.size : v;
        if (w < 0 || w >= op.size)
          return make_error(op_info(op.op).name(), ": index ", v, " is out of bounds for dim ", op.dim, " with size ",
                            op.size)
              .add_context("while computing " + op.where);
        out.i = w;
        return Status::ok();
      }
      case BodyOp::Kind::Reduce: return Status::ok();  // set by run_loops
      case BodyOp::Kind::Compute: break;
    }
    std::vector<DType> dtypes;
    std::vector<Val> operands;
    for (size_t a = 0; a < op.args.size(); ++a) {
      operands.push_back(arg(a));
      dtypes.push_back(arg_dt(a));
    }
    Expected<Val> v = eval_compute(op.op, operands, dtypes, op.dtype, op.attrs);
    if (!v) return v.error().add_context("at " + vars_text());
    out = *v;
    return Status::ok();
  }

  Status run_body(const LoopKernel& k, size_t from, size_t to) {
    for (size_t i = from; i < to; ++i)
      if (!checks_only_ || needed_[i]) KILN_TRY(eval_op(k, i));
    return Status::ok();
  }

  // The ops an Indirect op of `k` depends on (itself included).
  static std::vector<bool> check_closure(const LoopKernel& k) {
    std::vector<bool> need(k.body.size(), false);
    for (size_t i = k.body.size(); i-- > 0;) {
      need[i] = need[i] || k.body[i].kind == BodyOp::Kind::Indirect;
      if (need[i])
        for (int a : k.body[i].args) need[static_cast<size_t>(a)] = true;
    }
    return need;
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
    if (checks_only_) needed_ = check_closure(k);
    const size_t outer = static_cast<size_t>(k.num_outer_loops());
    if (k.kind == KernelKind::Pointwise || k.kind == KernelKind::Scan)  // scan: for_each runs steps in order
      return for_each(k, fixed, k.loops.size(), [&] { return run_body(k, 0, k.body.size()); });
    // The reduce ops (reduce_fold.h) run from reduce_op on; they fold over the same points.
    const size_t red = static_cast<size_t>(k.reduce_op);
    size_t end = red;
    while (end < k.body.size() && k.body[end].kind == BodyOp::Kind::Reduce) ++end;
    return for_each(k, fixed, outer, [&]() -> Status {
      std::vector<ReduceFold> folds;
      for (size_t r = red; r < end; ++r) folds.emplace_back(k.body[r].reduce, is_floating(dt(k, k.body[r].args.at(0))));
      KILN_TRY(for_each(k, outer, k.loops.size(), [&]() -> Status {
        KILN_TRY(run_body(k, 0, red));
        for (size_t r = red; r < end; ++r) {
          const std::vector<int>& args = k.body[r].args;
          const Val& v = vals_[static_cast<size_t>(args[0])];
          folds[r - red].add(v.f, v.i, args.size() > 1 ? vals_[static_cast<size_t>(args[1])].i : 0);
        }
        return Status::ok();
      }));
      for (size_t r = red; r < end; ++r) {
        const ReduceFold& f = folds[r - red];
        Val acc;
        acc.f = f.result_f();
        acc.i = f.result_i();
        const bool fl = f.result_floating();
        vals_[r] =
            fl == is_floating(k.body[r].dtype) ? acc : convert(acc, fl ? DType::F64 : DType::I64, k.body[r].dtype);
      }
      return run_body(k, end, k.body.size());
    });
  }

  const LoopProgram& p_;
  std::vector<Tensor> storage_;  // one flat tensor per buffer
  std::vector<int64_t> vars_;
  std::vector<Val> vals_;
  bool checks_only_ = false;
  std::vector<bool> needed_;  // checks_only_: the ops of the current part to evaluate
};

}  // namespace

Expected<std::vector<Tensor>> eval_loops(const LoopProgram& p, std::span<const Tensor> inputs) {
  return Evaluator(p).run(inputs);
}

Status eval_kernel_checks(const LoopProgram& p, const LoopKernel& k, std::span<const Tensor> storage) {
  Status s = Evaluator(p).run_checks(k, storage);
  if (!s) return s.error().add_context("in kernel @" + k.name + " of loops @" + p.name);
  return make_error("kernel @", k.name, " of loops @", p.name,
                    " reported an index out of bounds, but evaluating its checks again finds none");
}

}  // namespace kiln
