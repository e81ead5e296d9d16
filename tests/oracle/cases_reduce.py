"""Oracle cases for the reductions and cumsum: dims lists, keepdim, None and [] dims, dtype
arguments, integer and bool inputs, empty dims, NaN propagation and non-contiguous inputs."""
import torch

from oracle_case import Case, randn, randint, rand_bool
from single_op import TRANSPOSE_A, SingleOpCases, single_op

NAN = float("nan")
LOW = dict(rtol=1e-2, atol=1e-2)
CASES = SingleOpCases()
add, add_error = CASES.add, CASES.add_error


MULTI = {"sum": torch.sum, "mean": torch.mean, "var": torch.var, "std": torch.std, "amax": torch.amax,
         "amin": torch.amin, "logsumexp": torch.logsumexp}
for name, fn in MULTI.items():
    add(f"{name}_dim1_keepdim", f"{name}(%a) {{dim=[1], keepdim=true}}", [randn(3, 4)],
        lambda a, fn=fn: fn(a, dim=[1], keepdim=True))
    add(f"{name}_dims_neg", f"{name}(%a) {{dim=[0, -1]}}", [randn(2, 3, 4)], lambda a, fn=fn: fn(a, dim=[0, -1]))
    add(f"{name}_f64", f"{name}(%a) {{dim=[0]}}", [randn(5, 2, dtype=torch.float64)], lambda a, fn=fn: fn(a, dim=[0]))
    add(f"{name}_bf16", f"{name}(%a) {{dim=[1]}}", [randn(2, 8, dtype=torch.bfloat16)], lambda a, fn=fn: fn(a, dim=[1]),
        **LOW)
    add(f"{name}_nan", f"{name}(%a) {{dim=[1]}}", [torch.tensor([[1.0, NAN, 2.0], [0.5, 1.5, -1.0]])],
        lambda a, fn=fn: fn(a, dim=[1]))
    add(f"{name}_transposed", f"{name}(%t) {{dim=[1]}}", [randn(3, 4)], lambda a, fn=fn: fn(a.t(), dim=[1]),
        pre=TRANSPOSE_A)
    add(f"{name}_empty_kept", f"{name}(%a) {{dim=[1]}}", [randn(0, 3)], lambda a, fn=fn: fn(a, dim=[1]))
    if name != "logsumexp":
        add(f"{name}_all", f"{name}(%a)", [randn(3, 4)], lambda a, fn=fn: fn(a))
for name, fn in {"sum": torch.sum, "mean": torch.mean, "var": torch.var, "std": torch.std}.items():
    add(f"{name}_empty_reduced", f"{name}(%a) {{dim=[0]}}", [randn(0, 3)], lambda a, fn=fn: fn(a, dim=[0]))
    add(f"{name}_dim_empty_list", f"{name}(%a) {{dim=[]}}", [randn(2, 3)], lambda a, fn=fn: fn(a, dim=[]))
add("amax_dim_empty_list", "amax(%a) {dim=[]}", [randn(2, 3)], lambda a: torch.amax(a, dim=[]))
add("sum_int", "sum(%a) {dim=[0]}", [randint(-9, 9, 3, 4, dtype=torch.int32)], lambda a: torch.sum(a, dim=[0]))
add("sum_bool", "sum(%a)", [rand_bool(7)], torch.sum)
add("sum_i8_dtype_wrap", "sum(%a) {dtype=i8}", [torch.tensor([100, 100], dtype=torch.int8)],
    lambda a: torch.sum(a, dtype=torch.int8))
# A bool dtype casts the input to bool first (x != 0): 0.5 is true, and 1 + -1 is two trues (found
# by the random-graph fuzzer: the interpreter truncated floats to 0, the compiled code did not).
add("prod_float_dtype_bool", "prod(%a) {dim=-1, dtype=bool}", [torch.tensor([[-0.86, -0.34], [0.5, 0.0]])],
    lambda a: torch.prod(a, -1, dtype=torch.bool))
add("sum_dtype_bool", "sum(%a) {dim=[1], dtype=bool}", [torch.tensor([[1, -1], [0, 0]])],
    lambda a: torch.sum(a, dim=[1], dtype=torch.bool))
# torch has no cumsum into bool: a rule error (found by the random-graph fuzzer, where the
# interpreter and the compiled code disagreed on what it would be).
add_error("cumsum_dtype_bool", "cumsum(%a) {dim=0, dtype=bool}", [randn(4)], "bool[4]", "cumsum: not implemented for 'bool'")
add("sum_int_dtype_f32", "sum(%a) {dtype=f32}", [randint(-9, 9, 5)], lambda a: torch.sum(a, dtype=torch.float32))
add("sum_f16", "sum(%a) {dim=[1]}", [randn(2, 6, dtype=torch.float16)], lambda a: torch.sum(a, dim=[1]), **LOW)
add("mean_int_dtype", "mean(%a) {dtype=f64}", [randint(-9, 9, 5)], lambda a: torch.mean(a, dtype=torch.float64))
add_error("mean_int", "mean(%a)", [randint(0, 9, 4)], "i64[]", "could not infer output dtype")
add("var_correction0", "var(%a) {correction=0, dim=[1]}", [randn(3, 4)], lambda a: torch.var(a, dim=[1], correction=0))
add("std_correction2_keepdim", "std(%a) {correction=2, dim=[0], keepdim=true}", [randn(5, 3)],
    lambda a: torch.std(a, dim=[0], correction=2, keepdim=True))
add("var_single_element", "var(%a)", [randn(1)], torch.var)
add_error("var_int", "var(%a)", [randint(0, 9, 4)], "i64[]", "not implemented")
add("amax_int", "amax(%a) {dim=[1]}", [randint(-99, 99, 3, 4, dtype=torch.int16)], lambda a: torch.amax(a, dim=[1]))
add("amin_bool", "amin(%a) {dim=[0]}", [rand_bool(3, 2)], lambda a: torch.amin(a, dim=[0]))
add_error("amax_empty_reduced", "amax(%a) {dim=[0]}", [randn(0, 3)], "f32[3]",
          "amax: cannot reduce over a zero-size dimension (dim 0)")
add_error("sum_dim_repeated", "sum(%a) {dim=[0, -2]}", [randn(2, 3)], "f32[3]", "appears multiple times")
add("logsumexp_inf", "logsumexp(%a) {dim=[1]}", [torch.tensor([[float("inf"), 1.0], [-float("inf"), -float("inf")]])],
    lambda a: torch.logsumexp(a, dim=[1]))

# A mean beside a var of the same values is one Welford kernel on the CPU backend: its mean is
# the sum over the count, an infinity or NaN propagating as in a sum (it was NaN for [inf, 1]),
# and var with an infinity is NaN, as PyTorch's. Rows of 600 points span Welford's chunks.
MEAN_VAR = """graph @g(%a: f32[{rows},{cols}]) -> (f32[{rows}], f32[{rows}]) {{
  %0 = mean(%a) {{dim=[1]}} : f32[{rows}]
  %1 = var(%a) {{dim=[1]}} : f32[{rows}]
  return %0, %1
}}"""


def non_finite_rows(cols, *specials):
    """Random rows of `cols` values, row r with the (column, value) pairs of specials[r] placed."""
    x = randn(len(specials), cols)
    for row, pairs in enumerate(specials):
        for col, value in pairs:
            x[row, col] = value
    return x


INF = float("inf")
for cols, specials in {2: [[(0, INF)], [], [(1, -INF)], [(0, NAN)], [(0, INF), (1, -INF)]],
                       600: [[(0, INF)], [(300, INF)], [(599, -INF)], [(10, NAN)], [(0, -INF), (599, INF)], []]}.items():
    CASES.append(Case(f"mean_beside_var_non_finite_{cols}", MEAN_VAR.format(rows=len(specials), cols=cols),
                      [non_finite_rows(cols, *specials)],
                      lambda a: (torch.mean(a, dim=[1]), torch.var(a, dim=[1]))))
add("logsumexp_int", "logsumexp(%a) {dim=[0]}", [randint(-5, 5, 4)], lambda a: torch.logsumexp(a, dim=[0]))

add("prod_dim", "prod(%a) {dim=1, keepdim=true}", [randn(3, 4)], lambda a: torch.prod(a, 1, keepdim=True))
add("prod_all", "prod(%a)", [randn(5)], torch.prod)
add("prod_int_overflow", "prod(%a)", [torch.tensor([2**40, 2**30])], torch.prod)
add("prod_i8_to_i64", "prod(%a)", [torch.tensor([100, 100], dtype=torch.int8)], torch.prod)
add("prod_bool", "prod(%a) {dim=0}", [rand_bool(3, 2)], lambda a: torch.prod(a, 0))
add("prod_empty", "prod(%a) {dim=0}", [randn(0, 3)], lambda a: torch.prod(a, 0))
add("prod_transposed", "prod(%t) {dim=0}", [randn(3, 4)], lambda a: torch.prod(a.t(), 0), pre=TRANSPOSE_A)
add("prod_f16", "prod(%a) {dim=0}", [randn(3, 2, dtype=torch.float16)], lambda a: torch.prod(a, 0), **LOW)

for name, fn in {"argmax": torch.argmax, "argmin": torch.argmin}.items():
    add(f"{name}_all", f"{name}(%a)", [randn(3, 4)], fn)
    add(f"{name}_dim_keepdim", f"{name}(%a) {{dim=0, keepdim=true}}", [randn(3, 4)],
        lambda a, fn=fn: fn(a, dim=0, keepdim=True))
    add(f"{name}_ties", f"{name}(%a) {{dim=1}}", [torch.tensor([[1, 3, 3, 0], [2, 2, 2, 2]])],
        lambda a, fn=fn: fn(a, dim=1))
    add(f"{name}_nan", f"{name}(%a) {{dim=1}}", [torch.tensor([[1.0, NAN, 5.0, NAN], [0.0, -1.0, 2.0, 2.0]])],
        lambda a, fn=fn: fn(a, dim=1))
    add(f"{name}_u8", f"{name}(%a) {{dim=0}}", [randint(0, 255, 6, 2, dtype=torch.uint8)], lambda a, fn=fn: fn(a, dim=0))
    add(f"{name}_transposed", f"{name}(%t) {{dim=1}}", [randn(3, 4)], lambda a, fn=fn: fn(a.t(), dim=1),
        pre=TRANSPOSE_A)
    add(f"{name}_empty_kept", f"{name}(%a) {{dim=1}}", [randn(0, 3)], lambda a, fn=fn: fn(a, dim=1))
    add(f"{name}_bf16", f"{name}(%a) {{dim=0}}", [randn(5, 2, dtype=torch.bfloat16)], lambda a, fn=fn: fn(a, dim=0))
    add_error(f"{name}_empty", f"{name}(%a)", [randn(0, 3)], "i64[]", "zero-size")
    add_error(f"{name}_bool", f"{name}(%a)", [rand_bool(3)], "i64[]", f"{name}: does not support bool input")

for name, fn in {"any": torch.any, "all": torch.all}.items():
    add(f"{name}_all_f32", f"{name}(%a)", [torch.tensor([0.0, NAN, 0.0])], fn)
    add(f"{name}_dim_bool", f"{name}(%a) {{dim=[1]}}", [rand_bool(4, 3)], lambda a, fn=fn: fn(a, dim=[1]))
    add(f"{name}_int_keepdim", f"{name}(%a) {{dim=[0], keepdim=true}}", [randint(0, 2, 3, 4)],
        lambda a, fn=fn: fn(a, dim=[0], keepdim=True))
    add(f"{name}_empty", f"{name}(%a)", [randn(0, 3)], lambda a, fn=fn: fn(a))
    add(f"{name}_transposed", f"{name}(%t) {{dim=[1]}}", [rand_bool(3, 4)], lambda a, fn=fn: fn(a.t(), dim=[1]),
        pre=TRANSPOSE_A)
    add(f"{name}_bf16", f"{name}(%a) {{dim=[0]}}", [randn(3, 2, dtype=torch.bfloat16)], lambda a, fn=fn: fn(a, dim=[0]))
    add(f"{name}_u8_keeps_u8", f"{name}(%a) {{dim=[1]}}", [randint(0, 3, 3, 4, dtype=torch.uint8)],
        lambda a, fn=fn: fn(a, dim=[1]))

add("cumsum_f32", "cumsum(%a) {dim=1}", [randn(3, 4)], lambda a: torch.cumsum(a, 1))
add("cumsum_neg_dim", "cumsum(%a) {dim=-2}", [randn(3, 4, dtype=torch.float64)], lambda a: torch.cumsum(a, -2))
add("cumsum_int_to_i64", "cumsum(%a) {dim=0}", [randint(-9, 9, 5, dtype=torch.int8)], lambda a: torch.cumsum(a, 0))
add("cumsum_bool", "cumsum(%a) {dim=0}", [rand_bool(6)], lambda a: torch.cumsum(a, 0))
add("cumsum_dtype_i8_wrap", "cumsum(%a) {dim=0, dtype=i8}", [torch.tensor([100, 100], dtype=torch.int8)],
    lambda a: torch.cumsum(a, 0, dtype=torch.int8))
add("cumsum_nan", "cumsum(%a) {dim=0}", [torch.tensor([1.0, NAN, 2.0])], lambda a: torch.cumsum(a, 0))
add("cumsum_transposed", "cumsum(%t) {dim=1}", [randn(3, 4)], lambda a: torch.cumsum(a.t(), 1), pre=TRANSPOSE_A)
add("cumsum_empty", "cumsum(%a) {dim=0}", [randn(0, 3)], lambda a: torch.cumsum(a, 0))
add("cumsum_bf16", "cumsum(%a) {dim=0}", [randn(5, dtype=torch.bfloat16)], lambda a: torch.cumsum(a, 0), **LOW)

# Pooling windows reduce too: their int-pair attributes (type_rules_util.h: pair_attr) take 1 or 2 values.
add_error("max_pool2d_kernel_size_three_values", "max_pool2d(%a) {kernel_size=[2, 2, 2]}", [randn(1, 4, 4)], "f32[1,2,2]",
          "max_pool2d: kernel_size must have 1 or 2 values, got 3")
