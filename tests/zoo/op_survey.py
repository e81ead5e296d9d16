#!/usr/bin/env python3
"""Surveys the ATen ops of the zoo's exported programs (export_zoo.py OUTDIR) against kiln's op
table, and prints the result as Markdown (docs/ZOO.md holds a copy):

  - one row per model: its node counts, how many distinct ATen overloads its core-ATen form
    uses, and those overloads that have no kiln op of the same name (src/ops/ops.def);
  - the union of those missing ops, each with the models that need it, for the core-ATen form
    (NAME.core.pt2) and for the program as exported (NAME.pt2, the training IR);
  - the models that failed to export, with their errors (from NAME.json).

"Same name" is the schema name without the overload: `aten.add.Tensor` and `aten.add.Scalar`
both count as kiln's `add`; whether kiln's op covers every overload's arity is the reader's
mapping to decide, not this survey.

Usage: op_survey.py OUTDIR
"""
from __future__ import annotations

import collections
import dataclasses
import datetime
import json
import os
import pathlib
import platform
import sys
import warnings

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import torch  # noqa: E402

import kiln_ops  # noqa: E402


@dataclasses.dataclass
class ProgramOps:
    nodes: int  # call_function nodes
    overloads: collections.Counter  # printed overload name -> uses
    missing: set[str]  # ATen overloads whose name is not a kiln op
    other_targets: set[str]  # getitem, higher-order ops: not ATen


def survey_program(path: pathlib.Path, kiln: set[str]) -> ProgramOps:
    program = torch.export.load(path)
    overloads = collections.Counter()
    missing, other = set(), set()
    for node in program.graph.nodes:
        if node.op != "call_function":
            continue
        name = kiln_ops.overload_name(node.target)
        overloads[name] += 1
        aten = kiln_ops.aten_name(node.target)
        if aten is None:
            other.add(name)
        elif aten not in kiln:
            missing.add(name)
    return ProgramOps(sum(overloads.values()), overloads, missing, other)


def kiln_ops_decomposed_anyway(ir: ProgramOps, core: ProgramOps, kiln: set[str]) -> set[str]:
    """Overloads of kiln ops in the exported program that its core form no longer has: not
    entries of the decomposition table (those are kept), but ops torch.export functionalizes
    (`relu_`), traces through (`reshape`, `contiguous`) or lowers regardless (`dropout`)."""
    return {op for op in ir.overloads
            if op.startswith("aten.") and op.split(".")[1] in kiln and op not in core.overloads}


def machine() -> str:
    model = platform.processor() or platform.machine()
    cpuinfo = pathlib.Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def load_metas(outdir: pathlib.Path) -> list[dict]:
    metas = []
    for path in sorted(outdir.glob("*.json")):
        meta = json.loads(path.read_text())
        if "cache_key" in meta:
            metas.append(meta)
    return metas


def union_table(title: str, needed_by: dict[str, list[str]]) -> list[str]:
    lines = [f"### {title}", ""]
    if not needed_by:
        return lines + ["None.", ""]
    lines += ["| overload | models |", "|---|---|"]
    for op in sorted(needed_by, key=lambda op: (-len(needed_by[op]), op)):
        lines.append(f"| `{op}` | {len(needed_by[op])}: {', '.join(needed_by[op])} |")
    return lines + [""]


def report(outdir: pathlib.Path) -> list[str]:
    kiln = kiln_ops.kiln_op_names()
    metas = load_metas(outdir)
    if not metas:
        sys.exit(f"op_survey: no exported models in {outdir} (run export_zoo.py {outdir} first)")
    exported = [m for m in metas if m["status"] == "ok"]
    failed = [m for m in metas if m["status"] != "ok"]
    versions = ", ".join(f"{lib} {v}" for lib, v in _versions().items())

    lines = [f"Surveyed {datetime.date.today().isoformat()}: {len(exported)} programs exported, "
             f"{len(failed)} failed; {versions}; {machine()}; kiln ops read from "
             f"src/ops/ops.def: {len(kiln)}.", ""]
    lines += ["| model | family | mode | nodes | core nodes | core overloads "
              "| core overloads without a kiln op |",
              "|---|---|---|---|---|---|---|"]
    core_needed, ir_needed = collections.defaultdict(list), collections.defaultdict(list)
    kiln_lost = collections.defaultdict(list)
    all_core, other_targets = collections.Counter(), set()
    for meta in exported:
        name = meta["name"]
        ir = survey_program(outdir / f"{name}.pt2", kiln)
        core = survey_program(outdir / f"{name}.core.pt2", kiln)
        for op in core.missing:
            core_needed[op].append(name)
        for op in ir.missing:
            ir_needed[op].append(name)
        for op in kiln_ops_decomposed_anyway(ir, core, kiln):
            kiln_lost[op].append(name)
        all_core.update(core.overloads.keys())
        other_targets |= core.other_targets | ir.other_targets
        missing = ", ".join(f"`{op}`" for op in sorted(core.missing)) or "none"
        mode = "train (loss)" if meta["train"] else "eval"
        lines.append(f"| {name} | {meta['family']} | {mode} | {ir.nodes} | {core.nodes} | "
                     f"{len(core.overloads)} | {missing} |")
    lines.append("")

    aten_core = {op for op in all_core if op.startswith("aten.")}
    aten_core_names = {op.split(".")[1] for op in aten_core}
    lines += [f"The core-ATen programs use {len(aten_core)} distinct ATen overloads "
              f"({len(aten_core_names)} distinct op names); {len(aten_core_names & kiln)} of "
              f"those names are kiln ops, {len(aten_core_names - kiln)} are not. Non-ATen call "
              f"targets: {', '.join(f'`{t}`' for t in sorted(other_targets)) or 'none'}.", ""]
    lines += union_table("Overloads without a kiln op, core-ATen form (NAME.core.pt2)", core_needed)
    lines += union_table("Overloads without a kiln op, as exported (NAME.pt2, training IR)",
                         ir_needed)
    lines += union_table("Kiln ops of the exported programs that the core form lost anyway "
                         "(torch.export decomposes them whatever the table)", kiln_lost)
    lines += ["### Models that failed to export", ""]
    lines += [f"- {m['name']}: {m['error']}" for m in failed] or ["None."]
    return lines


def _versions() -> dict[str, str]:
    import numpy
    import timm
    import torchvision
    import transformers
    return {"PyTorch": torch.__version__, "torchvision": torchvision.__version__,
            "transformers": transformers.__version__, "timm": timm.__version__,
            "numpy": numpy.__version__}


def main() -> int:
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    warnings.filterwarnings("ignore")
    kiln_ops.register_zoo_custom_ops()
    print("\n".join(report(pathlib.Path(sys.argv[1]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
