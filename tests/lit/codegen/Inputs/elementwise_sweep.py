"""Writes the elementwise sweep of elementwise_sweep.kir: for each dtype, DIR/<dtype>.kir, a graph
that applies every elementwise op of ops.def that accepts the dtype, and DIR/<dtype>/*.npy, its
inputs, made of special values (NaN, +-inf, -0, denormals, the largest finite values, halves
for round-half-even; integer extremes, shift amounts past the width, -1 divisors).

  elementwise_sweep.py KILN DIR

Each op appears in four groups: on 1-d operands of special values (%a, %b, %c); on a
transposed view (t(%g)) with a broadcast row (%r); on an empty operand (%e: [0,8]); and on a
size-1 dim broadcast against a full one (%s: [1,8] with %g). A chain of the in-place ops runs
on %p (each result snapshotted by _to_copy), and one on a transposed view of %h. The script fails
when `KILN ops` lists an elementwise op that the sweep does not cover, so a new op must join it.
(Compiled f64 code may contract a * b + c into one fused multiply-add, docs/CODEGEN.md: the
in-place chain's add_ has no alpha, whose product with the largest finite values would show it.)

Input order of every graph (the RUN lines name the files in it):
  a b c m g r e s m8 p h"""
import os
import subprocess
import sys

import numpy as np

INPUTS = ["a", "b", "c", "m", "g", "r", "e", "s", "m8", "p", "h"]
FLOATS = ["f64", "f32", "f16", "bf16"]
INTS = ["i64", "i32", "i16", "i8", "u8"]
DTYPES = FLOATS + INTS + ["bool"]
NP = {"bool": np.bool_, "u8": np.uint8, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
      "f16": np.float16, "f32": np.float32, "f64": np.float64}
BF16 = np.dtype([("bf16", "<u2")])

# (template, accepted dtypes, result): {x} {y} {z} are tensor operands, {m} a bool mask. Accepted:
# all, nonbool, float, int (integers without bool), intbool, notfloat. Result: same, float (the
# dtype if floating, else f32), bool, or a dtype name.
OPS = [
    ("neg({x})", "nonbool", "same"),
    ("abs({x})", "all", "same"),
    ("exp({x})", "all", "float"),
    ("log({x})", "all", "float"),
    ("log1p({x})", "all", "float"),
    ("expm1({x})", "all", "float"),
    ("sqrt({x})", "all", "float"),
    ("rsqrt({x})", "all", "float"),
    ("reciprocal({x})", "all", "float"),
    ("sin({x})", "all", "float"),
    ("cos({x})", "all", "float"),
    ("tan({x})", "all", "float"),
    ("atan({x})", "all", "float"),
    ("tanh({x})", "all", "float"),
    ("sigmoid({x})", "all", "float"),
    ("relu({x})", "nonbool", "same"),
    ("gelu({x})", "float", "same"),
    ('gelu({x}) {{approximate="tanh"}}', "float", "same"),
    ("silu({x})", "float", "same"),
    ("erf({x})", "all", "float"),
    ("sign({x})", "all", "same"),
    ("floor({x})", "nonbool", "same"),
    ("ceil({x})", "nonbool", "same"),
    ("round({x})", "nonbool", "same"),
    ("round({x}) {{decimals=2}}", "float", "same"),
    ("round({x}) {{decimals=-1}}", "float", "same"),
    ("trunc({x})", "nonbool", "same"),
    ("logical_not({x})", "all", "bool"),
    ("isnan({x})", "all", "bool"),
    ("isinf({x})", "all", "bool"),
    ("isfinite({x})", "all", "bool"),
    ("bitwise_not({x})", "intbool", "same"),
    ("leaky_relu({x}) {{negative_slope=0.2}}", "float", "same"),
    ("softplus({x}) {{beta=2, threshold=1}}", "float", "same"),
    ("elu({x}) {{alpha=1.5}}", "float", "same"),
    ("hardtanh({x}) {{max_val=3, min_val=-2}}", "nonbool", "same"),
    ("hardtanh({x}) {{max_val=-0.5, min_val=0.5}}", "float", "same"),
    ("add({x}, {y})", "all", "same"),
    ("add({x}, {y}) {{alpha=2}}", "nonbool", "same"),
    ("add({x}, 3)", "nonbool", "same"),
    ("sub({x}, {y}) {{alpha=3}}", "nonbool", "same"),
    ("mul({x}, {y})", "all", "same"),
    ("div({x}, {y})", "all", "float"),
    ('div({x}, {y}) {{rounding_mode="floor"}}', "float", "same"),
    ('div({x}, {y}) {{rounding_mode="trunc"}}', "float", "same"),
    ('div({x}, 3) {{rounding_mode="floor"}}', "nonbool", "same"),
    ('div({x}, -1) {{rounding_mode="trunc"}}', "nonbool", "same"),
    ('div({x}, -7) {{rounding_mode="trunc"}}', "nonbool", "same"),
    ("pow({x}, {y})", "nonbool", "same"),
    ("pow({x}, 3)", "nonbool", "same"),
    ("maximum({x}, {y})", "all", "same"),
    ("minimum({x}, {y})", "all", "same"),
    ("remainder({x}, {y})", "float", "same"),
    ("remainder({x}, 3)", "nonbool", "same"),
    ("remainder({x}, -3)", "nonbool", "same"),
    ("fmod({x}, {y})", "float", "same"),
    ("fmod({x}, 3)", "nonbool", "same"),
    ("fmod({x}, -1)", "nonbool", "same"),
    ("atan2({x}, {y})", "all", "float"),
    ("eq({x}, {y})", "all", "bool"),
    ("eq({x}, 2)", "all", "bool"),
    ("ne({x}, {y})", "all", "bool"),
    ("lt({x}, {y})", "all", "bool"),
    ("le({x}, {y})", "all", "bool"),
    ("gt({x}, {y})", "all", "bool"),
    ("ge({x}, 1)", "all", "bool"),
    ("logical_and({x}, {y})", "all", "bool"),
    ("logical_or({x}, {y})", "all", "bool"),
    ("logical_xor({x}, {y})", "all", "bool"),
    ("bitwise_and({x}, {y})", "intbool", "same"),
    ("bitwise_or({x}, {y})", "intbool", "same"),
    ("bitwise_xor({x}, {y})", "intbool", "same"),
    ("bitwise_left_shift({x}, {y})", "int", "same"),
    ("bitwise_right_shift({x}, {y})", "int", "same"),
    ("bitwise_left_shift({x}, 3)", "int", "same"),
    ("bitwise_right_shift({x}, 100)", "int", "same"),
    ("where({m}, {x}, {y})", "all", "same"),
    ("clamp({x}) {{max=0.5, min=-0.5}}", "float", "same"),
    ("clamp({x}) {{max=3, min=-2}}", "nonbool", "same"),
    ("clamp({x}) {{min=1}}", "nonbool", "same"),
    ("clamp({x}) {{max=1, min=2}}", "nonbool", "same"),
    ("lerp({x}, {y}, {z})", "float", "same"),
    ("lerp({x}, {y}, 0.75)", "float", "same"),
    ("addcmul({x}, {y}, {z}) {{value=2}}", "nonbool", "same"),
    ("addcmul({x}, {y}, {z}) {{value=0.5}}", "float", "same"),
    ("addcdiv({x}, {y}, {z}) {{value=-2}}", "float", "same"),
    ("masked_fill({x}, {m}, 1)", "all", "same"),
    ("_to_copy({x}) {{dtype=f32}}", "all", "f32"),
    ("_to_copy({x}) {{dtype=i32}}", "all", "i32"),
    ("_to_copy({x}) {{dtype=bool}}", "all", "bool"),
]

# In-place ops, chained on one operand ({p}), with their other operands: (template, accepted).
INPLACE = [
    ("add_({p}, {y})", "all"),
    ("sub_({p}, 1)", "nonbool"),
    ("mul_({p}, {y})", "all"),
    ("div_({p}, {y})", "float"),
    ('div_({p}, 3) {{rounding_mode="floor"}}', "nonbool"),
    ("relu_({p})", "nonbool"),
    ("clamp_({p}) {{max=5, min=-3}}", "nonbool"),
    ("masked_fill_({p}, {m}, 0)", "all"),
    ("fill_({p}, 2)", "all"),
    ("zero_({p})", "all"),
]


def accepts(kind, dt):
    return {"all": True, "nonbool": dt != "bool", "float": dt in FLOATS, "int": dt in INTS,
            "intbool": dt not in FLOATS}[kind]


def result_dtype(kind, dt):
    if kind == "same":
        return dt
    if kind == "float":
        return dt if dt in FLOATS else "f32"
    return kind


def type_text(dt, shape):
    return f"{dt}[{','.join(map(str, shape))}]"


def graph(dt):
    """The sweep graph of dtype dt and the number of its outputs."""
    lines, outputs = [], []
    n = [0]

    def emit(expr, rtype):
        lines.append(f"  %{n[0]} = {expr} : {rtype}")
        n[0] += 1
        return f"%{n[0] - 1}"

    t_g = emit("t(%g)", type_text(dt, [8, 8]))
    groups = [  # operands and the result shape of each group
        ({"x": "%a", "y": "%b", "z": "%c", "m": "%m"}, [64], [64], [64]),
        ({"x": t_g, "y": "%r", "z": "%g", "m": "%m8"}, [8, 8], [8, 8], [8, 8]),
        ({"x": "%e", "y": "%r", "z": "%r", "m": "%m8"}, [0, 8], [0, 8], [0, 8]),
        ({"x": "%s", "y": "%g", "z": "%r", "m": "%m8"}, [1, 8], [8, 8], [8, 8]),
    ]
    for operands, unary_shape, binary_shape, ternary_shape in groups:
        for template, kind, result in OPS:
            if not accepts(kind, dt):
                continue
            shape = binary_shape if "{y}" in template else unary_shape  # masked_fill keeps self's shape
            if "{z}" in template:
                shape = ternary_shape
            outputs.append((emit(template.format(**operands), type_text(result_dtype(result, dt), shape)),
                            type_text(result_dtype(result, dt), shape)))
    # The in-place chains: on %p (1-d) and through a transposed view of %h.
    for target, shape, y, m in (("%p", [64], "%b", "%m"), (None, [8, 8], "%r", "%m8")):
        p = target or emit("t(%h)", type_text(dt, shape))
        for template, kind in INPLACE:
            if not accepts(kind, dt):
                continue
            p = emit(template.format(p=p, y=y, m=m), type_text(dt, shape))
            snapshot = emit(f"_to_copy({p})", type_text(dt, shape))
            outputs.append((snapshot, type_text(dt, shape)))
    outputs.append((emit(f"empty() {{dtype={dt}, size=[4]}}", type_text(dt, [4])), type_text(dt, [4])))
    params = [("a", [64]), ("b", [64]), ("c", [64]), ("m", None), ("g", [8, 8]), ("r", [8]), ("e", [0, 8]),
              ("s", [1, 8]), ("m8", None), ("p", [64]), ("h", [8, 8])]
    sig = ", ".join(f"%{name}: " + ("bool[64]" if name == "m" else "bool[8]" if name == "m8" else type_text(dt, shape))
                    for name, shape in params)
    head = f"graph @sweep_{dt}({sig}) -> ({', '.join(t for _, t in outputs)}) {{"
    return "\n".join([head] + lines + ["  return " + ", ".join(v for v, _ in outputs), "}", ""]), len(outputs)


def special_values(dt, rng):
    """64 values of dtype dt (as float64 or int64), special ones first."""
    if dt in FLOATS:
        info = np.finfo(np.float16 if dt == "f16" else np.float64 if dt == "f64" else np.float32)
        tiny = float(info.smallest_subnormal) if dt != "bf16" else 9.2e-41
        big = float(info.max) if dt != "bf16" else 3.38e38
        vals = [0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, -3.0, 1e-3, -1e-3,
                0.1, 100.0, -100.0, 88.5, -88.5, 9.0, -20.0, tiny, -tiny, big, -big, 7.0, -7.0, 0.75, -1.5, 2.0]
        vals += list(rng.standard_normal(64 - len(vals)) * 4)
        return np.array(vals, dtype=np.float64)
    if dt == "bool":
        return rng.integers(0, 2, 64).astype(np.int64)
    info = np.iinfo(NP[dt])
    vals = [0, 1, -1, 2, -2, 3, -3, 7, -7, 8, 31, 32, 63, 64, 100, -100, info.min, info.max, info.min + 1,
            info.max - 1, 15, 16, -16, 5]
    vals += list(rng.integers(-50, 50, 64 - len(vals)))
    return np.array([int(v) for v in vals], dtype=np.int64)


def to_array(values, dt, shape):
    n = int(np.prod(shape, dtype=np.int64))
    v = np.resize(values, n) if n else values[:0]
    if dt == "bf16":
        bits = v.astype(np.float32).view(np.uint32).astype(np.uint64)
        rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
        rounded[np.isnan(v)] = 0x7FC0
        return rounded.view(BF16).reshape(shape)
    if dt in INTS:
        return v.astype(np.int64).astype(NP[dt]).reshape(shape)  # wraps, as a store
    return v.astype(NP[dt]).reshape(shape)


def write_inputs(dt, directory, seed):
    rng = np.random.default_rng(seed)
    base = special_values(dt, rng)
    rotate = lambda k: np.roll(base, k)  # noqa: E731
    arrays = {"a": to_array(base, dt, [64]), "b": to_array(rotate(7)[::-1], dt, [64]),
              "c": to_array(rotate(13), dt, [64]), "m": (rng.integers(0, 2, 64) == 1),
              "g": to_array(rotate(3), dt, [8, 8]), "r": to_array(rotate(29)[:8], dt, [8]),
              "e": to_array(base, dt, [0, 8]), "s": to_array(rotate(41)[:8], dt, [1, 8]),
              "m8": (rng.integers(0, 2, 8) == 1), "p": to_array(rotate(5), dt, [64]),
              "h": to_array(rotate(19), dt, [8, 8])}
    os.makedirs(directory, exist_ok=True)
    for name in INPUTS:
        np.save(os.path.join(directory, name + ".npy"), arrays[name])


def check_coverage(kiln):
    """Every elementwise op of ops.def appears in OPS or INPLACE (copy_ is write_back.kir's)."""
    listed = subprocess.run([kiln, "ops"], capture_output=True, text=True, check=True).stdout.splitlines()
    elementwise = [line.split()[0] for line in listed[1:] if "elementwise" in line.split()[1].split("|")]
    covered = {t.split("(")[0] for t, _, _ in OPS} | {t.split("(")[0] for t, _ in INPLACE} | {"copy_"}
    missing = [op for op in elementwise if op not in covered]
    if missing:
        sys.exit(f"elementwise_sweep.py: elementwise ops not in the sweep: {', '.join(missing)}")
    return len(elementwise)


def main():
    kiln, out = sys.argv[1], sys.argv[2]
    count = check_coverage(kiln)
    os.makedirs(out, exist_ok=True)
    for i, dt in enumerate(DTYPES):
        text, n = graph(dt)
        with open(os.path.join(out, dt + ".kir"), "w") as f:
            f.write(text)
        write_inputs(dt, os.path.join(out, dt), seed=i)
        print(f"{dt}: {n} outputs")
    print(f"all {count} elementwise ops of kiln ops are in the sweep")


main()
