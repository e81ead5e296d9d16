"""kiln's op names, read from src/ops/ops.def (the one table of ops), and the decomposition
table that lowers an exported program to core ATen while keeping whole every op kiln has."""
from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
OPS_DEF = ROOT / "src" / "ops" / "ops.def"


def kiln_op_names(ops_def: pathlib.Path = OPS_DEF) -> set[str]:
    """The ATen-style schema names of the KILN_OP rows: `KILN_OP(Add, "add(Tensor self, ...` gives
    `add`. Read from the file rather than listed here so that an op added to kiln is kept whole
    by the next export and drops out of the survey's missing list without touching this code."""
    names = re.findall(r'^KILN_OP\(\w+,\s*"([A-Za-z0-9_]+)\(', ops_def.read_text(), re.M)
    assert names, f"no KILN_OP rows found in {ops_def}"
    return set(names)


def register_zoo_custom_ops() -> None:
    """Registers the non-ATen ops that zoo archives may call, so torch.export.load can resolve
    them: transformers' mixture-of-experts models call `transformers::grouped_mm_fallback`,
    defined when transformers.integrations.moe is imported."""
    import transformers.integrations.moe  # noqa: F401


def aten_name(op) -> str | None:
    """`aten.add.Tensor` -> `add`; None for targets outside the aten namespace (operator.getitem,
    higher-order ops, other libraries' custom ops)."""
    schema = getattr(op, "_schema", None)
    if schema is None or not schema.name.startswith("aten::"):
        return None
    return schema.name[len("aten::"):]


def overload_name(op) -> str:
    """The printed name of a call target: `aten.add.Tensor` for ATen overloads, the qualified
    name for anything else (`_operator.getitem`, `higher_order.cond`)."""
    if hasattr(op, "_schema"):
        return str(op)
    module = getattr(op, "__module__", None) or type(op).__module__
    return f"{module}.{getattr(op, '__name__', type(op).__name__)}"


def core_aten_keeping_kiln_ops(kiln_ops: set[str]):
    """torch.export's default (core ATen) decompositions minus every entry whose ATen name is a
    kiln op: `ep.run_decompositions(table)` then leaves `linear`, `layer_norm`,
    `scaled_dot_product_attention` and the rest of kiln's ops whole (issue 21)."""
    import torch

    table = torch.export.default_decompositions()
    for op in list(table.keys()):
        if aten_name(op) in kiln_ops:
            del table[op]
    return table
