"""Builds the graph text of an oracle case that applies one op (optionally after a few
setup nodes, such as a transpose that makes an operand non-contiguous) to inputs %a, %b, ...
Result types come from running the PyTorch reference, so cases state each op call once."""
import torch

from oracle_case import Case

KIR_DTYPES = {torch.bool: "bool", torch.uint8: "u8", torch.int8: "i8", torch.int16: "i16", torch.int32: "i32",
              torch.int64: "i64", torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32",
              torch.float64: "f64"}


def kir_type(t):
    return f"{KIR_DTYPES[t.dtype]}[{','.join(str(s) for s in t.shape)}]"


def single_op(call, inputs, ref=None, pre=(), out_type=None):
    """`call` is the node's text without result and type ("add(%a, %b) {alpha=2}"); `pre` is a
    list of (name, text, fn) setup nodes where fn maps the inputs to that node's value; the
    result type is `out_type`, or that of ref(*inputs)."""
    names = [chr(ord("a") + i) for i in range(len(inputs))]
    params = ", ".join(f"%{n}: {kir_type(t)}" for n, t in zip(names, inputs))
    lines = [f"  %{name} = {text} : {kir_type(fn(*inputs))}" for name, text, fn in pre]
    if out_type is None:
        out = ref(*[t.clone() for t in inputs])
        out_type = kir_type(out[0] if isinstance(out, (tuple, list)) else out)
    lines.append(f"  %0 = {call} : {out_type}")
    body = "\n".join(lines)
    return f"graph @g({params}) -> ({out_type}) {{\n{body}\n  return %0\n}}"


TRANSPOSE_A = [("t", "transpose(%a) {dim0=0, dim1=1}", lambda a, *rest: a.transpose(0, 1))]


class SingleOpCases(list):
    """The CASES list of a case file, filled by add/add_error with single_op graphs; keyword
    arguments given here are default tolerances for every case it adds."""

    def __init__(self, **defaults):
        super().__init__()
        self.defaults = defaults

    def add(self, name, call, inputs, ref, pre=(), **kw):
        self.append(Case(name, single_op(call, inputs, ref, pre), inputs=inputs, ref=ref, **{**self.defaults, **kw}))

    def add_error(self, name, call, inputs, out_type, message):
        self.append(Case(name, single_op(call, inputs, out_type=out_type), inputs=inputs, expect_error=message))
