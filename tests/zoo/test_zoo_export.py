#!/usr/bin/env python3
"""The `zoo_export` ctest: exports a small fixed subset of the zoo into OUTDIR with
export_zoo.py (a model that fails to export fails the test), then checks every archive:

  - NAME.pt2 and NAME.core.pt2 load back with torch.export.load and reproduce NAME.outputs.npy
    (PyTorch's eager output) on NAME.inputs.npz, dynamic ones also NAME.other.outputs.npy on
    inputs of other sizes, and training-style ones the gradients of NAME.grads.npz when the
    loaded program is differentiated;
  - the core form holds no overload that the decomposition table decomposes, and every kiln
    op of the exported program is still whole in it (the table really kept them).

Usage: test_zoo_export.py OUTDIR [NAME...]   (the default subset is SUBSET)
"""
from __future__ import annotations

import collections
import pathlib
import sys
import warnings

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import export_zoo  # noqa: E402
import kiln_ops  # noqa: E402

# A convolutional network with batch norm, a causal LM with sdpa attention and a dynamic
# batch and sequence, an LM's training-style program (loss out) and an encoder with padding
# masks: a few seconds each.
SUBSET = ["resnet18", "gpt2_dynamic", "llama_train", "bert"]
RTOL, ATOL = 1e-4, 1e-5  # float32: the same kernels, at most reordered by the decomposition
GRAD_RTOL, GRAD_ATOL = 1e-4, 1e-6  # the backward of the same kernels, also at most reordered


def load_inputs(outdir: pathlib.Path, name: str, prefix: str = "") -> list[torch.Tensor]:
    with np.load(outdir / f"{name}{prefix}.inputs.npz") as inputs:
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


def gradient_errors(archive: pathlib.Path, inputs, expected: dict[str, np.ndarray]) -> list[str]:
    """Differentiates the loaded program's loss and compares every parameter's gradient with
    the saved one. The loaded module gives tied names (one storage in the archive) separate
    parameters over shared memory, each with its own part of the gradient: their sum is the
    saved total."""
    module = torch.export.load(archive).module()
    module(*inputs).backward()
    parameters = dict(module.named_parameters(remove_duplicate=False))
    totals = collections.defaultdict(float)
    for parameter in parameters.values():
        if parameter.grad is not None:
            totals[parameter.data_ptr(), parameter.shape] += parameter.grad.numpy()
    errors = [f"{archive.name}: the saved gradient of `{name}` names no parameter"
              for name in expected if name not in parameters]
    for name, want in expected.items():
        parameter = parameters.get(name)
        if parameter is None:
            continue
        got = totals.get((parameter.data_ptr(), parameter.shape))
        if got is None:
            errors.append(f"{archive.name}: `{name}` gets no gradient")
        elif not np.allclose(got, want, rtol=GRAD_RTOL, atol=GRAD_ATOL):
            worst = float(np.max(np.abs(got - want)))
            errors.append(f"{archive.name}: the gradient of `{name}` differs by up to {worst:.3g}")
    return errors


def archive_errors(archive: pathlib.Path, inputs, expected: np.ndarray,
                   gradients: dict[str, np.ndarray] | None) -> list[str]:
    """Replays one archive (and differentiates it, for a training-style entry); an archive
    that PyTorch cannot load or run is a problem of that archive, and the others are still
    checked."""
    try:
        errors = replay_errors(archive, inputs, expected)
        if gradients is not None:
            errors += gradient_errors(archive, inputs, gradients)
        return errors
    except Exception as error:
        first_line = (str(error).strip().splitlines() or [""])[0]
        return [f"{archive.name}: {type(error).__name__}: {first_line}"]


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
    warnings.filterwarnings("ignore")
    # In this process rather than a second one: importing torch and transformers again would
    # cost as much as exporting the four models.
    failed = export_zoo.export_zoo(outdir, export_zoo.selected_models(names))
    if failed:
        print(f"zoo_export: export failed: {', '.join(failed)} (their NAME.json has the error)",
              file=sys.stderr)
        return 1

    kiln_ops.register_zoo_custom_ops()
    kiln = kiln_ops.kiln_op_names()
    errors = []
    for name in names:
        inputs = load_inputs(outdir, name)
        expected = np.load(outdir / f"{name}.outputs.npy")
        gradients_path = outdir / f"{name}.grads.npz"
        gradients = dict(np.load(gradients_path)) if gradients_path.exists() else None
        for archive in (outdir / f"{name}.pt2", outdir / f"{name}.core.pt2"):
            errors += archive_errors(archive, inputs, expected, gradients)
            if (outdir / f"{name}.other.inputs.npz").exists():  # a dynamic program, resized
                errors += archive_errors(archive, load_inputs(outdir, name, ".other"),
                                         np.load(outdir / f"{name}.other.outputs.npy"), None)
        errors += decomposition_errors(outdir, name, kiln)
    for error in errors:
        print(f"zoo_export: {error}", file=sys.stderr)
    print(f"zoo_export: {len(names)} models, {2 * len(names)} archives checked, "
          f"{len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
