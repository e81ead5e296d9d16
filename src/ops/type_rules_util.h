// Helpers shared by the shape rules and reference kernels of the linear-algebra, view,
// indexing and nn ops: dim wrapping with torch's error text, static sizes of operands, and
// the size arithmetic that a rule and its kernel must agree on.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/shape.h"
#include "ops/op_call.h"
#include "support/diagnostic.h"

namespace kiln {

// `dim` wrapped into [0, rank) (a 0-d tensor accepts 0 and -1, like torch), or
// "<op>: dimension out of range (expected to be in range of [-2, 1], but got 5)".
Expected<int> wrap_dim_or_error(std::string_view op, int64_t dim, int rank);

// The static value of `d`, or "<op>: <what> must be static, got symbolic dim B".
Expected<int64_t> static_dim(std::string_view op, const Dim& d, std::string_view what);

// The tensor type of operand i; an internal error when it is not a tensor.
const TensorType& operand_type(const TypeCall& call, int i);

// Piece sizes of torch.split of a dim of `size` into pieces of `split_size` (the last piece
// may be shorter); one empty piece for size 0.
std::vector<int64_t> split_sizes(int64_t size, int64_t split_size);
// Piece sizes of torch.chunk: ceil(size / chunks) each; `chunks` empty pieces for size 0.
std::vector<int64_t> chunk_sizes(int64_t size, int64_t chunks);

// torch's slice clamping: start/end (None = ends, negative counts from the back) clamped into
// [0, size]; returns {start, length} for `step` > 0.
struct SliceBounds {
  int64_t start;
  int64_t length;
};
SliceBounds slice_bounds(int64_t size, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step);

// Output length of a pooling or convolution window along one dim (torch's pooling_output_shape
// for pooling; `ceil_mode` false for convolution).
int64_t window_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation, bool ceil_mode);

// The same for a symbolic `in` (ceil_mode false): floor((in + 2*pad - dilation*(kernel-1) - 1) / stride) + 1.
Dim window_output_dim(const Dim& in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation);

// The shape an in-place op's rule computed (`b`, one result) must be its self's: torch's
// "output with shape [3] doesn't match the broadcast shape [2, 3]".
Expected<std::vector<Shape>> in_place_shape(const TypeCall& call, std::vector<Shape> b);

// Result shape of matmul (torch's rules for every rank combination; batch dims broadcast).
Expected<Shape> matmul_shape(const Shape& a, const Shape& b);

// torch refuses full(..., 300, dtype=u8), full_like(x, -inf, dtype=i8) and index_add of an
// i64 tensor with alpha=inf: a scalar must lie in an integer dtype's [min, max + 1) (a float
// is truncated after the check: -0.5 does not fit u8, 255.5 does); a bool fits every dtype. "<op>: value inf cannot be
// converted to i64 without overflow".
Status scalar_fits_dtype(const OpCallBase& call, const Scalar& v, DType t);

// Attribute `name` as two ints: [a] -> [a, a], [a, b] -> [a, b]; `fallback` when empty.
Expected<std::vector<int64_t>> pair_attr(const OpCallBase& call, std::string_view name,
                                         const std::vector<int64_t>& fallback);

}  // namespace kiln
