"""Oracle cases at the edge points of every differentiable op (each KILN_GRAD row of
src/autograd/derivatives.def), where derivative rules break first: zeros, ties, bounds and
kinks, infinities and NaN (also in a branch not taken), poles, overflow and saturation,
empty tensors and reductions, constant rows, ignored targets, repeated indices. They run in
every oracle (interpreter, compiled CPU, ONNX) like any case, but they are written for the
gradient oracle (run_grad_oracle.py), which checks them in float64 against torch.autograd:
where PyTorch gives a finite gradient, kiln must give the same.

EDGE_KINDS names the op each case tries and at which edge points; check_grad_coverage.py
fails unless every differentiable op has one such case the gradient oracle checks."""
import torch
import torch.nn.functional as F

from oracle_case import Case, randn
from single_op import SingleOpCases

NAN, INF = float("nan"), float("inf")
CASES = SingleOpCases()
EDGE_KINDS = {}  # case name -> (op, [edge kinds])


def f32(*values):
    """A float32 tensor of the given (nested) values."""
    return torch.tensor(values if len(values) != 1 else values[0], dtype=torch.float32)


def edge(name, kinds, call, inputs, ref, pre=(), **kw):
    """A single-op case trying the op of `call` at the edge points `kinds`."""
    CASES.add(name, call, inputs, ref, pre, **kw)
    EDGE_KINDS[name] = (call.split("(")[0], kinds)


def edge_graph(name, op, kinds, kir, inputs, ref, **kw):
    """A graph of several nodes (a loss composed of ops, a body of a higher-order op) trying `op`
    at `kinds`."""
    CASES.append(Case(name, kir, inputs=inputs, ref=ref, **kw))
    EDGE_KINDS[name] = (op, kinds)


# ---- unary ----
SPECIAL = f32(0.0, -0.0, INF, -INF, NAN, 1.0, -1.0)
edge("neg_special", ["zero", "inf", "nan"], "neg(%a)", [SPECIAL], torch.neg)
edge("abs_zero", ["zero", "neg_zero", "inf", "nan"], "abs(%a)", [SPECIAL], torch.abs)
edge("exp_overflow", ["overflow", "-inf", "inf", "nan"], "exp(%a)", [f32(1000.0, -1000.0, -INF, INF, NAN)], torch.exp)
edge("log_zero_negative", ["zero", "negative", "inf"], "log(%a)", [f32(0.0, -0.0, -1.0, INF, 1e-30)], torch.log)
edge("log1p_pole", ["pole", "negative", "inf"], "log1p(%a)", [f32(-1.0, -2.0, INF, 0.0, -0.5)], torch.log1p)
edge("expm1_overflow", ["overflow", "-inf", "inf"], "expm1(%a)", [f32(1000.0, -1000.0, -INF, INF, 0.0)], torch.expm1)
edge("sqrt_zero", ["zero", "negative", "inf"], "sqrt(%a)", [f32(0.0, -0.0, -1.0, INF, 4.0)], torch.sqrt)
edge("rsqrt_zero", ["zero", "negative", "inf"], "rsqrt(%a)", [f32(0.0, -0.0, -1.0, INF, 4.0)], torch.rsqrt)
edge("reciprocal_zero", ["zero", "inf"], "reciprocal(%a)", [f32(0.0, -0.0, INF, -INF, 2.0)], torch.reciprocal)
edge("sin_inf", ["inf", "zero"], "sin(%a)", [f32(INF, -INF, 0.0, 1e30)], torch.sin)
edge("cos_inf", ["inf", "zero"], "cos(%a)", [f32(INF, -INF, 0.0, 1e30)], torch.cos)
edge("tan_pole", ["pole", "inf"], "tan(%a)", [f32(1.5707963267948966, INF, 0.0, -1.5707963)], torch.tan)
edge("atan_inf", ["inf", "overflow"], "atan(%a)", [f32(INF, -INF, 1e30, 0.0)], torch.atan)
edge("tanh_saturation", ["saturation", "inf"], "tanh(%a)", [f32(20.0, -20.0, 1000.0, -1000.0, INF, -INF)], torch.tanh)
edge("sigmoid_saturation", ["saturation", "inf"], "sigmoid(%a)", [f32(40.0, -40.0, 1000.0, -1000.0, INF, -INF)],
     torch.sigmoid)
edge("relu_zero", ["zero", "neg_zero", "nan", "inf"], "relu(%a)", [SPECIAL], torch.relu)
edge("gelu_extremes", ["saturation", "zero"], "gelu(%a)", [f32(1000.0, -1000.0, 0.0, 40.0, -40.0)], F.gelu)
edge("gelu_tanh_extremes", ["saturation", "zero"], 'gelu(%a) {approximate="tanh"}',
     [f32(1000.0, -1000.0, 0.0, 40.0, -40.0)],
     lambda a: F.gelu(a, approximate="tanh"))
edge("silu_extremes", ["saturation", "zero"], "silu(%a)", [f32(1000.0, -1000.0, 0.0, 40.0, -40.0)], F.silu)
edge("erf_saturation", ["saturation", "inf"], "erf(%a)", [f32(30.0, -30.0, INF, -INF, 0.0)], torch.erf)
edge("leaky_relu_zero", ["zero", "neg_zero", "inf"], "leaky_relu(%a) {negative_slope=0.1}",
     [f32(0.0, -0.0, INF, -INF, 1.0, -1.0)], lambda a: F.leaky_relu(a, 0.1))
edge("softplus_threshold", ["threshold", "saturation", "inf"], "softplus(%a) {beta=2, threshold=3}",
     [f32(1.5, 1.4999, 1000.0, -1000.0, INF, -INF)], lambda a: F.softplus(a, beta=2, threshold=3))
edge("elu_zero", ["zero", "saturation", "inf"], "elu(%a)", [f32(0.0, -0.0, -1000.0, -INF, INF, 1.0)], F.elu)
edge("hardtanh_bounds", ["bound", "inf"], "hardtanh(%a) {max_val=0.5, min_val=-0.25}",
     [f32(0.5, -0.25, 0.0, INF, -INF, 0.4999)], lambda a: F.hardtanh(a, -0.25, 0.5))
edge("clone_special", ["inf", "nan"], "clone(%a)", [SPECIAL], torch.clone)
edge("contiguous_empty", ["empty"], "contiguous(%t)", [randn(0, 3)], lambda a: a.t().contiguous(),
     pre=[("t", "transpose(%a) {dim0=0, dim1=1}", lambda a: a.t())])
edge("to_copy_special", ["inf", "nan"], "_to_copy(%a) {dtype=f64}", [SPECIAL], lambda a: a.double())

# ---- binary ----
ZERO_INF = f32(0.0, 0.0, INF, -INF, 0.0, 2.0)
OTHER = f32(0.0, INF, 0.0, 1.0, -0.0, 3.0)
edge("add_inf", ["inf", "nan", "broadcast"], "add(%a, %b) {alpha=2}", [f32([[INF], [NAN]]), f32(1.0, -INF)],
     lambda a, b: torch.add(a, b, alpha=2))
edge("sub_inf", ["inf", "broadcast"], "sub(%a, %b) {alpha=0.5}", [f32([[INF], [1.0]]), f32(INF, 0.0)],
     lambda a, b: torch.sub(a, b, alpha=0.5))
edge("mul_zero_inf", ["zero", "inf"], "mul(%a, %b)", [ZERO_INF, OTHER], torch.mul)
edge("div_by_zero", ["pole", "zero", "inf"], "div(%a, %b)", [f32(1.0, 0.0, -1.0, INF, 0.0, 2.0), OTHER], torch.div)
edge("div_floor_zero", ["pole", "piecewise_constant"], 'div(%a, %b) {rounding_mode="floor"}',
     [f32(1.0, 0.0, -1.0, 2.5), f32(0.0, 0.0, 2.0, 1.0)], lambda a, b: torch.div(a, b, rounding_mode="floor"))
edge("pow_zero_base", ["zero", "zero_exponent", "negative_exponent"], "pow(%a, %b)",
     [f32(0.0, 0.0, 0.0, 0.0, 2.0), f32(0.0, 1.0, 0.5, -1.0, 0.0)], torch.pow)
edge("pow_negative_base_integer_exponent", ["negative", "integer_exponent"], "pow(%a, %b)",
     [f32(-2.0, -2.0, -0.5, -3.0), f32(3.0, 2.0, -1.0, 0.0)], torch.pow)
edge("pow_literal_exponent_zero", ["zero", "zero_exponent"], "pow(%a, 0)", [f32(0.0, -1.0, INF)],
     lambda a: torch.pow(a, 0))
edge("pow_literal_exponent_half", ["zero", "negative"], "pow(%a, 0.5)", [f32(0.0, -1.0, 4.0)],
     lambda a: torch.pow(a, 0.5))
edge("pow_literal_exponent_integer", ["zero", "negative", "integer_exponent"], "pow(%a, 3)", [f32(0.0, -2.0, 1.5)],
     lambda a: torch.pow(a, 3))
edge("pow_literal_zero_base", ["zero", "zero_exponent", "negative_exponent"], "pow(0.0, %a)",
     [f32(0.0, 1.0, 2.5, -1.0)], lambda a: torch.pow(0.0, a))
edge("pow_literal_negative_base", ["negative"], "pow(-2.0, %a)", [f32(2.0, 3.0, 0.5)], lambda a: torch.pow(-2.0, a))
edge("maximum_ties", ["tie", "nan", "inf"], "maximum(%a, %b)",
     [f32(1.0, 0.0, NAN, INF, -0.0), f32(1.0, -0.0, 1.0, INF, 0.0)],
     torch.maximum)
edge("minimum_ties", ["tie", "nan", "inf"], "minimum(%a, %b)",
     [f32(1.0, 0.0, NAN, -INF, 2.0), f32(1.0, -0.0, 1.0, -INF, NAN)],
     torch.minimum)
edge("remainder_zero_divisor", ["pole", "zero", "inf"], "remainder(%a, %b)",
     [f32(1.0, 0.0, 5.0, -5.0, INF, 3.0), f32(0.0, 2.0, INF, INF, 2.0, 1.5)], torch.remainder)
edge("fmod_zero_divisor", ["pole", "zero", "inf"], "fmod(%a, %b)",
     [f32(1.0, 0.0, 5.0, -5.0, INF, 3.0), f32(0.0, 2.0, INF, INF, 2.0, 1.5)], torch.fmod)
edge("atan2_origin", ["zero", "neg_zero", "inf", "underflow"], "atan2(%a, %b)",
     [f32(0.0, -0.0, INF, 1.0, 1e-30), f32(0.0, 0.0, INF, 0.0, 1e-30)], torch.atan2)
edge("atan2_negative_zero", ["zero", "neg_zero"], "atan2(%a, %b)", [f32(0.0, -0.0), f32(-0.0, -0.0)], torch.atan2)
edge("where_nan_not_taken", ["nan_not_taken", "inf_not_taken"], "where(%c, %a, %b)",
     [f32(1.0, NAN, 2.0, INF), f32(NAN, 3.0, -INF, 4.0), torch.tensor([True, False, True, False])],
     lambda a, b, c: torch.where(c, a, b))
# The classic: log of the value where() discards. PyTorch's gradient there is NaN (0 times
# log's inf) and so must kiln's be; the branch taken stays finite.
edge_graph("where_log_not_taken", "where", ["nan_not_taken", "zero"], """graph @g(%x: f32[4], %c: bool[4]) -> (f32[4]) {
  %lx = log(%x) : f32[4]
  %0 = where(%c, %x, %lx) : f32[4]
  return %0
}""", [f32(0.0, 1.0, 2.0, 0.0), torch.tensor([True, True, False, False])], lambda x, c: torch.where(c, x, torch.log(x)))
edge("clamp_bounds", ["bound", "inf", "nan"], "clamp(%a) {max=0.5, min=-0.5}",
     [f32(0.5, -0.5, 0.0, INF, -INF, NAN, 0.7)],
     lambda a: torch.clamp(a, -0.5, 0.5))
edge("clamp_min_bound", ["bound", "zero"], "clamp(%a) {min=0}", [f32(0.0, -0.0, 1.0, -1.0)],
     lambda a: torch.clamp(a, min=0))
edge("clamp_max_bound", ["bound"], "clamp(%a) {max=1}", [f32(1.0, 0.0, 2.0)], lambda a: torch.clamp(a, max=1))
edge("clamp_min_above_max", ["empty_range"], "clamp(%a) {max=0, min=1}", [f32(-1.0, 0.5, 2.0, 0.0, 1.0)],
     lambda a: torch.clamp(a, 1, 0))
edge("lerp_weight_ends", ["bound", "inf"], "lerp(%a, %b, %c)",
     [f32(1.0, 2.0, 0.0, 0.0), f32(3.0, -1.0, 1.0, INF), f32(0.0, 1.0, 0.5, 0.0)], torch.lerp)
edge("lerp_inf_self", ["inf"], "lerp(%a, %b, 0.5)", [f32(INF, -INF), f32(1.0, 1.0)], lambda a, b: torch.lerp(a, b, 0.5))
# A bool weight, or bool ends beside a float weight: kiln's type rules take them (torch wants one
# dtype, hence the casts in the references); the rule computes in the result's dtype.
BOOLS = torch.tensor([True, False, True, False])
edge("lerp_bool_weight", ["bool"], "lerp(%a, %b, %c)", [randn(4), randn(4), BOOLS],
     lambda a, b, w: torch.lerp(a, b, w.to(a.dtype)))
edge("lerp_bool_ends", ["bool"], "lerp(%a, %b, %c)", [BOOLS, BOOLS.logical_not(), randn(4)],
     lambda a, b, w: torch.lerp(a.to(w.dtype), b.to(w.dtype), w))
edge("addcmul_zero_inf", ["zero", "inf"], "addcmul(%a, %b, %c) {value=0.5}",
     [f32(1.0, 2.0, 3.0), f32(0.0, INF, 1.0), f32(INF, 0.0, 0.0)], lambda a, b, c: torch.addcmul(a, b, c, value=0.5))
edge("addcdiv_zero_divisor", ["pole", "zero"], "addcdiv(%a, %b, %c) {value=2}",
     [f32(1.0, 2.0, 3.0), f32(1.0, 0.0, 0.0), f32(0.0, 0.0, 2.0)], lambda a, b, c: torch.addcdiv(a, b, c, value=2))

# ---- reductions ----
ZEROS_ROWS = f32([[0.0, 2.0, 3.0], [0.0, 0.0, 3.0], [1.0, 2.0, 3.0], [0.0, -0.0, 0.0]])
edge("sum_empty_reduced", ["empty"], "sum(%a) {dim=[0]}", [randn(0, 3)], lambda a: torch.sum(a, dim=[0]))
edge("sum_inf", ["inf", "nan"], "sum(%a) {dim=[1]}", [f32([[INF, -INF], [NAN, 1.0]])], lambda a: torch.sum(a, dim=[1]))
edge("mean_empty_reduced", ["empty"], "mean(%a) {dim=[0]}", [randn(0, 3)], lambda a: torch.mean(a, dim=[0]))
edge("mean_inf", ["inf"], "mean(%a) {dim=[1], keepdim=true}", [f32([[INF, 1.0], [2.0, 1.0]])],
     lambda a: torch.mean(a, dim=[1], keepdim=True))
edge("prod_zeros", ["zero", "two_zeros"], "prod(%a) {dim=1}", [ZEROS_ROWS], lambda a: torch.prod(a, 1))
edge("prod_zeros_keepdim", ["zero", "two_zeros"], "prod(%a) {dim=0, keepdim=true}", [ZEROS_ROWS.t().contiguous()],
     lambda a: torch.prod(a, 0, keepdim=True))
edge("prod_all_one_zero", ["zero"], "prod(%a)", [f32([[2.0, 0.0], [3.0, -1.0]])], torch.prod)
edge("prod_all_two_zeros", ["two_zeros"], "prod(%a)", [f32([[2.0, 0.0], [0.0, -1.0]])], torch.prod)
edge("prod_empty_reduced", ["empty"], "prod(%a) {dim=0}", [randn(0, 3)], lambda a: torch.prod(a, 0))
# No zero beside an inf: PyTorch's gradient (exclusive cumulative products) is NaN there, and
# of a row without a zero it depends on whether another row holds one.
edge("prod_inf", ["inf"], "prod(%a) {dim=1}", [f32([[INF, 2.0], [INF, -1.0]])], lambda a: torch.prod(a, 1))
for name, fn in {"amax": torch.amax, "amin": torch.amin}.items():
    edge(f"{name}_ties", ["tie", "constant_row"], f"{name}(%a) {{dim=[1]}}",
         [f32([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [0.0, -0.0, 1.0, -1.0]])], lambda a, fn=fn: fn(a, dim=[1]))
    edge(f"{name}_inf_nan", ["inf", "nan"], f"{name}(%a) {{dim=[1]}}", [f32([[INF, -INF, 1.0], [NAN, 1.0, NAN]])],
         lambda a, fn=fn: fn(a, dim=[1]))
    edge(f"{name}_all_ties", ["tie"], f"{name}(%a)", [f32([[1.0, 1.0], [1.0, 0.0]])], lambda a, fn=fn: fn(a))
CONSTANT_ROWS = f32([[2.0, 2.0, 2.0], [1.0, 2.0, 4.0], [0.0, 0.0, 0.0]])
for name, fn in {"var": torch.var, "std": torch.std}.items():
    edge(f"{name}_constant_row", ["constant_row", "zero"], f"{name}(%a) {{dim=[1]}}", [CONSTANT_ROWS],
         lambda a, fn=fn: fn(a, dim=[1]))
    edge(f"{name}_constant_all", ["constant_row"], f"{name}(%a) {{correction=0}}", [f32([[3.0, 3.0], [3.0, 3.0]])],
         lambda a, fn=fn: fn(a, correction=0))
    edge(f"{name}_single_element", ["too_few_elements"], f"{name}(%a) {{dim=[1]}}", [f32([[1.0], [2.0]])],
         lambda a, fn=fn: fn(a, dim=[1]))
    edge(f"{name}_empty_reduced", ["empty"], f"{name}(%a) {{dim=[0]}}", [randn(0, 3)], lambda a, fn=fn: fn(a, dim=[0]))
    edge(f"{name}_inf", ["inf"], f"{name}(%a) {{dim=[1], correction=0}}", [f32([[INF, 1.0], [1.0, 1.0]])],
         lambda a, fn=fn: fn(a, dim=[1], correction=0))
edge("logsumexp_neg_inf", ["-inf", "all_-inf", "inf"], "logsumexp(%a) {dim=[1]}",
     [f32([[0.5, -INF, 1.0], [-INF, -INF, -INF], [INF, 1.0, 0.0]])], lambda a: torch.logsumexp(a, dim=[1]))
edge("logsumexp_empty_kept", ["empty"], "logsumexp(%a) {dim=[1]}", [randn(0, 3)], lambda a: torch.logsumexp(a, dim=[1]))
edge("cumsum_zeros_inf", ["zero", "inf", "empty"], "cumsum(%a) {dim=1}", [f32([[0.0, 0.0, INF], [1.0, -INF, 0.0]])],
     lambda a: torch.cumsum(a, 1))
edge("cumsum_empty", ["empty"], "cumsum(%a) {dim=0}", [randn(0, 3)], lambda a: torch.cumsum(a, 0))

# topk and sort: each value's gradient goes to the element it came from. Ties only for sort
# (stable in torch too); torch's CPU topk picks among tied elements by its selection algorithm.
# Both hold a NaN, whose place ONNX's TopK leaves open (cases_sort.py's NAN_ORDER): not compared
# in ONNX Runtime.
NAN_ORDER = "ONNX's TopK leaves NaN's place open; ONNX Runtime orders NaN below inf (docs/ONNX.md)"
edge_graph("topk_inf_nan", "topk", ["inf", "nan", "-inf"], """graph @g(%a: f32[2,5]) -> (f32[2,3]) {
  %0, %1 = topk(%a) {k=3} : (f32[2,3], i64[2,3])
  return %0
}""", [f32([[INF, 1.0, NAN, -INF, 0.5], [-INF, 2.0, 0.0, 3.0, INF]])], lambda a: torch.topk(a, 3).values,
           onnx_skip=NAN_ORDER)
edge_graph("topk_smallest_k0", "topk", ["empty"], """graph @g(%a: f32[3,4]) -> (f32[3,0]) {
  %0, %1 = topk(%a) {k=0, largest=false} : (f32[3,0], i64[3,0])
  return %0
}""", [randn(3, 4)], lambda a: torch.topk(a, 0, largest=False).values)
edge_graph("sort_ties_nan", "sort", ["tie", "nan", "inf"], """graph @g(%a: f32[2,5]) -> (f32[2,5]) {
  %0, %1 = sort(%a) {descending=true} : (f32[2,5], i64[2,5])
  return %0
}""", [f32([[1.0, 3.0, 3.0, NAN, 3.0], [2.0, INF, 2.0, -INF, 2.0]])],
           lambda a: torch.sort(a, descending=True, stable=True).values, onnx_skip=NAN_ORDER)

# ---- matrix products ----
edge("mm_empty_inner", ["empty"], "mm(%a, %b)", [randn(3, 0), randn(0, 2)], torch.mm)
edge("mm_zero_inf", ["zero", "inf"], "mm(%a, %b)", [f32([[0.0, 1.0], [INF, 0.0]]), f32([[INF, 0.0], [1.0, 2.0]])],
     torch.mm)
edge("bmm_empty_batch", ["empty"], "bmm(%a, %b)", [randn(0, 2, 3), randn(0, 3, 4)], torch.bmm)
edge("bmm_zeros", ["zero"], "bmm(%a, %b)", [torch.zeros(2, 2, 3), randn(2, 3, 2)], torch.bmm)
edge("matmul_dot_zero", ["zero", "vector"], "matmul(%a, %b)", [f32(0.0, 0.0, 1.0), f32(INF, 1.0, 0.0)], torch.matmul)
edge("matmul_vector_empty", ["empty", "vector"], "matmul(%a, %b)", [randn(0), randn(0, 3)], torch.matmul)
edge("addmm_beta_zero", ["zero", "nan"], "addmm(%a, %b, %c) {alpha=0, beta=0}",
     [randn(2, 2), randn(2, 3), randn(3, 2)], lambda a, b, c: torch.addmm(a, b, c, beta=0, alpha=0))
edge("addmm_empty_inner", ["empty"], "addmm(%a, %b, %c)", [randn(2, 2), randn(2, 0), randn(0, 2)], torch.addmm)
edge("linear_empty_batch", ["empty"], "linear(%a, %b, %c)", [randn(0, 3), randn(2, 3), randn(2)], F.linear)
edge("linear_zero_weight", ["zero"], "linear(%a, %b, none)", [randn(4, 3), torch.zeros(2, 3)], F.linear)
edge("linear_no_out_features", ["empty"], "linear(%a, %b, none)", [randn(2, 3), randn(0, 3)], F.linear)
edge("linear_no_in_features", ["empty"], "linear(%a, %b, %c)", [randn(2, 0), randn(4, 0), randn(4)], F.linear)
edge("linear_vector_weight_empty", ["empty", "vector"], "linear(%a, %b, none)", [randn(2, 0), randn(0)], F.linear)
edge("baddbmm_beta_zero", ["zero"], "baddbmm(%a, %b, %c) {alpha=2, beta=0}",
     [randn(2, 2, 2), randn(2, 2, 3), randn(2, 3, 2)],
     lambda a, b, c: torch.baddbmm(a, b, c, beta=0, alpha=2))

# ---- views and layout ----
edge("reshape_empty", ["empty"], "reshape(%a) {shape=[2, 0, 3]}", [randn(0, 6)], lambda a: a.reshape(2, 0, 3))
edge("view_size_one", ["size_one"], "view(%a) {size=[1, 3, 1]}", [randn(3)], lambda a: a.view(1, 3, 1))
edge("permute_size_one", ["size_one"], "permute(%a) {dims=[2, 0, 1]}", [randn(1, 3, 1)], lambda a: a.permute(2, 0, 1))
edge("transpose_empty", ["empty"], "transpose(%a) {dim0=0, dim1=1}", [randn(0, 3)], lambda a: a.transpose(0, 1))
edge("t_vector", ["vector"], "t(%a)", [randn(3)], lambda a: a.t())
edge("expand_from_one", ["size_one", "broadcast"], "expand(%a) {size=[2, 3, 4]}", [randn(3, 1)],
     lambda a: a.expand(2, 3, 4))
edge("expand_to_empty", ["empty"], "expand(%a) {size=[0, 3]}", [randn(1, 3)], lambda a: a.expand(0, 3))
edge("squeeze_not_one", ["size_one"], "squeeze(%a) {dim=[0, 1]}", [randn(1, 3)], lambda a: a.squeeze((0, 1)))
edge("unsqueeze_empty", ["empty"], "unsqueeze(%a) {dim=-1}", [randn(0, 2)], lambda a: a.unsqueeze(-1))
edge("flatten_scalar", ["scalar"], "flatten(%a)", [f32(2.0)], lambda a: a.flatten())
edge("slice_out_of_range", ["out_of_range_bounds", "step"], "slice(%a) {dim=1, end=100, start=-100, step=3}",
     [randn(2, 7)], lambda a: a[:, -100:100:3])
edge("slice_empty", ["empty"], "slice(%a) {dim=0, end=1, start=3}", [randn(4, 2)], lambda a: a[3:1])
edge("select_negative", ["negative_index"], "select(%a) {dim=1, index=-1}", [randn(2, 3)], lambda a: a.select(1, -1))
edge("narrow_empty", ["empty"], "narrow(%a) {dim=0, length=0, start=2}", [randn(4, 2)], lambda a: a.narrow(0, 2, 0))
edge_graph("split_uneven", "split", ["uneven"], """graph @g(%a: f32[7,2]) -> (f32[3,2], f32[1,2]) {
  %0, %1, %2 = split(%a) {dim=0, split_size=3} : (f32[3,2], f32[3,2], f32[1,2])
  return %0, %2
}""", [randn(7, 2)], lambda a: (a.split(3, 0)[0], a.split(3, 0)[2]))
edge_graph("split_empty", "split", ["empty"], """graph @g(%a: f32[0,2]) -> (f32[0,2]) {
  %0 = split(%a) {dim=0, split_size=2} : (f32[0,2])
  return %0
}""", [randn(0, 2)], lambda a: a.split(2, 0)[0])
edge_graph("chunk_more_than_size", "chunk", ["uneven"], """graph @g(%a: f32[3,2]) -> (f32[1,2], f32[1,2]) {
  %0, %1, %2 = chunk(%a) {chunks=5} : (f32[1,2], f32[1,2], f32[1,2])
  return %0, %2
}""", [randn(3, 2)], lambda a: (a.chunk(5)[0], a.chunk(5)[2]))
edge("as_strided_overlap", ["overlap", "repeated_index"], "as_strided(%a) {size=[3, 3], stride=[1, 1]}", [randn(6)],
     lambda a: a.as_strided((3, 3), (1, 1)))
edge("slice_scatter_all", ["overwrite_all"], "slice_scatter(%a, %b) {dim=0}", [randn(3, 2), randn(3, 2)],
     lambda a, b: a.slice_scatter(b, 0))
edge("slice_scatter_empty", ["empty"], "slice_scatter(%a, %b) {dim=1, end=2, start=2}", [randn(3, 4), randn(3, 0)],
     lambda a, b: a.slice_scatter(b, 1, 2, 2))
edge("select_scatter_negative", ["negative_index"], "select_scatter(%a, %b) {dim=1, index=-1}", [randn(2, 3), randn(2)],
     lambda a, b: a.select_scatter(b, 1, -1))
edge("as_strided_scatter_all", ["overwrite_all"], "as_strided_scatter(%a, %b) {size=[2, 2], stride=[2, 1]}",
     [randn(2, 2), randn(2, 2)], lambda a, b: a.as_strided_scatter(b, (2, 2), (2, 1)))
edge("cat_empty_operand", ["empty"], "cat(%a, %b, %c) {dim=0}", [randn(2, 3), randn(0, 3), randn(0)],
     lambda a, b, c: torch.cat([a, b, c], 0))
edge("stack_one", ["size_one"], "stack(%a) {dim=1}", [randn(2, 3)], lambda a: torch.stack([a], 1))
edge("constant_pad_nd_crop", ["negative_pad"], "constant_pad_nd(%a) {pad=[-1, 2, 1, -2], value=inf}", [randn(4, 3)],
     lambda a: F.pad(a, [-1, 2, 1, -2], value=INF))
edge("flip_size_one", ["size_one", "empty"], "flip(%a) {dims=[0, 1]}", [randn(1, 0)], lambda a: a.flip(0, 1))
edge("roll_past_size", ["out_of_range_bounds"], "roll(%a) {dims=[0, 1], shifts=[-7, 5]}", [randn(3, 2)],
     lambda a: a.roll((-7, 5), (0, 1)))
edge("repeat_zero", ["empty", "broadcast"], "repeat(%a) {repeats=[2, 0, 1]}", [randn(2, 3)],
     lambda a: a.repeat(2, 0, 1))
edge("tril_beyond", ["out_of_range_bounds"], "tril(%a) {diagonal=-5}", [randn(3, 4)], lambda a: a.tril(-5))
edge("triu_beyond", ["out_of_range_bounds"], "triu(%a) {diagonal=4}", [randn(3, 4)], lambda a: a.triu(4))

# ---- indexing ----
REPEATED = torch.tensor([2, 0, 2, 2])
edge("index_select_repeated", ["repeated_index"], "index_select(%a, %b) {dim=0}", [randn(3, 2), REPEATED],
     lambda a, i: a.index_select(0, i))
edge("gather_repeated", ["repeated_index"], "gather(%a, %b) {dim=1}",
     [randn(2, 3), torch.tensor([[1, 1, 1], [0, 2, 0]])],
     lambda a, i: a.gather(1, i))
edge("scatter_repeated", ["repeated_index", "overwrite"], "scatter(%a, %b, %c) {dim=0}",
     [randn(3), torch.tensor([1, 1]), f32(5.0, 5.0)], lambda a, i, s: a.scatter(0, i, s))
edge("scatter_add_repeated", ["repeated_index"], "scatter_add(%a, %b, %c) {dim=1}",
     [randn(2, 3), torch.tensor([[0, 0, 0], [2, 1, 2]]), randn(2, 3)], lambda a, i, s: a.scatter_add(1, i, s))
edge("index_repeated", ["repeated_index", "negative_index"], "index(%a, %b)",
     [randn(4, 2), torch.tensor([1, -3, 1, 3])],
     lambda a, i: a[i])
edge("index_put_repeated", ["repeated_index", "overwrite"], "index_put(%a, %b, %c)",
     [randn(4), torch.tensor([1, 1, 3]), f32(2.0, 2.0, 1.0)], lambda a, i, v: a.index_put((i,), v))
edge("index_put_accumulate_repeated", ["repeated_index"], "index_put(%a, %b, %c) {accumulate=true}",
     [randn(4, 2), torch.tensor([0, 0, 3]), randn(2)], lambda a, i, v: a.index_put((i,), v, accumulate=True))
edge("index_add_repeated", ["repeated_index"], "index_add(%a, %b, %c) {alpha=-1, dim=0}",
     [randn(3, 2), torch.tensor([1, 1, 1]), randn(3, 2)], lambda a, i, s: a.index_add(0, i, s, alpha=-1))
edge("masked_fill_all", ["all_masked", "nan"], "masked_fill(%a, %b, nan)",
     [randn(2, 3), torch.ones(2, 3, dtype=torch.bool)],
     lambda a, m: a.masked_fill(m, NAN))
edge("masked_fill_tensor_none", ["none_masked"], "masked_fill(%a, %b, %c)",
     [randn(2, 3), torch.zeros(3, dtype=torch.bool), f32(INF)], lambda a, m, v: a.masked_fill(m, v))
edge("embedding_repeated_padding", ["repeated_index", "padding_idx"], "embedding(%a, %b) {padding_idx=1}",
     [randn(4, 3), torch.tensor([[1, 2, 2], [2, 1, 0]])], lambda w, i: F.embedding(i, w, padding_idx=1))
edge("embedding_empty_rows", ["empty"], "embedding(%a, %b)", [randn(3, 0), torch.tensor([[0, 2], [1, 1]])],
     lambda w, i: F.embedding(i, w))

# ---- softmax and normalization ----
NEG_INF_ROWS = f32([[0.5, -INF, 1.0], [-INF, -INF, -INF], [-INF, 2.0, -INF]])
edge("softmax_neg_inf", ["-inf", "all_-inf"], "softmax(%a) {dim=1}", [NEG_INF_ROWS], lambda a: torch.softmax(a, 1))
edge("softmax_empty", ["empty"], "softmax(%a) {dim=0}", [randn(0, 3)], lambda a: torch.softmax(a, 0))
edge("log_softmax_neg_inf", ["-inf", "all_-inf"], "log_softmax(%a) {dim=1}", [NEG_INF_ROWS],
     lambda a: torch.log_softmax(a, 1))
edge("log_softmax_saturation", ["saturation"], "log_softmax(%a) {dim=0}", [f32(40.0, -40.0, 0.0)],
     lambda a: torch.log_softmax(a, 0))
CONSTANT_X = f32([[[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]], [[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0]]])
edge("layer_norm_constant_row", ["constant_row", "zero_variance"], "layer_norm(%a, %b, %c) {normalized_shape=[4]}",
     [CONSTANT_X, randn(4), randn(4)], lambda x, w, b: F.layer_norm(x, [4], w, b))
edge("rms_norm_zero_row", ["zero", "constant_row"], "rms_norm(%a, %b) {normalized_shape=[4]}", [CONSTANT_X, randn(4)],
     lambda x, w: F.rms_norm(x, [4], w))
# As group_norm's below: PyTorch's float32 mean of the constant channel is off by an ulp, which
# the rsqrt(eps) of zero variance scales (by the weight: 3.3 with this draw) to 4e-5 in an output
# that is exactly the bias (kiln's is: -1.1886794567108154 against PyTorch's -1.188720703125).
edge("batch_norm_constant_channel", ["constant_row", "zero_variance"],
     "batch_norm(%a, %b, %c, none, none) {training=true}",
     [f32([[[1.0, 1.0, 1.0], [0.0, 1.0, 2.0]], [[1.0, 1.0, 1.0], [3.0, 1.0, 2.0]]]), randn(2), randn(2)],
     lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), atol=1e-4)
edge("batch_norm_eval_zero_variance", ["zero_variance"], "batch_norm(%a, %b, %c, %d, %e) {eps=0.01}",
     [randn(3, 2), randn(2), randn(2), randn(2), torch.zeros(2)],
     lambda x, w, b, m, v: F.batch_norm(x, m.detach(), v.detach(), w, b, eps=0.01))
# PyTorch's float32 group statistics of a constant group are off by an ulp, which the
# rsqrt(eps) of zero variance scales to about 1e-5 in the output.
edge("group_norm_constant_group", ["constant_row", "zero_variance"], "group_norm(%a, %b, %c) {num_groups=2}",
     [CONSTANT_X.reshape(2, 4, 2), randn(4), randn(4)], lambda x, w, b: F.group_norm(x, 2, w, b), atol=1e-4)
edge("group_norm_empty_batch", ["empty"], "group_norm(%a, %b, %c) {num_groups=2}", [randn(0, 4, 3), randn(4), randn(4)],
     lambda x, w, b: F.group_norm(x, 2, w, b))
# One value in several operand slots: its gradient is the sum over its uses, counted once.
edge("rms_norm_weight_is_input", ["repeated_operand"], "rms_norm(%a, %a) {normalized_shape=[4]}", [randn(4)],
     lambda x: F.rms_norm(x, [4], x))
edge("layer_norm_affine_is_input", ["repeated_operand"], "layer_norm(%a, %a, %a) {normalized_shape=[4]}", [randn(4)],
     lambda x: F.layer_norm(x, [4], x, x))

# ---- losses ----
TARGET = torch.tensor([1, 0, 4, 1])
ALL_IGNORED = torch.tensor([-100, -100, -100, -100])
edge("nll_loss_all_ignored", ["all_ignored"], "nll_loss(%a, %b)", [randn(4, 5), ALL_IGNORED], F.nll_loss)
edge("nll_loss_weight_ignore", ["ignore_index", "weight"], "nll_loss(%a, %b, %c) {ignore_index=1}",
     [randn(4, 5), TARGET, torch.rand(5)], lambda x, t, w: F.nll_loss(x, t, w.detach(), ignore_index=1))
edge("nll_loss_zero_weight", ["zero", "weight"], "nll_loss(%a, %b, %c) {reduction=\"sum\"}",
     [randn(4, 5), TARGET, torch.zeros(5)], lambda x, t, w: F.nll_loss(x, t, w.detach(), reduction="sum"))
edge("cross_entropy_all_ignored", ["all_ignored"], "cross_entropy(%a, %b)", [randn(4, 5), ALL_IGNORED], F.cross_entropy)
edge("cross_entropy_all_ignored_smooth", ["all_ignored", "label_smoothing"],
     "cross_entropy(%a, %b) {label_smoothing=0.3}",
     [randn(4, 5), ALL_IGNORED], lambda x, t: F.cross_entropy(x, t, label_smoothing=0.3))
edge("cross_entropy_smooth_weight_ignore", ["label_smoothing", "ignore_index", "weight"],
     "cross_entropy(%a, %b, %c) {ignore_index=0, label_smoothing=0.2}", [randn(4, 5), TARGET, torch.rand(5)],
     lambda x, t, w: F.cross_entropy(x, t, w.detach(), ignore_index=0, label_smoothing=0.2))
edge("cross_entropy_full_smoothing", ["label_smoothing", "bound"], "cross_entropy(%a, %b, none) {label_smoothing=1.0, "
     "reduction=\"sum\"}", [randn(3, 4), torch.tensor([0, 3, 3])],
     lambda x, t: F.cross_entropy(x, t, reduction="sum", label_smoothing=1.0))
edge("cross_entropy_neg_inf_logit", ["-inf"], "cross_entropy(%a, %b)", [f32([[-INF, 0.0, 1.0], [2.0, -INF, 0.0]]),
     torch.tensor([1, 0])], F.cross_entropy)
edge("cross_entropy_probs_zero", ["zero", "label_smoothing"], "cross_entropy(%a, %b) {label_smoothing=0.1}",
     [randn(2, 3), f32([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])], lambda x, p: F.cross_entropy(x, p, label_smoothing=0.1))
edge("mse_loss_zero", ["zero", "kink"], "mse_loss(%a, %b)", [f32(1.0, 2.0, INF), f32(1.0, 2.0, 1.0)], F.mse_loss)

# Losses kiln composes from ops, at their kinks: PyTorch's own losses as the references.
L1 = """graph @g(%x: f32[4], %y: f32[4]) -> (f32[]) {
  %d = sub(%x, %y) : f32[4]
  %e = abs(%d) : f32[4]
  %0 = mean(%e) : f32[]
  return %0
}"""
edge_graph("l1_loss_kink", "abs", ["kink", "zero"], L1, [f32(1.0, 2.0, -1.0, 0.5), f32(1.0, 0.0, -1.0, 0.0)], F.l1_loss)


def quadratic_then_linear_loss(threshold, quad_scale, linear_scale):
    """mean(where(|d| < threshold, quad_scale d^2, linear_scale (|d| - threshold / 2))) with
    d = x - y over [5]: smooth_l1 (beta = threshold) and huber (delta = threshold) as kiln
    composes them."""
    return f"""graph @g(%x: f32[5], %y: f32[5]) -> (f32[]) {{
  %d = sub(%x, %y) : f32[5]
  %e = abs(%d) : f32[5]
  %near = lt(%e, {threshold}) : bool[5]
  %sq = mul(%d, %d) : f32[5]
  %quad = mul(%sq, {quad_scale}) : f32[5]
  %excess = sub(%e, {threshold / 2}) : f32[5]
  %lin = mul(%excess, {linear_scale}) : f32[5]
  %l = where(%near, %quad, %lin) : f32[5]
  %0 = mean(%l) : f32[]
  return %0
}}"""


AT_THRESHOLD, TARGETS = [f32(0.5, -0.5, 0.0, 2.0, 1.25), f32(0.0, 0.0, 0.0, 0.0, 1.0)]
edge_graph("smooth_l1_loss_threshold", "where", ["kink", "threshold"], quadratic_then_linear_loss(0.5, 1.0, 1.0),
           [AT_THRESHOLD, TARGETS], lambda x, y: F.smooth_l1_loss(x, y, beta=0.5))
edge_graph("huber_loss_threshold", "where", ["kink", "threshold"], quadratic_then_linear_loss(0.5, 0.5, 0.5),
           [AT_THRESHOLD, TARGETS], lambda x, y: F.huber_loss(x, y, delta=0.5))

# ---- nn ----
edge("conv2d_zeros", ["zero", "padding"], "conv2d(%a, %b, %c) {padding=[1]}",
     [torch.zeros(1, 1, 3, 3), randn(2, 1, 2, 2), randn(2)], lambda x, w, b: F.conv2d(x, w, b, padding=1))
edge("max_pool2d_ties", ["tie", "constant_row"], "max_pool2d(%a) {kernel_size=[2], stride=[1]}",
     [torch.ones(1, 1, 3, 3)], lambda x: F.max_pool2d(x, 2, 1))
edge("max_pool2d_inf_nan", ["inf", "nan", "-inf"], "max_pool2d(%a) {kernel_size=[2]}",
     [f32([[[INF, INF, -INF, -INF], [1.0, NAN, -INF, -INF]]])], lambda x: F.max_pool2d(x, 2))
edge("avg_pool2d_padded_inf", ["padding", "inf"], "avg_pool2d(%a) {kernel_size=[3], padding=[1], stride=[2]}",
     [f32([[[INF, 1.0], [0.0, 2.0]]])], lambda x: F.avg_pool2d(x, 3, 2, 1))
edge("upsample_bilinear2d_edges", ["bound", "size_one", "repeated_index"],
     "upsample_bilinear2d(%a) {align_corners=false, output_size=[5, 1]}", [randn(1, 2, 3, 4)],
     lambda x: F.interpolate(x, size=(5, 1), mode="bilinear"))
edge("upsample_bilinear2d_corners_down", ["bound", "overlap"],
     "upsample_bilinear2d(%a) {align_corners=true, output_size=none, scales_h=0.5, scales_w=2.5}", [randn(2, 1, 5, 2)],
     lambda x: F.interpolate(x, scale_factor=(0.5, 2.5), mode="bilinear", align_corners=True))
edge("adaptive_avg_pool2d_overlap", ["overlap", "size_one"], "adaptive_avg_pool2d(%a) {output_size=[3, 1]}",
     [randn(1, 2, 2)], lambda x: F.adaptive_avg_pool2d(x, (3, 1)))
edge("dropout_p_one", ["bound", "all_masked"], "dropout(%a) {p=1.0, train=true}", [randn(3, 4)],
     lambda x: F.dropout(x, 1.0, training=True),
     onnx_skip="kiln export writes an eval-mode model by default, where dropout is the identity (docs/ONNX.md)")
edge("dropout_p_zero", ["bound"], "dropout(%a) {p=0.0, train=true}", [f32(INF, NAN, 1.0)],
     lambda x: F.dropout(x, 0.0, training=True))
edge("sdpa_fully_masked_row", ["all_masked", "-inf"], "scaled_dot_product_attention(%a, %b, %c, %d)",
     [randn(1, 2, 3), randn(1, 2, 3), randn(1, 2, 3), torch.tensor([[True, False], [False, False]])],
     lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m))
edge("sdpa_neg_inf_float_mask", ["-inf", "all_masked"], "scaled_dot_product_attention(%a, %b, %c, %d)",
     [randn(1, 2, 3), randn(1, 2, 3), randn(1, 2, 3), f32([[0.0, -INF], [-INF, -INF]])],
     lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m))
edge("sdpa_key_is_value", ["repeated_operand"], "scaled_dot_product_attention(%a, %b, %b, none)",
     [randn(1, 2, 3), randn(1, 4, 3)], lambda q, k: F.scaled_dot_product_attention(q, k, k))

# ---- higher-order ops: the edge is inside a body ----
COND_SQRT = """graph @g(%p: bool[], %x: f32[3]) -> (f32[3]) {
  %0 = cond(%p, %x) : f32[3] {
    true_fn = graph(%a: f32[3]) -> (f32[3]) {
      %0 = sqrt(%a) : f32[3]
      return %0
    }
    false_fn = graph(%a: f32[3]) -> (f32[3]) {
      %0 = abs(%a) : f32[3]
      return %0
    }
  }
  return %0
}"""
edge_graph("cond_sqrt_not_taken", "cond", ["nan_not_taken", "zero"], COND_SQRT,
           [torch.tensor(False), f32(0.0, -1.0, 2.0)],
           lambda p, x: torch.sqrt(x) if p else torch.abs(x))
SCAN_PROD = """graph @g(%init: f32[2], %xs: f32[3,2]) -> (f32[2], f32[3,2]) {
  %0, %1 = scan(%init, %xs) {num_init=1} : (f32[2], f32[3,2]) {
    combine_fn = graph(%c: f32[2], %x: f32[2]) -> (f32[2], f32[2]) {
      %0 = mul(%c, %x) : f32[2]
      return %0, %0
    }
  }
  return %0, %1
}"""


def scan_prod_ref(init, xs):
    ys, c = [], init
    for x in xs:
        c = c * x
        ys.append(c)
    return c, torch.stack(ys)


edge_graph("scan_product_with_zeros", "scan", ["zero", "two_zeros"], SCAN_PROD,
           [f32(1.0, 2.0), f32([[0.0, 3.0], [2.0, 0.0],
           [4.0, 0.0]])], scan_prod_ref)
MAP_ABS = """graph @g(%xs: f32[3,2]) -> (f32[3,2]) {
  %0 = map(%xs) {num_mapped=1} : f32[3,2] {
    body_fn = graph(%x: f32[2]) -> (f32[2]) {
      %0 = abs(%x) : f32[2]
      return %0
    }
  }
  return %0
}"""
edge_graph("map_abs_zero", "map", ["zero", "neg_zero"], MAP_ABS, [f32([[0.0, -0.0], [1.0, -1.0], [0.0, 2.0]])],
           lambda xs: torch.stack([x.abs() for x in xs]))


# ---- normalizations at a huge variance (last: their draws shift no other case's inputs) ----
# A variance past about 1e205 (float64): differentiating rsqrt took rstd cubed, which underflowed to 0
# and lost the statistics' part of the gradient (fuzz-graphs --grad, seed 4506010). The rows are
# scaled inside the graph, so the gradients with respect to %a are of order 1.
def huge_rows(op, call, ref, extra_inputs):
    operands = "".join(f", %{n}" for n in "bc"[:len(extra_inputs)])
    types = "".join(f", %{n}: f64[4]" for n in "bc"[:len(extra_inputs)])
    edge_graph(f"{op}_huge_variance", op, ["overflow"], f"""graph @g(%a: f64[2,4]{types}) -> (f64[2,4]) {{
  %0 = mul(%a, 1e+110) : f64[2,4]
  %1 = {call.format(operands=operands)} : f64[2,4]
  return %1
}}""", [torch.tensor([[1.0, -3.0, 0.5, 2.0], [0.25, 1.0, -4.0, 3.0]], dtype=torch.float64)] + extra_inputs,
               lambda a, *p: ref(a * 1e110, *p))


huge_rows("layer_norm", "layer_norm(%0{operands}) {{normalized_shape=[4]}}", lambda x, w, b: F.layer_norm(x, [4], w, b),
          [randn(4).double(), randn(4).double()])
# PyTorch's rms_norm is composite (autograd through rsqrt): its gradient here underflows as kiln's
# did, so the reference is the same rows unscaled (rms_norm is scale-invariant up to eps, which is
# 1e-220 of these rows' mean square).
huge_rows("rms_norm", "rms_norm(%0{operands}) {{normalized_shape=[4]}}",
          lambda x, w: F.rms_norm(x / 1e110, [4], w, eps=1e-300), [randn(4).double()])
