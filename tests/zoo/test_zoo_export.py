#!/usr/bin/env python3
"""The `zoo_export` ctest: exports a small fixed subset of the zoo into OUTDIR with
export_zoo.py (a model that fails to export fails the test), then checks every archive:

  - NAME.pt2 and NAME.core.pt2 load back with torch.export.load and reproduce NAME.outputs.npy
    (PyTorch's eager output) on NAME.inputs.npz;
  - the core form holds no overload that the decomposition table decomposes, and every kiln
    op of the exported program is still whole in it (the table really kept them).

Usage: test_zoo_export.py OUTDIR [NAME...]   (the default subset is SUBSET)
"""
from __future__ import annotations

import pathlib
import subprocess
import sys
import warnings

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import kiln_ops  # noqa: E402

# A convolutional network with batch norm, a causal LM with sdpa attention and a dynamic
# batch and sequence, an LM's training-style program (loss out) and an encoder with padding
# masks: a few seconds each.
SUBSET = ["resnet18", "gpt2_dynamic", "llama_train", "bert"]
RTOL, ATOL = 1e-4, 1e-5  # float32: the same kernels, at most reordered by the decomposition


def load_inputs(outdir: pathlib.Path, name: str) -> list[torch.Tensor]:
    with np.load(outdir / f"{name}.inputs.npz") as inputs:
        return [torch.from_numpy(inputs[key]) for key in inputs.files]


def replay_errors(archive: pathlib.Path, inputs, expected: np.ndarray) -> list[str]:
    program = torch.export.load(archive)
    with torch.no_grad():
        actual = program.module()(*inputs).numpy()
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return [f"{archive.name}: output {actual.dtype}{list(actual.shape)}, "
                f"saved {expected.dtype}{list(expected.shape)}"]
    if not np.allclose(actual, expected, rtol=RTOL, atol=ATOL):
        worst = float(np.max(np.abs(actual.astype(np.float64) - expected)))
        return [f"{archive.name}: output differs from the saved one by up to {worst:.3g}"]
    return []


def aten_overloads(archive: pathlib.Path) -> set:
    program = torch.export.load(archive)
    return {node.target for node in program.graph.nodes
            if node.op == "call_function" and kiln_ops.aten_name(node.target) is not None}


def returns_tensor(op) -> bool:
    """False for `sym_size.int` and its kin: a dynamic program reads its symbolic dims with
    them, and they stay in the core form although the table lists a decomposition."""
    return any(str(result.type).startswith("Tensor") for result in op._schema.returns)


def decomposition_errors(outdir: pathlib.Path, name: str, kiln: set[str]) -> list[str]:
    """The core form must hold no overload that the table decomposes (that is, none of
    torch.export's default decompositions other than kiln's ops), and every kiln op of the
    exported program that the default table would decompose must still be there. Overloads
    that no table touches pass either way: torch functionalizes in-place ops, traces through
    views and `contiguous`, lowers `dropout` and `batch_norm` regardless, and leaves ops it
    has no decomposition for (`histc`, `empty_permuted`); the survey lists them."""
    decomposable = torch.export.default_decompositions()
    core = aten_overloads(outdir / f"{name}.core.pt2")
    errors = [f"{name}.core.pt2: `{op}` should have been decomposed"
              for op in core
              if op in decomposable and kiln_ops.aten_name(op) not in kiln and returns_tensor(op)]
    exported = aten_overloads(outdir / f"{name}.pt2")
    errors += [f"{name}.core.pt2: kiln's `{op}` was decomposed away"
               for op in exported
               if kiln_ops.aten_name(op) in kiln and op in decomposable
               and not op._schema.is_mutable and op not in core]
    return errors


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    outdir = pathlib.Path(sys.argv[1])
    names = sys.argv[2:] or SUBSET
    export = subprocess.run([sys.executable, str(HERE / "export_zoo.py"), str(outdir),
                             "--strict", "--only", *names])
    if export.returncode != 0:
        print("zoo_export: export_zoo.py failed", file=sys.stderr)
        return 1

    warnings.filterwarnings("ignore")
    kiln_ops.register_zoo_custom_ops()
    kiln = kiln_ops.kiln_op_names()
    errors = []
    for name in names:
        inputs = load_inputs(outdir, name)
        expected = np.load(outdir / f"{name}.outputs.npy")
        for archive in (f"{name}.pt2", f"{name}.core.pt2"):
            errors += replay_errors(outdir / archive, inputs, expected)
        errors += decomposition_errors(outdir, name, kiln)
    for error in errors:
        print(f"zoo_export: {error}", file=sys.stderr)
    print(f"zoo_export: {len(names)} models, {2 * len(names)} archives checked, "
          f"{len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
