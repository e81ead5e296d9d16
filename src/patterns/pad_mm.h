// pad-mm (SPEC.md 5.5): matrix products whose M, K or N is misaligned for tensor cores are
// padded with zeros to the alignment and their result sliced back, when a deterministic cost
// model says the padded product, plus the padding and slicing traffic, is faster. The
// reference decides by benchmarking on the GPU; kiln has no device at compile time, so the
// decision is the roofline model of PadMmCostModel (docs/DECISIONS.md, "pad-mm").
//
// Rewritten: mm, bmm, addmm (bias padded only along dims whose size is not 1) and matmul
// whose operands both have rank >= 2 (the last two dims are the matrix, batch dims stay).
//   mm(a, b) -> slice(slice(mm(constant_pad_nd(a, [0,kp,0,mp]), constant_pad_nd(b, [0,np,0,kp])),
//                           -2, 0, M), -1, 0, N)
// Alignment by dtype: f16/bf16 8, f32 4, every other dtype (integers, f64) none: never padded.
// A dim of size 1 or a symbolic dim is never padded; a product with a dim of 0 is left alone.
// Results are unchanged: the pad adds zero terms to each sum and the slice drops the padded
// rows and columns.
#pragma once

#include <memory>

#include "passes/pattern.h"

namespace kiln {

// Time estimates of the cost model: a roofline max(FLOPs / rate, bytes / bandwidth). Defaults
// are an H100 SXM's dense tensor-core rates (f32 as TF32) and HBM3 bandwidth.
struct PadMmCostModel {
  double tflops_f16 = 989.0;  // f16 and bf16
  double tflops_f32 = 495.0;
  double tflops_f64 = 67.0;
  double bandwidth_gbps = 3350.0;
  // The rate of a product with a misaligned dim, as a fraction of the aligned rate: rows that
  // are not 16-byte aligned cannot use the tensor cores' vector loads.
  double misaligned_efficiency = 0.5;
  // Pad only when unpadded time > multiplier * (padded time + pad and slice traffic): the
  // reference's shape_padding_multiplier.
  double multiplier = 1.1;
};

struct PadMmOptions {
  int alignment_f16 = 8;  // f16 and bf16
  int alignment_f32 = 4;
  // 0: never (the reference pads only f16, bf16, f32); tests set it to check numerics in f64.
  int alignment_f64 = 0;
  bool force = false;  // pad whenever a dim is misaligned (the reference's force_shape_pad)
  PadMmCostModel cost = {};
};

// The padding one product would get.
struct PadMmPlan {
  int64_t m_pad = 0, k_pad = 0, n_pad = 0;
  double unpadded_us = 0, padded_us = 0;  // the cost model's estimates
  bool pays = false;                      // padding is something and the model (or force) says yes
};

// The plan for a matrix product node (mm, bmm, addmm, matmul); nullopt when the node cannot be
// padded (another op, unsupported ranks, symbolic or zero dims, a dtype without alignment).
std::optional<PadMmPlan> plan_pad_mm(const Node& product, const PadMmOptions& options = {});

// The set "pad-mm": one pattern per op, anchored at it, padding when plan_pad_mm pays.
Expected<std::shared_ptr<const PatternSet>> make_pad_mm_set(const PadMmOptions& options = {});

}  // namespace kiln
