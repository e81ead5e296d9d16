#include "lower/byte_counts.h"

#include "ir/printer.h"
#include "lower/loop_text.h"
#include "lower/memory_plan.h"

namespace kiln {

namespace {

Expected<int64_t> bytes_of_elements(int64_t elements, DType dtype) {
  int64_t bytes = 0;
  if (__builtin_mul_overflow(elements, static_cast<int64_t>(dtype_size(dtype)), &bytes))
    return make_error("its ", elements, " elements of ", dtype_size(dtype), " bytes are more than 2^63 bytes");
  return bytes;
}

Status check_result_bytes(const std::string& what, const TensorType& type) {
  if (!type.shape.is_static()) return Status::ok();
  Expected<int64_t> bytes = dense_bytes(type.shape.sizes(), type.dtype);
  if (!bytes) return make_error(what, " of type ", type.to_string(), " is too large: ", bytes.error().message());
  return Status::ok();
}

}  // namespace

Expected<int64_t> dense_bytes(const std::vector<int64_t>& sizes, DType dtype) {
  int64_t elements = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0) return make_error("dim ", d, " has the negative size ", sizes[d]);
    if (__builtin_mul_overflow(elements, sizes[d], &elements)) return make_error("it has more than 2^63 elements");
  }
  return bytes_of_elements(elements, dtype);
}

Status check_value_bytes(const Graph& g) {
  for (const Value* in : g.inputs()) KILN_TRY(check_result_bytes("input %" + in->name(), in->type()));
  for (const Node* n : g.nodes()) {
    for (int i = 0; i < n->num_results(); ++i) {
      Status s = check_result_bytes("result " + std::to_string(i), n->results()[static_cast<size_t>(i)]->type());
      if (!s) return s.error().with_loc(n->loc()).add_context("at " + print_node(*n));
    }
    for (int i = 0; i < n->num_subgraphs(); ++i) KILN_TRY(check_value_bytes(*n->subgraph(i)));
  }
  return Status::ok();
}

Expected<int64_t> layout_bytes(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, DType dtype) {
  int64_t elements = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0) return make_error("dim ", d, " has the negative size ", sizes[d]);
    if (sizes[d] == 0) return int64_t{0};
  }
  for (size_t d = 0; d < sizes.size(); ++d) {
    const int64_t stride = d < strides.size() ? strides[d] : 0;
    if (stride < 0) return make_error("dim ", d, " has the negative stride ", stride);
    int64_t span = 0;
    if (__builtin_mul_overflow(sizes[d] - 1, stride, &span) || __builtin_add_overflow(elements, span, &elements))
      return make_error("it spans more than 2^63 elements");
  }
  return bytes_of_elements(elements, dtype);
}

Status check_buffer_bytes(const LoopProgram& p) {
  int64_t total = 0;
  for (const Buffer& b : p.buffers) {
    Expected<int64_t> bytes = layout_bytes(b.sizes, b.strides, b.dtype);
    if (!bytes)
      return make_error("buffer %", b.name, " (", buffer_type_string(b.dtype, b.sizes), ") of loops @", p.name,
                        " is too large: ", bytes.error().message());
    // The memory plan starts every buffer on its alignment, so each may take that much more.
    if (__builtin_add_overflow(total, *bytes, &total) || __builtin_add_overflow(total, MemoryPlan::kAlignment, &total))
      return make_error("the buffers of loops @", p.name, " take more than 2^63 bytes together (at buffer %", b.name,
                        ", ", buffer_type_string(b.dtype, b.sizes), ")");
  }
  return Status::ok();
}

}  // namespace kiln
