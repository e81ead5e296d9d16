// Reference kernels of the indexing ops. Index values are checked before anything is
// written; an index out of range is a Diagnostic naming the op, the index, the dim and its
// size. Out-of-place ops clone operand 0 and write the clone.
#include "ops/kernel_index_util.h"
#include "ops/kernel_util.h"
#include "ops/kernels.h"
#include "ops/type_rules_util.h"

namespace kiln {

namespace {

Expected<std::vector<Tensor>> single(Tensor t) { return std::vector<Tensor>{std::move(t)}; }

// Index value `v` for a dim of `size`; negative values count from the back when allowed.
Expected<int64_t> checked_index(std::string_view op, int64_t v, int d, int64_t size, bool allow_negative) {
  if (v >= size || v < (allow_negative ? -size : 0))
    return make_error(op, ": index ", v, " is out of bounds for dim ", d, " with size ", size);
  return v < 0 ? v + size : v;
}

// A fresh contiguous copy of operand 0 with result 0's dtype (the tensor the op writes).
Tensor clone_self(const KernelCall& call) {
  Tensor out = new_result(call);
  out.copy_from(call.operands[0].tensor);
  return out;
}

Status check_same_dtype(std::string_view op, const Tensor& self, const Tensor& src, std::string_view what) {
  if (self.dtype() == src.dtype()) return Status::ok();
  return make_error(op, ": expected self.dtype to be equal to ", what, ".dtype, got ", dtype_name(self.dtype()),
                    " and ", dtype_name(src.dtype()));
}

// gather and scatter read a 0-d operand as a 1-d tensor of one element, as PyTorch does
// (ensure_nonempty_dim): a 0-d index into a 1-d self is the index [index], a 0-d src or self
// has one element at position 0.
Tensor as_nonempty_dim(const Tensor& t) { return t.dim() == 0 ? t.as_strided({1}, {1}, t.offset()) : t; }

// gather/scatter, operands read by as_nonempty_dim: index.size(k) <= src.size(k) for every k
// (and <= self.size(k) for k != dim).
Status check_index_fits(std::string_view op, const Tensor& index, const Tensor& other, int d, bool skip_dim,
                        std::string_view what) {
  if (index.dim() != other.dim())
    return make_error(op, ": index tensor must have the same number of dimensions as ", what, " tensor");
  for (int k = 0; k < index.dim(); ++k) {
    if (skip_dim && k == d) continue;
    if (index.sizes()[static_cast<size_t>(k)] > other.sizes()[static_cast<size_t>(k)])
      return make_error(op, ": expected index ", index.shape().to_string(), " to be no larger than ", what, " ",
                        other.shape().to_string(), " at dimension ", k);
  }
  return Status::ok();
}

// Scatter of `src` (tensor or literal) into a clone of self along `dim`; `accumulate` adds.
Expected<std::vector<Tensor>> scatter(const KernelCall& call, bool accumulate) {
  const Tensor self = as_nonempty_dim(call.operands[0].tensor);
  const Tensor index = as_nonempty_dim(call.operands[1].tensor);
  const KernelOperand& src = call.operands[2];
  const std::string_view op = call.name();
  KILN_ASSIGN_OR_RETURN(int d, wrap_dim_or_error(op, call.attr_int("dim"), call.operands[0].tensor.dim()));
  if (index.dtype() != DType::I64 && index.dtype() != DType::I32)
    return make_error(op, ": expected dtype i32 or i64 for index, got ", dtype_name(index.dtype()));
  KILN_TRY(check_index_fits(op, index, self, d, true, "self"));
  std::optional<Tensor> src_tensor;
  if (src.is_tensor()) {
    src_tensor = as_nonempty_dim(src.tensor);
    KILN_TRY(check_same_dtype(op, self, *src_tensor, "src"));
    KILN_TRY(check_index_fits(op, index, *src_tensor, d, false, "src"));
  }
  Tensor result = clone_self(call);
  const Tensor out = as_nonempty_dim(result);
  const int64_t size = self.sizes()[static_cast<size_t>(d)];
  const ElementAccess ei(index), eo(out);
  std::optional<ElementAccess> es;
  if (src_tensor) es.emplace(*src_tensor);
  const bool fp = is_floating(out.dtype());
  Status status;
  std::vector<int64_t> dst;
  for_each_multi_index(index.sizes(), [&](const std::vector<int64_t>& idx) {
    if (!status) return;
    auto v = checked_index(op, ei.get_int(offset_of(index.strides(), idx)), d, size, false);
    if (!v) {
      status = v.error();
      return;
    }
    dst = idx;
    dst[static_cast<size_t>(d)] = *v;
    const int64_t o = offset_of(out.strides(), dst);
    if (fp) {
      const double x = es ? es->get(offset_of(src_tensor->strides(), idx)) : src.literal.to_double();
      eo.set(o, accumulate ? eo.get(o) + x : x);
    } else {
      const int64_t x = es ? es->get_int(offset_of(src_tensor->strides(), idx)) : src.literal.to_int();
      eo.set_int(
          o, accumulate ? static_cast<int64_t>(static_cast<uint64_t>(eo.get_int(o)) + static_cast<uint64_t>(x)) : x);
    }
  });
  if (!status) return status.error();
  return single(result);
}

}  // namespace

Expected<std::vector<Tensor>> kernel_index_select(const KernelCall& call) {
  const Tensor& self = call.operands[0].tensor;
  const Tensor& index = call.operands[1].tensor;
  const int d = *wrap_dim(call.attr_int("dim"), self.dim());
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[static_cast<size_t>(d)];
  std::vector<int64_t> picks;
  for (int64_t i = 0; i < index.numel(); ++i) {
    KILN_ASSIGN_OR_RETURN(int64_t v, checked_index("index_select", index.item_int(i), d, size, false));
    picks.push_back(v);
  }
  Tensor out = new_result(call);
  if (self.dim() == 0) {
    out.copy_from(self);
    return single(out);
  }
  const ElementAccess es(self), eo(out);
  std::vector<int64_t> src;
  for_each_multi_index(out.sizes(), [&](const std::vector<int64_t>& idx) {
    src = idx;
    src[static_cast<size_t>(d)] = picks[static_cast<size_t>(idx[static_cast<size_t>(d)])];
    eo.set_from(offset_of(out.strides(), idx), es, offset_of(self.strides(), src));
  });
  return single(out);
}

Expected<std::vector<Tensor>> kernel_gather(const KernelCall& call) {
  const Tensor self = as_nonempty_dim(call.operands[0].tensor);
  const Tensor index = as_nonempty_dim(call.operands[1].tensor);
  const int d = *wrap_dim(call.attr_int("dim"), call.operands[0].tensor.dim());
  const int64_t size = self.sizes()[static_cast<size_t>(d)];
  Tensor result = new_result(call);
  const Tensor out = as_nonempty_dim(result);
  const ElementAccess es(self), ei(index), eo(out);
  Status status;
  std::vector<int64_t> src;
  for_each_multi_index(index.sizes(), [&](const std::vector<int64_t>& idx) {
    if (!status) return;
    auto v = checked_index("gather", ei.get_int(offset_of(index.strides(), idx)), d, size, false);
    if (!v) {
      status = v.error();
      return;
    }
    src = idx;
    src[static_cast<size_t>(d)] = *v;
    eo.set_from(offset_of(out.strides(), idx), es, offset_of(self.strides(), src));
  });
  if (!status) return status.error();
  return single(result);
}

Expected<std::vector<Tensor>> kernel_scatter(const KernelCall& call) { return scatter(call, false); }

Expected<std::vector<Tensor>> kernel_scatter_add(const KernelCall& call) { return scatter(call, true); }

Expected<std::vector<Tensor>> kernel_index_add(const KernelCall& call) {
  const Tensor& self = call.operands[0].tensor;
  const Tensor& index = call.operands[1].tensor;
  const Tensor& source = call.operands[2].tensor;
  KILN_ASSIGN_OR_RETURN(int d, wrap_dim_or_error("index_add", call.attr_int("dim"), self.dim()));
  if (index.dim() > 1)
    return make_error("index_add: index is supposed to be a vector, got shape ", index.shape().to_string());
  if (index.dtype() != DType::I64 && index.dtype() != DType::I32)
    return make_error("index_add: expected dtype i32 or i64 for index, got ", dtype_name(index.dtype()));
  KILN_TRY(check_same_dtype("index_add", self, source, "source"));
  const auto ud = static_cast<size_t>(d);
  if (self.dim() == 0 && (source.dim() != 0 || index.numel() != 1))
    return make_error("index_add: a 0-d self takes one index and a 0-d source, got index of shape ",
                      index.shape().to_string(), " and source of shape ", source.shape().to_string());
  std::vector<int64_t> want = self.sizes();
  if (self.dim() > 0) want[ud] = index.numel();
  if (source.sizes() != want)
    return make_error("index_add: source of shape ", source.shape().to_string(), " does not match self ",
                      self.shape().to_string(), " with dim ", d, " of size ", index.numel());
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[ud];
  std::vector<int64_t> picks;
  for (int64_t i = 0; i < index.numel(); ++i) {
    KILN_ASSIGN_OR_RETURN(int64_t v, checked_index("index_add", index.item_int(i), d, size, true));
    picks.push_back(v);
  }
  Tensor out = clone_self(call);
  const Scalar alpha = call.attr_scalar("alpha");
  const ElementAccess es(source), eo(out);
  const bool fp = is_floating(out.dtype());
  std::vector<int64_t> dst;
  for_each_multi_index(source.sizes(), [&](const std::vector<int64_t>& idx) {
    dst = idx;
    if (self.dim() > 0) dst[ud] = picks[static_cast<size_t>(idx[ud])];
    const int64_t o = offset_of(out.strides(), dst), so = offset_of(source.strides(), idx);
    if (fp)
      eo.set(o, eo.get(o) + alpha.to_double() * es.get(so));
    else
      eo.set_int(o,
                 static_cast<int64_t>(static_cast<uint64_t>(eo.get_int(o)) +
                                      static_cast<uint64_t>(alpha.to_int()) * static_cast<uint64_t>(es.get_int(so))));
  });
  return single(out);
}

Expected<std::vector<Tensor>> kernel_masked_fill(const KernelCall& call) {
  const DType t = call.result_types[0].dtype;
  return single(map_elementwise(
      call, t, [](const double* v) { return v[1] != 0 ? v[2] : v[0]; },
      [](const int64_t* v) { return v[1] != 0 ? v[2] : v[0]; }));
}

Expected<std::vector<Tensor>> kernel_embedding(const KernelCall& call) {
  const Tensor& w = call.operands[0].tensor;
  const Tensor& idx = call.operands[1].tensor;
  const int64_t rows = w.sizes()[0], width = w.sizes()[1];
  Tensor out = new_result(call);
  const ElementAccess ew(w), eo(out);
  for (int64_t i = 0; i < idx.numel(); ++i) {
    KILN_ASSIGN_OR_RETURN(int64_t row, checked_index("embedding", idx.item_int(i), 0, rows, false));
    for (int64_t j = 0; j < width; ++j) eo.set_from(i * width + j, ew, row * w.strides()[0] + j * w.strides()[1]);
  }
  return single(out);
}

}  // namespace kiln
