"""NumPy <-> kiln .npy interchange: the harness writes inputs with numpy.save (bf16 as kiln's
custom descr [('bf16', '<u2')]; transposed inputs as fortran_order=True files), kiln reads them,
clones them and writes its outputs, and numpy.load must read back exactly the same values.
Covers every dtype, 0-d and empty tensors, and edge values (NaN, inf, -0.0, integer extremes)."""
import torch

from oracle_case import Case, randint, randn, rand_bool

EXACT = dict(rtol=0.0, atol=0.0)
KIR = {torch.bool: "bool", torch.uint8: "u8", torch.int8: "i8", torch.int16: "i16", torch.int32: "i32",
       torch.int64: "i64", torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32", torch.float64: "f64"}


def ty(t):
    return f"{KIR[t.dtype]}[{','.join(map(str, t.shape))}]"


def identity(*inputs):
    """A graph that clones each input and returns the clones."""
    params = ", ".join(f"%x{i}: {ty(t)}" for i, t in enumerate(inputs))
    body = "\n".join(f"  %{i} = clone(%x{i}) : {ty(t)}" for i, t in enumerate(inputs))
    rets = ", ".join(f"%{i}" for i in range(len(inputs)))
    types = ", ".join(ty(t) for t in inputs)
    return f"graph @npy({params}) -> ({types}) {{\n{body}\n  return {rets}\n}}"


def case(name, *inputs):
    return Case(name, identity(*inputs), inputs=list(inputs), ref=lambda *xs: tuple(x.clone() for x in xs), **EXACT)


def extremes(dtype):
    info = torch.iinfo(dtype)
    return torch.tensor([info.min, info.max, 0, 1, -1 if info.min < 0 else 2], dtype=dtype)


EDGE = torch.tensor([0.0, -0.0, float("nan"), float("inf"), float("-inf"), 1.5, -2.25, 1e-3])

CASES = [
    case("all_dtypes", rand_bool(2, 3), randint(0, 256, 2, 3, dtype=torch.uint8),
         randint(-128, 128, 2, 3, dtype=torch.int8), randint(-1000, 1000, 2, 3, dtype=torch.int16),
         randint(-10**6, 10**6, 2, 3, dtype=torch.int32), randint(-10**12, 10**12, 2, 3),
         randn(2, 3, dtype=torch.float16), randn(2, 3, dtype=torch.bfloat16), randn(2, 3),
         randn(2, 3, dtype=torch.float64)),
    case("integer_extremes", *[extremes(d) for d in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)]),
    case("float_edge_values", *[EDGE.to(d) for d in (torch.float16, torch.bfloat16, torch.float32, torch.float64)]),
    case("zero_dim", torch.tensor(3.5), torch.tensor(-7), torch.tensor(True),
         torch.tensor(1.25, dtype=torch.bfloat16), torch.tensor(2.5, dtype=torch.float16)),
    case("empty", randn(0), randn(0, 3, dtype=torch.float64), randint(0, 5, 2, 0, 4, dtype=torch.int32),
         randn(3, 0, dtype=torch.bfloat16), rand_bool(0)),
    # numpy.save writes a transposed (Fortran-contiguous) array with fortran_order=True.
    case("fortran_order_inputs", randn(4, 3).t(), randint(-9, 9, 2, 3, 4, dtype=torch.int16).permute(2, 1, 0),
         randn(3, 5, dtype=torch.bfloat16).t()),
    case("larger", randn(64, 257), randint(-5, 5, 1000, dtype=torch.int8)),
]
