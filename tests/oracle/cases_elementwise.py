"""Oracle cases for the elementwise ops (unary, binary, three-operand), _to_copy, clone,
contiguous and the in-place ops: broadcasting, promotion across dtypes, inline scalars,
empty tensors, edge values (NaN, inf, -0.0, integer overflow, division by zero) and
non-contiguous operands made by a transpose node inside the graph."""
import torch
import torch.nn.functional as F

from oracle_case import Case, randn, randint, rand_bool
from single_op import KIR_DTYPES, TRANSPOSE_A, SingleOpCases, single_op
from torch_refusals import ReferenceOrEquivalent

NAN, INF = float("nan"), float("inf")
EDGE = lambda: torch.tensor([0.0, -0.0, NAN, INF, -INF, 1.5, -2.5, 0.5, 3.0, -1e-3])
LOW = dict(rtol=1e-2, atol=1e-2)  # f16/bf16 results: PyTorch computes in float, kiln in double
CASES = SingleOpCases()
add, add_error = CASES.add, CASES.add_error
# A reference wrapped in ReferenceOrEquivalent converts a scalar outside an integer dtype's range,
# which PyTorch 2.11 (the GPU machine's) refuses: there its explicit equivalent computes it
# (torch_refusals.py; test_torch_refusals.py checks each against PyTorch's own reference).


# ---- unary ----
FLOAT_UNARY = {"exp": torch.exp, "log": torch.log, "log1p": torch.log1p, "expm1": torch.expm1, "sqrt": torch.sqrt,
               "rsqrt": torch.rsqrt, "reciprocal": torch.reciprocal, "sin": torch.sin, "cos": torch.cos,
               "tan": torch.tan, "atan": torch.atan, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "erf": torch.erf}
FLOAT_ONLY = {"gelu": F.gelu, "silu": F.silu, "leaky_relu": F.leaky_relu, "softplus": F.softplus, "elu": F.elu}
SAME = {"neg": torch.neg, "abs": torch.abs, "relu": torch.relu, "sign": torch.sign, "floor": torch.floor,
        "ceil": torch.ceil, "round": torch.round, "trunc": torch.trunc, "hardtanh": F.hardtanh}
PREDICATES = {"logical_not": torch.logical_not, "isnan": torch.isnan, "isinf": torch.isinf,
              "isfinite": torch.isfinite}

# PyTorch's vectorized float32 gelu gives nan at +inf, where the function (and PyTorch's own
# float64 kernel) gives inf; kiln gives inf, so that edge case is checked against float64.
# The gradient of elu at NaN depends on which of PyTorch's vectorized kernels the CPU runs (the
# incoming gradient with AVX2, NaN with AVX-512); kiln gives NaN, so that edge case is checked
# against elu written with where and expm1, whose gradient at NaN is NaN on every CPU (the inner
# where keeps expm1's gradient finite at +inf).
EDGE_REF = {"gelu": lambda a: F.gelu(a.double()).float(),
            "elu": lambda a: torch.where(a > 0, a, torch.expm1(torch.where(a > 0, 0.0, a)))}

for name, fn in {**FLOAT_UNARY, **FLOAT_ONLY, **SAME, **PREDICATES}.items():
    add(f"{name}_f32", f"{name}(%a)", [randn(3, 4)], fn)
    add(f"{name}_edge", f"{name}(%a)", [EDGE()], EDGE_REF.get(name, fn))
    add(f"{name}_f64", f"{name}(%a)", [randn(5, dtype=torch.float64)], fn)
    add(f"{name}_bf16", f"{name}(%a)", [randn(6, dtype=torch.bfloat16)], fn, **LOW)
    add(f"{name}_f16", f"{name}(%a)", [randn(6, dtype=torch.float16)], fn, **LOW)
    add(f"{name}_empty", f"{name}(%t)", [randn(3, 0)], lambda a, fn=fn: fn(a.t()), pre=TRANSPOSE_A)
    add(f"{name}_transposed", f"{name}(%t)", [randn(3, 4)], lambda a, fn=fn: fn(a.t()), pre=TRANSPOSE_A)
    if name not in FLOAT_ONLY:
        add(f"{name}_i32", f"{name}(%a)", [randint(-5, 6, 7, dtype=torch.int32)], fn)
    if name in FLOAT_UNARY or name in PREDICATES or name == "sign":
        add(f"{name}_bool", f"{name}(%a)", [rand_bool(5)], fn)

add("neg_i8_overflow", "neg(%a)", [torch.tensor([-128, 127, 0], dtype=torch.int8)], torch.neg)
add("abs_i8_overflow", "abs(%a)", [torch.tensor([-128, -5, 3], dtype=torch.int8)], torch.abs)
add("gelu_tanh", 'gelu(%a) {approximate="tanh"}', [randn(4, 5)], lambda a: F.gelu(a, approximate="tanh"))
add("round_decimals", "round(%a) {decimals=2}", [randn(10, dtype=torch.float64) * 10],
    lambda a: torch.round(a, decimals=2))
add("round_half_even", "round(%a)", [torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5])], torch.round)
add("softplus_threshold", "softplus(%a) {beta=2, threshold=3}", [randn(8) * 4],
    lambda a: F.softplus(a, beta=2, threshold=3))
add("leaky_relu_slope", "leaky_relu(%a) {negative_slope=0.2}", [randn(8)], lambda a: F.leaky_relu(a, 0.2))
add("elu_params", "elu(%a) {alpha=0.5, input_scale=2, scale=1.5}", [randn(8)],
    lambda a: torch.ops.aten.elu(a, 0.5, 1.5, 2))
add("hardtanh_bounds", "hardtanh(%a) {max_val=0.5, min_val=-0.25}", [EDGE()], lambda a: F.hardtanh(a, -0.25, 0.5))
# A NaN bound makes every element NaN, as clamp's (found by the random-graph fuzzer: the
# reference kernel ignored it, the compiled clamp did not).
add("hardtanh_nan_bound", "hardtanh(%a) {max_val=-2.5, min_val=nan}", [EDGE()],
    lambda a: F.hardtanh(a, float("nan"), -2.5))
# sigmoid's f32 tail (docs/CUDA_CODEGEN.md, "sigmoid of f32 results"): results down to 2^-126 held
# to rtol 1e-5 (the default atol would pass anything below 1e-6, x < -13.8), the CUDA form's
# subnormal results (x < -87.3, within one ulp of its quotient) and its 0 where expf(-x) overflows
# (x < -88.7, the true value below 3e-39) inside atol 1e-38; the reference in float64.
add("sigmoid_f32_tail", "sigmoid(%a)", [torch.linspace(-104.0, 20.0, 4097)],
    lambda a: torch.sigmoid(a.double()).float(), atol=1e-38,
    onnx_skip="ONNX Runtime's f32 Sigmoid is an approximation: 1.2% off near x = -11.6 (9.507e-06 for 9.396e-06)")
add("bitwise_not_i16", "bitwise_not(%a)", [randint(-100, 100, 6, dtype=torch.int16)], torch.bitwise_not)
add("bitwise_not_u8", "bitwise_not(%a)", [randint(0, 255, 6, dtype=torch.uint8)], torch.bitwise_not)
add("bitwise_not_bool", "bitwise_not(%a)", [rand_bool(6)], torch.bitwise_not)
add_error("neg_bool", "neg(%a)", [rand_bool(3)], "bool[3]", "neg: not supported for bool tensors")
add_error("gelu_int", "gelu(%a)", [randint(0, 5, 3)], "i64[3]", "not implemented")

# ---- binary ----
ARITH = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "maximum": torch.maximum,
         "minimum": torch.minimum, "atan2": torch.atan2, "remainder": torch.remainder, "fmod": torch.fmod,
         "pow": torch.pow}
COMPARE = {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt, "ge": torch.ge,
           "logical_and": torch.logical_and, "logical_or": torch.logical_or, "logical_xor": torch.logical_xor}
BITWISE = {"bitwise_and": torch.bitwise_and, "bitwise_or": torch.bitwise_or, "bitwise_xor": torch.bitwise_xor}
TENSOR_ONLY = ("maximum", "minimum", "atan2", "logical_and", "logical_or", "logical_xor")  # no Scalar in schema
SHIFTS = {"bitwise_left_shift": torch.bitwise_left_shift, "bitwise_right_shift": torch.bitwise_right_shift}

for name, fn in {**ARITH, **COMPARE}.items():
    add(f"{name}_broadcast", f"{name}(%a, %b)", [randn(3, 4), randn(4)], fn)
    add(f"{name}_edge", f"{name}(%a, %b)", [EDGE(), EDGE().flip(0)], fn)
    add(f"{name}_f64_f32", f"{name}(%a, %b)", [randn(2, 3, dtype=torch.float64), randn(3)], fn)
    add(f"{name}_bf16", f"{name}(%a, %b)", [randn(4, dtype=torch.bfloat16), randn(4, dtype=torch.bfloat16)], fn, **LOW)
    add(f"{name}_f16_0d_f64", f"{name}(%a, %b)", [randn(4, dtype=torch.float16), torch.tensor(0.75, dtype=torch.float64)], fn, **LOW)
    add(f"{name}_empty", f"{name}(%a, %b)", [randn(0, 3), randn(3)], fn)
    add(f"{name}_transposed", f"{name}(%t, %b)", [randn(3, 4), randn(4, 3)], lambda a, b, fn=fn: fn(a.t(), b),
        pre=TRANSPOSE_A)
    if name not in TENSOR_ONLY:
        lit = "2" if name != "pow" else "3"
        add(f"{name}_int_literal", f"{name}(%a, {lit})", [randint(-9, 10, 5, dtype=torch.int32)],
            lambda a, fn=fn, lit=lit: fn(a, int(lit)))
    if name not in TENSOR_ONLY:
        add(f"{name}_int_float_literal", f"{name}(%a, 0.5)", [randint(1, 10, 5, dtype=torch.int16)],
            lambda a, fn=fn: fn(a, 0.5))
    if name not in ("div", "remainder", "fmod", "pow", "atan2"):
        add(f"{name}_u8_i8", f"{name}(%a, %b)", [randint(0, 255, 6, dtype=torch.uint8),
                                                  randint(-128, 127, 6, dtype=torch.int8)], fn)
    if name in COMPARE or name in ("add", "mul", "maximum", "minimum"):
        add(f"{name}_bool", f"{name}(%a, %b)", [rand_bool(2, 3), rand_bool(3)], fn)

add("add_alpha", "add(%a, %b) {alpha=2}", [randn(3, 4), randn(4)], lambda a, b: torch.add(a, b, alpha=2))
add("sub_alpha_int", "sub(%a, %b) {alpha=3}", [randint(-9, 9, 4), randint(-9, 9, 4)],
    lambda a, b: torch.sub(a, b, alpha=3))
add("add_i64_overflow", "add(%a, %b)", [torch.tensor([2**63 - 1, -2**63]), torch.tensor([1, -1])], torch.add)
add("mul_i32_overflow", "mul(%a, %b)", [torch.tensor([2**30, -2**31], dtype=torch.int32),
                                        torch.tensor([4, 3], dtype=torch.int32)], torch.mul)
add("add_u8_wrap", "add(%a, 10)", [torch.tensor([250, 3], dtype=torch.uint8)], lambda a: a + 10)
for mode in ("trunc", "floor"):
    add(f"div_{mode}_int", f'div(%a, %b) {{rounding_mode="{mode}"}}',
        [randint(-20, 20, 8), torch.tensor([3, -3, 7, -7, 1, -1, 2, 5])],
        lambda a, b, mode=mode: torch.div(a, b, rounding_mode=mode))
    add(f"div_{mode}_float", f'div(%a, %b) {{rounding_mode="{mode}"}}', [EDGE(), torch.tensor([2.0, -2.0, 1.0, 0.0, 3.0,
        0.0, -0.0, 0.7, -0.3, 0.1])], lambda a, b, mode=mode: torch.div(a, b, rounding_mode=mode))
    add_error(f"div_{mode}_int_by_zero", f'div(%a, %b) {{rounding_mode="{mode}"}}',
              [torch.tensor([1, 2]), torch.tensor([1, 0])], "i64[2]", "division by zero")
add("div_floor_i8_min", 'div(%a, %b) {rounding_mode="floor"}', [torch.tensor([-128, 7], dtype=torch.int8),
    torch.tensor([-1, -1], dtype=torch.int8)], lambda a, b: torch.div(a, b, rounding_mode="floor"))
# A zero result keeps its sign (trunc(-0.5) is -0), which the comparisons cannot see: atan2(z, -1)
# is -pi for z = -0 and pi for +0. The ONNX export lost it (ONNX Runtime's Where drops a -0).
MINUS_ONE = lambda: torch.full((4,), -1.0)
# relu passes -0 as torch's clamp does (ONNX Runtime's Relu too); ONNX's spec writes max(0, x),
# which its reference evaluator computes as np.maximum(x, 0), +0.
RELU_REFERENCE = "ONNX's reference evaluator's Relu is np.maximum(x, 0), which gives +0 for -0"
for name, fn in {"trunc": torch.trunc, "log1p": torch.log1p, "expm1": torch.expm1, "relu": torch.relu}.items():
    add(f"{name}_zero_sign", "atan2(%z, %b)", [torch.tensor([-0.0, 0.0, -0.5, 0.5]), MINUS_ONE()],
        lambda a, b, fn=fn: torch.atan2(fn(a), b), pre=[("z", f"{name}(%a)", lambda a, b, fn=fn: fn(a))],
        onnx_reference_skip=RELU_REFERENCE if name == "relu" else None)
add("div_floor_zero_sign", "atan2(%z, %c)", [torch.tensor([0.0, -0.0, 0.0, 1.0]), torch.tensor([-3.0, 3.0, 3.0, -INF]),
    MINUS_ONE()], lambda a, b, c: torch.atan2(torch.div(a, b, rounding_mode="floor"), c),
    pre=[("z", 'div(%a, %b) {rounding_mode="floor"}', lambda a, b, c: torch.div(a, b, rounding_mode="floor"))])
add("div_int_true", "div(%a, %b)", [randint(-9, 9, 6), torch.tensor([2, -3, 0, 4, 5, -1])], torch.div)
add("remainder_int_signs", "remainder(%a, %b)", [torch.tensor([-7, 7, -7, 7]), torch.tensor([3, 3, -3, -3])],
    torch.remainder)
add("fmod_int_signs", "fmod(%a, %b)", [torch.tensor([-7, 7, -7, 7]), torch.tensor([3, 3, -3, -3])], torch.fmod)
add_error("remainder_int_by_zero", "remainder(%a, 0)", [torch.tensor([1, 2])], "i64[2]", "division by zero")
add_error("fmod_int_by_zero", "fmod(%a, %b)", [torch.tensor([1, 2]), torch.tensor([0, 1])], "i64[2]",
          "division by zero")
add("pow_int_tensor_exponent", "pow(%a, %b)", [torch.tensor([3, 2, -1, 1, 2, 0]), torch.tensor([-1, 62, -3, -5, 64, 0])],
    torch.pow)
add("pow_scalar_base", "pow(2, %a)", [randint(0, 10, 5)], lambda a: torch.pow(2, a))
add("pow_float_base_scalar", "pow(2.5, %a)", [randn(5)], lambda a: torch.pow(2.5, a))
add_error("pow_int_negative_literal", "pow(%a, -1)", [torch.tensor([2, 3])], "i64[2]", "negative integer powers")
add_error("sub_bool", "sub(%a, %b)", [rand_bool(3), rand_bool(3)], "bool[3]", "sub: not supported for bool operands")
# A rule error, not the kernel's at run time (found by the random-graph fuzzer: a dead pow of
# bools in a loop body failed in the interpreter only).
add_error("pow_bool", "pow(%a, %b)", [rand_bool(3), rand_bool(3)], "bool[3]", "pow: not supported for bool operands")
add("eq_float_literal", "eq(%a, 0.1)", [torch.tensor([0.1, 0.2], dtype=torch.float32)], lambda a: torch.eq(a, 0.1))
add("lt_int_literal_2_5", "lt(%a, 2.5)", [randint(0, 5, 6)], lambda a: torch.lt(a, 2.5))

for name, fn in BITWISE.items():
    add(f"{name}_i32", f"{name}(%a, %b)", [randint(-100, 100, 3, 4, dtype=torch.int32),
                                            randint(-100, 100, 4, dtype=torch.int32)], fn)
    add(f"{name}_bool", f"{name}(%a, %b)", [rand_bool(5), rand_bool(5)], fn)
    add(f"{name}_u8_i8", f"{name}(%a, %b)", [randint(0, 255, 6, dtype=torch.uint8),
                                              randint(-128, 127, 6, dtype=torch.int8)], fn)
    add(f"{name}_literal", f"{name}(%a, 12)", [randint(-50, 50, 6)], lambda a, fn=fn: fn(a, 12))
    add(f"{name}_empty", f"{name}(%a, %b)", [randint(0, 5, 0, 2), randint(0, 5, 2)], fn)
    add(f"{name}_transposed", f"{name}(%t, %b)", [randint(0, 99, 2, 3), randint(0, 99, 3, 2)],
        lambda a, b, fn=fn: fn(a.t(), b), pre=TRANSPOSE_A)
    add_error(f"{name}_float", f"{name}(%a, %b)", [randn(2), randn(2)], "f32[2]", "not implemented")
for name, fn in SHIFTS.items():
    add(f"{name}_i8_wide", f"{name}(%a, %b)", [torch.tensor([1, -128, 64, -1, 5], dtype=torch.int8),
                                                torch.tensor([7, 8, 9, -1, 2], dtype=torch.int8)], fn)
    add(f"{name}_i64_wide", f"{name}(%a, %b)", [torch.tensor([1, -5, 5, -1]), torch.tensor([63, 64, -1, 70])], fn)
    add(f"{name}_u8", f"{name}(%a, %b)", [torch.tensor([1, 255, 128], dtype=torch.uint8),
                                           torch.tensor([7, 8, 3], dtype=torch.uint8)], fn)
    add(f"{name}_literal", f"{name}(%a, 2)", [randint(-50, 50, 6, dtype=torch.int32)], lambda a, fn=fn: fn(a, 2))
    add(f"{name}_transposed", f"{name}(%t, %b)", [randint(0, 99, 2, 3), randint(0, 5, 3, 2)],
        lambda a, b, fn=fn: fn(a.t(), b), pre=TRANSPOSE_A)
    add(f"{name}_empty", f"{name}(%a, %b)", [randint(0, 5, 0), randint(0, 5, 0)], fn)

# ---- three operands ----
add("where_broadcast", "where(%a, %b, %c)", [rand_bool(3, 4), randn(4), randn(3, 1)], torch.where)
add("where_promote_literal", "where(%a, %b, 2.5)", [rand_bool(5), randint(-5, 5, 5)], lambda c, a: torch.where(c, a, 2.5))
add("where_literals", "where(%a, 1, 2)", [rand_bool(5)], lambda c: torch.where(c, 1, 2))
add("where_f16_f64_0d", "where(%a, %b, %c)", [rand_bool(4), randn(4, dtype=torch.float16), torch.tensor(0.75, dtype=torch.float64)],
    torch.where, **LOW)
add("where_empty", "where(%a, %b, %c)", [rand_bool(0, 2), randn(2), randn(1)], torch.where)
add("where_transposed", "where(%t, %b, %c)", [rand_bool(3, 2), randn(2, 3), randn(2, 3)],
    lambda c, a, b: torch.where(c.t(), a, b), pre=TRANSPOSE_A)
add("clamp_both", "clamp(%a) {max=0.5, min=-0.5}", [EDGE()], lambda a: torch.clamp(a, -0.5, 0.5))
add("clamp_min_only", "clamp(%a) {min=0}", [randn(3, 4)], lambda a: torch.clamp(a, min=0))
add("clamp_nan_bound", "clamp(%a) {max=nan, min=0}", [randn(4)], lambda a: torch.clamp(a, 0, NAN))
add("clamp_int_float_bound", "clamp(%a) {min=0.5}", [randint(-3, 3, 6)], lambda a: torch.clamp(a, 0.5))
add("clamp_min_above_max", "clamp(%a) {max=0, min=1}", [randint(-3, 3, 6)], lambda a: torch.clamp(a, 1, 0))
add("clamp_u8", "clamp(%a) {max=300, min=-1}", [randint(0, 255, 6, dtype=torch.uint8)],
    ReferenceOrEquivalent(lambda a: torch.clamp(a, -1, 300), lambda a: torch.clamp(a.long(), -1, 300).to(torch.uint8),
                          "clamped in i64, where -1 and 300 are values, then back to u8: exact, the result is in "
                          "[0, 255]"))
add("clamp_bf16", "clamp(%a) {max=1, min=-1}", [randn(6, dtype=torch.bfloat16)], lambda a: torch.clamp(a, -1, 1), **LOW)
add("clamp_transposed", "clamp(%t) {max=0.3}", [randn(3, 4)], lambda a: torch.clamp(a.t(), max=0.3), pre=TRANSPOSE_A)
add("clamp_empty", "clamp(%a) {min=0}", [randn(0, 4)], lambda a: torch.clamp(a, min=0))
add_error("clamp_no_bounds", "clamp(%a)", [randn(3)], "f32[3]", "at least one")
add("lerp_scalar", "lerp(%a, %b, 0.3)", [randn(3, 4), randn(4)], lambda a, b: torch.lerp(a, b, 0.3))
add("lerp_tensor_weight", "lerp(%a, %b, %c)", [randn(3, 4), randn(3, 4), torch.rand(4)], torch.lerp)
add("lerp_f64", "lerp(%a, %b, 0.75)", [randn(5, dtype=torch.float64), randn(5, dtype=torch.float64)],
    lambda a, b: torch.lerp(a, b, 0.75))
add("lerp_bf16", "lerp(%a, %b, 0.5)", [randn(5, dtype=torch.bfloat16), randn(5, dtype=torch.bfloat16)],
    lambda a, b: torch.lerp(a, b, 0.5), **LOW)
add("lerp_transposed", "lerp(%t, %b, 0.5)", [randn(3, 2), randn(2, 3)], lambda a, b: torch.lerp(a.t(), b, 0.5),
    pre=TRANSPOSE_A)
add("lerp_empty", "lerp(%a, %b, 0.5)", [randn(0), randn(0)], lambda a, b: torch.lerp(a, b, 0.5))
add_error("lerp_int", "lerp(%a, %b, 0.5)", [randint(0, 5, 3), randint(0, 5, 3)], "i64[3]", "not implemented")
for name, fn in {"addcmul": torch.addcmul, "addcdiv": torch.addcdiv}.items():
    add(f"{name}_broadcast", f"{name}(%a, %b, %c) {{value=0.5}}", [randn(3, 4), randn(4), randn(3, 1)],
        lambda a, b, c, fn=fn: fn(a, b, c, value=0.5))
    add(f"{name}_f64", f"{name}(%a, %b, %c)", [randn(4, dtype=torch.float64)] * 3, fn)
    add(f"{name}_f16", f"{name}(%a, %b, %c)", [randn(4, dtype=torch.float16)] * 3, fn, **LOW)
    add(f"{name}_empty", f"{name}(%a, %b, %c)", [randn(0, 2), randn(2), randn(1)], fn)
    add(f"{name}_transposed", f"{name}(%t, %b, %c)", [randn(3, 2), randn(2, 3), randn(2, 3)],
        lambda a, b, c, fn=fn: fn(a.t(), b, c), pre=TRANSPOSE_A)
add("addcmul_int_value", "addcmul(%a, %b, %c) {value=2}", [randint(-5, 5, 4)] * 3, lambda a, b, c: torch.addcmul(a, b, c, value=2))
add_error("addcdiv_int", "addcdiv(%a, %b, %c)", [randint(1, 5, 3)] * 3, "i64[3]", "not implemented")

# ---- copies ----
for dt in (torch.uint8, torch.int8, torch.int32, torch.int64, torch.bool, torch.float16, torch.bfloat16, torch.float64):
    name = str(dt).split(".")[1]
    add(f"to_copy_to_{name}", f"_to_copy(%a) {{dtype={KIR_DTYPES[dt]}}}",
        [torch.tensor([300.0, -1.0, 2.7, -2.7, 0.0, 0.5, 100.0])], lambda a, dt=dt: a.to(dt), **LOW)
add("to_copy_int_to_i16_wrap", "_to_copy(%a) {dtype=i16}", [torch.tensor([256, -1, 70000])], lambda a: a.to(torch.int16))
add("to_copy_bool_to_f32", "_to_copy(%a) {dtype=f32}", [rand_bool(5)], lambda a: a.to(torch.float32))
add("to_copy_transposed", "_to_copy(%t) {dtype=f64}", [randn(2, 3)], lambda a: a.t().to(torch.float64), pre=TRANSPOSE_A)
add("to_copy_empty", "_to_copy(%a) {dtype=i32}", [randn(0, 3)], lambda a: a.to(torch.int32))
for name in ("clone", "contiguous"):
    add(f"{name}_transposed", f"{name}(%t)", [randn(3, 4)], lambda a: a.t().contiguous(), pre=TRANSPOSE_A)
    add(f"{name}_i8", f"{name}(%a)", [randint(-100, 100, 5, dtype=torch.int8)], lambda a: a.clone())
    add(f"{name}_empty", f"{name}(%a)", [randn(0)], lambda a: a.clone())

# ---- in place (the graph returns the mutated operand) ----
def inplace(fn):
    def ref(a, *rest):
        a = a.clone()
        return fn(a, *rest)
    return ref

add("add__broadcast", "add_(%a, %b) {alpha=2}", [randn(3, 4), randn(4)], inplace(lambda a, b: a.add_(b, alpha=2)))
add("add__f64_into_f32", "add_(%a, %b)", [randn(3), randn(3, dtype=torch.float64)], inplace(lambda a, b: a.add_(b)))
add("sub__u8_wrap", "sub_(%a, 1)", [torch.tensor([0, 5], dtype=torch.uint8)], inplace(lambda a: a.sub_(1)))
add("mul__int", "mul_(%a, %b)", [randint(-5, 5, 2, 3), randint(-5, 5, 3)], inplace(lambda a, b: a.mul_(b)))
add("div__float", "div_(%a, %b)", [randn(2, 3), randn(3)], inplace(lambda a, b: a.div_(b)))
add("div__floor_int", 'div_(%a, 3) {rounding_mode="floor"}', [randint(-9, 9, 5)],
    inplace(lambda a: a.div_(3, rounding_mode="floor")))
add("copy__broadcast_convert", "copy_(%a, %b)", [torch.zeros(2, 3, dtype=torch.int32), randn(3) * 5],
    inplace(lambda a, b: a.copy_(b)))
add("fill__literal", "fill_(%a, 2.7)", [torch.zeros(2, 3, dtype=torch.int32)], inplace(lambda a: a.fill_(2.7)))
add("fill__tensor", "fill_(%a, %b)", [randn(2, 3), torch.tensor(0.75, dtype=torch.float64)], inplace(lambda a, b: a.fill_(b)))
add("zero__bf16", "zero_(%a)", [randn(4, dtype=torch.bfloat16)], inplace(lambda a: a.zero_()))
add("relu__f32", "relu_(%a)", [EDGE()], inplace(lambda a: a.relu_()))
add("clamp__int", "clamp_(%a) {max=3, min=-2}", [randint(-9, 9, 6)], inplace(lambda a: a.clamp_(-2, 3)))
add("masked_fill__", "masked_fill_(%a, %b, 2.5)", [randn(2, 3), rand_bool(3)],
    inplace(lambda a, m: a.masked_fill_(m, 2.5)))
add("index_put__", "index_put_(%a, %b, %c)", [randn(5, 2), torch.tensor([0, 3]), randn(2, 2)],
    inplace(lambda a, i, v: a.index_put_((i,), v)))
add("add__transposed", "add_(%t, %b)", [randn(3, 4), randn(4, 3)], lambda a, b: a.t().clone().add_(b), pre=TRANSPOSE_A)
add_error("add__float_into_int", "add_(%a, %b)", [randint(0, 5, 3), randn(3)], "i64[3]",
          "can't be cast to the desired output type")
add_error("add__needs_broadcast", "add_(%a, %b)", [randn(3), randn(2, 3)], "f32[3]", "doesn't match the broadcast shape")

add_error("sub__bool", "sub_(%a, %b)", [rand_bool(3), rand_bool(3)], "bool[3]", "sub_: not supported for bool operands")
add_error("relu__bool", "relu_(%a)", [rand_bool(3)], "bool[3]", "relu_: not supported for bool tensors")
add_error("fill__value_not_0d", "fill_(%a, %b)", [randn(2, 3), randn(3)], "f32[2,3]",
          "fill_: only a 0-d value tensor can fill, got one of rank 1")

add_error("add_not_broadcastable", "add(%a, %b)", [randn(2, 3), randn(4, 3)], "f32[2,3]",
          "add: operand 1 has shape [4,3], not broadcastable to [2,3] (shapes [2,3] and [4,3] do not broadcast: "
          "dim 0 is 2 vs 4)")
add_error("div_bad_rounding_mode", 'div(%a, %b) {rounding_mode="round"}', [randn(3), randn(3)], "f32[3]",
          'div: rounding_mode must be "trunc" or "floor", not "round"')
add_error("where_float_condition", "where(%a, %b, %c)", [randn(3), randn(3), randn(3)], "f32[3]",
          "where: condition (operand 0) must be bool, not f32")
# add's type rule leaves alpha to the kernel, which checks it against the result dtype.
add_error("add_int_float_alpha", "add(%a, %b) {alpha=1.5}", [randint(0, 5, 3), randint(0, 5, 3)], "i64[3]",
          "add: for integral input tensors, argument alpha must not be a floating point number")
add_error("add_int_bool_alpha", "add(%a, %b) {alpha=true}", [randint(0, 5, 3), randint(0, 5, 3)], "i64[3]",
          "add: boolean alpha only supported for bool results")
add_error("gelu_bad_approximate", 'gelu(%a) {approximate="sigmoid"}', [randn(3)], "f32[3]",
          'gelu: approximate must be "none" or "tanh", not "sigmoid"')

# A scalar converted to an integer result's dtype must lie in torch's range for it ([min, max + 1),
# the float truncated after the check): hardtanh's bounds as int64 whatever the integer dtype,
# fill values and addcmul's value as the result's. Rule errors, so the interpreter, the loop IR and
# the generated code never convert an out-of-range float (found by the fuzz_graphs CI smoke run:
# hardtanh of i64 with min_val=-inf, undefined behaviour in the kernel's conversion).
add("hardtanh_i8_wide_bounds", "hardtanh(%a) {max_val=1000, min_val=-1000.5}", [randint(-100, 100, 6, dtype=torch.int8)],
    ReferenceOrEquivalent(lambda a: F.hardtanh(a, -1000.5, 1000),
                          lambda a: torch.clamp(a.long(), -1000, 1000).to(torch.int8),
                          "an integer hardtanh clamps by its bounds truncated toward 0, here in i64, where they are "
                          "values, then back to i8: exact, the result is in i8's range"))
add("hardtanh_int_truncated_bounds", "hardtanh(%a) {max_val=1.5, min_val=-2.5}", [randint(-5, 5, 8)],
    lambda a: F.hardtanh(a, -2.5, 1.5))
add("hardtanh_i64_lowest_bound", "hardtanh(%a) {max_val=0, min_val=-9.223372036854775808e18}", [randint(-5, 5, 8)],
    lambda a: F.hardtanh(a, -2.0 ** 63, 0))
add_error("hardtanh_int_inf_bound", "hardtanh(%a) {max_val=1.0, min_val=-inf}", [randint(-5, 5, 3)], "i64[3]",
          "hardtanh: value -inf cannot be converted to i64 without overflow")
add_error("hardtanh_int_bound_2p63", "hardtanh(%a) {max_val=9.223372036854775808e18, min_val=0}",
          [randint(-5, 5, 3, dtype=torch.int16)], "i16[3]",
          "hardtanh: value 9223372036854775808.0 cannot be converted to i64 without overflow")
add_error("hardtanh_int_nan_bound", "hardtanh(%a) {max_val=nan, min_val=0}", [randint(-5, 5, 3)], "i64[3]",
          "hardtanh: value nan cannot be converted to i64 without overflow")
add("addcmul_i8_value_edge", "addcmul(%a, %b, %c) {value=127.9}",
    [torch.zeros(4, dtype=torch.int8), torch.ones(4, dtype=torch.int8), torch.tensor([0, 1, 0, 1], dtype=torch.int8)],
    ReferenceOrEquivalent(lambda a, b, c: torch.addcmul(a, b, c, value=127.9),
                          lambda a, b, c: torch.addcmul(a, b, c, value=127),
                          "127.9 lies in [min, max + 1) of i8, so it is truncated to 127 before the product"))
add_error("addcmul_i8_value_below", "addcmul(%a, %b, %c) {value=-128.5}", [randint(-5, 5, 3, dtype=torch.int8)] * 3,
          "i8[3]", "addcmul: value -128.5 cannot be converted to i8 without overflow")
add("masked_fill_u8_edge", "masked_fill(%a, %b, 255.5)", [randint(0, 9, 4, dtype=torch.uint8), rand_bool(4)],
    ReferenceOrEquivalent(lambda a, m: a.masked_fill(m, 255.5), lambda a, m: a.masked_fill(m, 255),
                          "255.5 lies in [min, max + 1) of u8, so it is truncated to 255"))
add_error("masked_fill_u8_negative", "masked_fill(%a, %b, -0.5)", [randint(0, 9, 4, dtype=torch.uint8), rand_bool(4)],
          "u8[4]", "masked_fill: value -0.5 cannot be converted to u8 without overflow")
add_error("masked_fill__int_inf", "masked_fill_(%a, %b, inf)", [randint(0, 9, 4), rand_bool(4)], "i64[4]",
          "masked_fill_: value inf cannot be converted to i64 without overflow")
add_error("fill__int_inf", "fill_(%a, -inf)", [randint(0, 9, 4, dtype=torch.int32)], "i32[4]",
          "fill_: value -inf cannot be converted to i32 without overflow")

# PyTorch adds bools with alpha as a bool: a + alpha * b is a or (alpha and b), so alpha=-1
# adds like alpha=1 (fuzz-graphs seed 463: the reference kernel computed 1 - 1 = 0). Fixed
# inputs, no draw, so the cases above keep their numbers.
add("add_bool_negative_alpha", "add(%a, %b) {alpha=-1}", [torch.tensor([True, False, True, False]),
                                                          torch.tensor([True, True, False, False])],
    lambda a, b: torch.add(a, b, alpha=-1))
add("add_bool_scalar_negative_alpha", "add(%a, true) {alpha=-1}", [torch.tensor([True, False])],
    lambda a: torch.add(a, True, alpha=-1))
