// upsample_bilinear2d's geometry as PyTorch's CPU kernel computes it (ATen's UpSample.h:
// area_pixel_compute_scale, area_pixel_compute_source_index, guard_index_and_lambda): the output
// size a scale gives, and for each output index the two source indices and the weight of the
// second. Shared by the shape rule and the reference kernel; the decomposition
// (passes/upsample_taps.h) takes the scale from here and builds the same arithmetic in the graph.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace kiln::upsample {

// The size of a dim of `in` scaled by `scale`: floor(in * scale) in double, as ATen's
// upsample_compute_output_size.
int64_t scaled_size(int64_t in, double scale);

// The step between source positions of consecutive outputs, rounded to float unless `f64`
// (ATen computes it in the op-math type: float for f32, f16 and bf16).
double source_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale, bool f64);

struct Taps {
  std::vector<int64_t> i0, i1;  // the two source indices of each output index
  std::vector<double> lambda1;  // the weight of i1 (i0's is 1 - lambda1)
};

// The taps of one spatial dim, each step in float unless `f64`, as PyTorch's.
Taps taps(int64_t in, int64_t out, bool align_corners, std::optional<double> scale, bool f64);

}  // namespace kiln::upsample
