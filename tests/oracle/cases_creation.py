"""Oracle cases for the creation ops. Deterministic ones compare values with PyTorch; random
ones (seeded Philox streams that PyTorch does not share) are checked through properties that
hold for any draw: range, finiteness, and that randperm is a permutation."""
import torch

from oracle_case import Case, randn, randint, rand_bool
from single_op import SingleOpCases, single_op

CASES = SingleOpCases()
add, add_error = CASES.add, CASES.add_error


add("full_int", "full() {fill_value=3, size=[2, 3]}", [], lambda: torch.full((2, 3), 3))
add("full_float", "full() {fill_value=1.5, size=[4]}", [], lambda: torch.full((4,), 1.5))
add("full_bool", "full() {fill_value=true, size=[2]}", [], lambda: torch.full((2,), True))
add("full_dtype_trunc", "full() {dtype=i32, fill_value=1.7, size=[3]}", [], lambda: torch.full((3,), 1.7, dtype=torch.int32))
add("full_bf16", "full() {dtype=bf16, fill_value=0.1, size=[2]}", [], lambda: torch.full((2,), 0.1, dtype=torch.bfloat16))
add("full_empty", "full() {fill_value=2, size=[0, 3]}", [], lambda: torch.full((0, 3), 2))
add_error("full_overflow", "full() {dtype=u8, fill_value=300, size=[2]}", [], "u8[2]",
          "full: value 300 cannot be converted to u8 without overflow")
# Rule errors, not the kernels' at run time (found by the random-graph fuzzer: the compiled code
# filled without the check).
add_error("full_negative_u8", "full() {dtype=u8, fill_value=-2.5, size=[2]}", [], "u8[2]",
          "full: value -2.5 cannot be converted to u8 without overflow")
add_error("full_like_inf_i8", "full_like(%a) {dtype=i8, fill_value=-inf}", [randn(3)], "i8[3]",
          "full_like: value -inf cannot be converted to i8 without overflow")
add("zeros_f32", "zeros() {size=[2, 3]}", [], lambda: torch.zeros(2, 3))
add("zeros_bool", "zeros() {dtype=bool, size=[3]}", [], lambda: torch.zeros(3, dtype=torch.bool))
add("ones_i8", "ones() {dtype=i8, size=[3]}", [], lambda: torch.ones(3, dtype=torch.int8))
add("ones_f16_empty", "ones() {dtype=f16, size=[0]}", [], lambda: torch.ones(0, dtype=torch.float16))
add("empty_is_zeros", "empty() {dtype=f64, size=[2, 2]}", [], lambda: torch.zeros(2, 2, dtype=torch.float64))
add_error("zeros_negative", "zeros() {size=[-1]}", [], "f32[1]", "negative")
add("arange_int", "arange() {end=5, start=0}", [], lambda: torch.arange(0, 5))
add("arange_float_step", "arange() {end=1, start=0, step=0.3}", [], lambda: torch.arange(0, 1, 0.3))
add("arange_negative_step", "arange() {end=0, start=5, step=-2}", [], lambda: torch.arange(5, 0, -2))
add("arange_float_start", "arange() {end=3, start=0.5}", [], lambda: torch.arange(0.5, 3))
add("arange_dtype_f16", "arange() {dtype=f16, end=4, start=0}", [], lambda: torch.arange(0, 4, dtype=torch.float16))
add("arange_dtype_f64", "arange() {dtype=f64, end=2, start=-1, step=0.25}", [],
    lambda: torch.arange(-1, 2, 0.25, dtype=torch.float64))
add("arange_empty", "arange() {end=0, start=0}", [], lambda: torch.arange(0, 0))
add_error("arange_zero_step", "arange() {end=5, start=0, step=0}", [], "i64[0]", "step must be nonzero")
add_error("arange_wrong_sign", "arange() {end=5, start=0, step=-1}", [], "i64[0]",
          "arange: upper bound and lower bound inconsistent with step sign")
for name, fn in {"full_like": torch.full_like, "zeros_like": torch.zeros_like, "ones_like": torch.ones_like}.items():
    attr = "{fill_value=2.7}" if name == "full_like" else ""
    extra = (2.7,) if name == "full_like" else ()
    add(f"{name}_int", f"{name}(%a) {attr}".strip(), [randint(0, 9, 2, 3)], lambda a, fn=fn, extra=extra: fn(a, *extra))
    add(f"{name}_bool", f"{name}(%a) {attr}".strip(), [rand_bool(4)], lambda a, fn=fn, extra=extra: fn(a, *extra))
    add(f"{name}_dtype", f"{name}(%a) {{{'fill_value=2.7, ' if extra else ''}dtype=f64}}", [randn(3)],
        lambda a, fn=fn, extra=extra: fn(a, *extra, dtype=torch.float64))
    add(f"{name}_empty", f"{name}(%a) {attr}".strip(), [randn(0, 2, dtype=torch.bfloat16)],
        lambda a, fn=fn, extra=extra: fn(a, *extra))

# Random ops: every element lies in range (the graph reduces that check to one bool).
IN_UNIT = """graph @g() -> (bool[]) {{
  %0 = rand() {{{attrs}}} : {t}
  %1 = ge(%0, 0.0) : bool{shape}
  %2 = lt(%0, 1.0) : bool{shape}
  %3 = logical_and(%1, %2) : bool{shape}
  %4 = all(%3) : bool[]
  return %4
}}"""
for dt, t in (("f32", "f32[64]"), ("f64", "f64[64]"), ("f16", "f16[64]"), ("bf16", "bf16[64]")):
    CASES.append(Case(f"rand_in_unit_interval_{dt}", IN_UNIT.format(attrs=f"dtype={dt}, seed=5, size=[64]", t=t,
                                                                    shape="[64]"),
                      inputs=[], ref=lambda: torch.tensor(True)))
CASES.append(Case("randn_finite", """graph @g() -> (bool[]) {
  %0 = randn() {seed=3, size=[8, 8]} : f32[8,8]
  %1 = isfinite(%0) : bool[8,8]
  %2 = all(%1) : bool[]
  return %2
}""", inputs=[], ref=lambda: torch.tensor(True)))
CASES.append(Case("randint_in_range", """graph @g() -> (bool[]) {
  %0 = randint() {high=7, low=-3, seed=11, size=[100]} : i64[100]
  %1 = ge(%0, -3) : bool[100]
  %2 = lt(%0, 7) : bool[100]
  %3 = logical_and(%1, %2) : bool[100]
  %4 = all(%3) : bool[]
  return %4
}""", inputs=[], ref=lambda: torch.tensor(True)))
CASES.append(Case("randint_dtype_f32", """graph @g() -> (bool[]) {
  %0 = randint() {dtype=f32, high=10, low=0, seed=1, size=[20]} : f32[20]
  %1 = eq(%0, %0) : bool[20]
  %2 = all(%1) : bool[]
  return %2
}""", inputs=[], ref=lambda: torch.tensor(True)))
# A permutation of 0..n-1: its sum and its sum of squares are those of 0..n-1.
CASES.append(Case("randperm_is_permutation", """graph @g() -> (i64[], i64[]) {
  %0 = randperm() {n=50, seed=9} : i64[50]
  %1 = sum(%0) : i64[]
  %2 = mul(%0, %0) : i64[50]
  %3 = sum(%2) : i64[]
  return %1, %3
}""", inputs=[], ref=lambda: (torch.arange(50).sum(), (torch.arange(50) ** 2).sum())))
CASES.append(Case("randperm_empty", """graph @g() -> (i64[0]) {
  %0 = randperm() {n=0} : i64[0]
  return %0
}""", inputs=[], ref=lambda: torch.randperm(0)))
add_error("rand_int_dtype", "rand() {dtype=i64, size=[2]}", [], "i64[2]", "rand: dtype must be floating, not i64")
add_error("randint_empty_range", "randint() {high=5, low=5, size=[2]}", [], "i64[2]", "low must be less than high")
add_error("randint_bool_dtype", "randint() {dtype=bool, high=2, low=0, size=[2]}", [], "bool[2]",
          "randint: dtype must not be bool")
add_error("randperm_negative", "randperm() {n=-1}", [], "i64[0]", "randperm: n must be non-negative, got -1")
add_error("arange_not_finite", "arange() {end=1e300, start=0.0, step=1e-300}", [], "f32[0]",
          "arange: the range is not finite or too large")
