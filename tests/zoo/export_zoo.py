#!/usr/bin/env python3
"""Exports the model zoo (zoo_models.py) with torch.export into OUTDIR, for the C++ `.pt2`
reader's tests (issue 21). For each model NAME it writes:

  NAME.pt2           torch.export.save of the exported program (training IR, as exported)
  NAME.core.pt2      the same program decomposed to core ATen, keeping whole every op kiln has
                     (kiln_ops.core_aten_keeping_kiln_ops)
  NAME.inputs.npz    the example inputs, in the order the program takes them
  NAME.outputs.npy   PyTorch's eager output on those inputs (the reference)
  NAME.grads.npz     training-style entries only: the loss's gradient for every parameter the
                     loss reaches, by the parameter names of the program's signature
  NAME.other.inputs.npz, NAME.other.outputs.npy
                     dynamic entries only: inputs of other sizes within the program's ranges
                     and PyTorch's output on them
  NAME.json          what was exported: status, errors, inputs, output, timings, cache key

A model whose NAME.json carries the current cache key (this script's, zoo_models.py's and
kiln_ops.py's text, ops.def's op names and the library versions) and whose files are all
present is not exported again. A model that fails to export is reported with its error and
recorded in NAME.json (so the failure is cached too; --force retries), never fatal unless
--strict.

Usage: export_zoo.py OUTDIR [--only NAME...] [--list] [--force] [--strict]
Run with OMP_NUM_THREADS=1 on a shared machine: the models are tiny and threads only contend.
"""
from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import pathlib
import sys
import time
import traceback
import warnings

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import kiln_ops  # noqa: E402
import zoo_models  # noqa: E402

ARTIFACTS = (".pt2", ".core.pt2", ".inputs.npz", ".outputs.npy")
TRAIN_ARTIFACTS = (".grads.npz",)
DYNAMIC_ARTIFACTS = (".other.inputs.npz", ".other.outputs.npy")
ALL_ARTIFACTS = ARTIFACTS + TRAIN_ARTIFACTS + DYNAMIC_ARTIFACTS


def artifacts(meta: dict) -> tuple[str, ...]:
    """The files an exported entry has, by what NAME.json says it is."""
    return (ARTIFACTS + (TRAIN_ARTIFACTS if meta["train"] else ())
            + (DYNAMIC_ARTIFACTS if meta["dynamic"] else ()))


def library_versions() -> dict[str, str]:
    import timm
    import torchvision
    import transformers
    return {"torch": torch.__version__, "torchvision": torchvision.__version__,
            "transformers": transformers.__version__, "timm": timm.__version__,
            "numpy": np.__version__}


def cache_key(kiln_ops_names: set[str]) -> str:
    """Changes whenever anything that decides an archive's content changes: the zoo's code,
    the export code, the kiln ops kept whole, the library versions. One key for the whole zoo:
    an edit to one builder re-exports everything, which is simple and takes minutes."""
    digest = hashlib.sha256()
    for source in ("export_zoo.py", "zoo_models.py", "kiln_ops.py"):
        digest.update((HERE / source).read_bytes())
    digest.update(" ".join(sorted(kiln_ops_names)).encode())
    digest.update(json.dumps(library_versions(), sort_keys=True).encode())
    return digest.hexdigest()[:16]


def is_cached(outdir: pathlib.Path, name: str, key: str) -> bool:
    meta_path = outdir / f"{name}.json"
    if not meta_path.exists():
        return False
    meta = json.loads(meta_path.read_text())
    if meta.get("cache_key") != key:
        return False
    if meta["status"] != "ok":
        return True  # a failed export leaves no archive; its recorded error is the answer
    return all((outdir / f"{name}{ext}").exists() for ext in artifacts(meta))


def describe(tensor: torch.Tensor) -> dict:
    return {"dtype": str(tensor.dtype).removeprefix("torch."), "shape": list(tensor.shape)}


def short_error(error: BaseException) -> str:
    """The exception's type and first line: enough for the table in docs/ZOO.md."""
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0] if lines else ''}"[:300]


def count_calls(program) -> int:
    return sum(1 for node in program.graph.nodes if node.op == "call_function")


def reference_output(built: zoo_models.Built, inputs: dict[str, torch.Tensor]) -> torch.Tensor:
    with torch.no_grad():
        output = built.module(*inputs.values())
    assert isinstance(output, torch.Tensor), f"zoo models return one tensor, got {type(output)}"
    return output.detach()


def reference_gradients(built: zoo_models.Built) -> dict[str, np.ndarray]:
    """The gradient of a training-style entry's loss for every parameter it reaches, named as
    in the exported program's signature. A tied parameter (GPT-2's embedding and LM head) is
    listed under each of its names with the total gradient, what one shared parameter gets;
    the archive stores it as two names over one storage."""
    module = built.module
    module.zero_grad(set_to_none=True)
    module(*built.inputs.values()).backward()
    gradients = {name: parameter.grad.numpy().copy()
                 for name, parameter in module.named_parameters(remove_duplicate=False)
                 if parameter.grad is not None}
    module.zero_grad(set_to_none=True)
    return gradients


def dynamic_shapes(built: zoo_models.Built):
    """torch.export's dynamic_shapes for the positional inputs: one entry per input, None where
    static. The same symbol name gives the same Dim, so inputs that share a size share it."""
    if not built.dynamic:
        return None
    dims = {}
    for spec in built.dynamic.values():
        for symbol, low, high in spec.values():
            dims.setdefault(symbol, torch.export.Dim(symbol, min=low, max=high))
    per_input = tuple({dim: dims[symbol] for dim, (symbol, _, _) in built.dynamic[name].items()}
                      if name in built.dynamic else None
                      for name in built.inputs)
    # PickField.forward(*inputs) has one parameter, the tuple of inputs: its spec nests.
    parameters = inspect.signature(built.module.forward).parameters.values()
    takes_varargs = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters)
    return (per_input,) if takes_varargs else per_input


def export_one(model: zoo_models.ZooModel, outdir: pathlib.Path, key: str, decompositions) -> dict:
    meta = {"name": model.name, "family": model.family, "cache_key": key, "status": "ok"}
    started = time.perf_counter()
    built = model.build()
    meta["train"] = built.train
    meta["inputs"] = [{"name": name, **describe(t)} for name, t in built.inputs.items()]
    meta["build_seconds"] = round(time.perf_counter() - started, 2)

    output = reference_output(built, built.inputs)
    other_output = reference_output(built, built.other_inputs) if built.other_inputs else None
    meta["output"] = describe(output)
    gradients = reference_gradients(built) if built.train else None
    meta["dynamic"] = {name: {str(dim): list(spec) for dim, spec in dims.items()}
                       for name, dims in built.dynamic.items()}

    started = time.perf_counter()
    program = torch.export.export(built.module, tuple(built.inputs.values()),
                                  dynamic_shapes=dynamic_shapes(built))
    meta["export_seconds"] = round(time.perf_counter() - started, 2)
    meta["nodes"] = count_calls(program)

    started = time.perf_counter()
    core = program.run_decompositions(decompositions)
    meta["decompose_seconds"] = round(time.perf_counter() - started, 2)
    meta["core_nodes"] = count_calls(core)

    # The reference files first, the archives after: a crash midway leaves no NAME.json with
    # the current key, so the next run redoes this model.
    np.savez(outdir / f"{model.name}.inputs.npz", **{n: t.numpy() for n, t in built.inputs.items()})
    np.save(outdir / f"{model.name}.outputs.npy", output.numpy())
    if gradients is not None:
        np.savez(outdir / f"{model.name}.grads.npz", **gradients)
    if other_output is not None:
        np.savez(outdir / f"{model.name}.other.inputs.npz",
                 **{n: t.numpy() for n, t in built.other_inputs.items()})
        np.save(outdir / f"{model.name}.other.outputs.npy", other_output.numpy())
    torch.export.save(program, outdir / f"{model.name}.pt2")
    torch.export.save(core, outdir / f"{model.name}.core.pt2")
    return meta


def export_or_record_failure(model, outdir, key, decompositions) -> dict:
    started = time.perf_counter()
    try:
        meta = export_one(model, outdir, key, decompositions)
    except Exception as error:  # any model's failure is data for the report, not a crash
        meta = {"name": model.name, "family": model.family, "cache_key": key,
                "status": "failed", "error": short_error(error),
                "traceback": traceback.format_exc(limit=-8)}
        for ext in ALL_ARTIFACTS:  # no stale archive next to a failed entry
            (outdir / f"{model.name}{ext}").unlink(missing_ok=True)
    meta["seconds"] = round(time.perf_counter() - started, 2)
    (outdir / f"{model.name}.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def selected_models(only: list[str] | None) -> list[zoo_models.ZooModel]:
    if not only:
        return list(zoo_models.ZOO.values())
    unknown = [name for name in only if name not in zoo_models.ZOO]
    if unknown:
        sys.exit(f"export_zoo: unknown model(s) {', '.join(unknown)}; --list shows the zoo")
    return [zoo_models.ZOO[name] for name in only]


def export_zoo(outdir: pathlib.Path, models: list[zoo_models.ZooModel],
               force: bool = False) -> list[str]:
    """Exports `models` into `outdir` (those not cached), printing one line each and a summary;
    returns the names of those that failed."""
    outdir.mkdir(parents=True, exist_ok=True)
    kiln = kiln_ops.kiln_op_names()
    key = cache_key(kiln)
    decompositions = kiln_ops.core_aten_keeping_kiln_ops(kiln)
    started = time.perf_counter()
    failed = []
    for model in models:
        if not force and is_cached(outdir, model.name, key):
            meta = json.loads((outdir / f"{model.name}.json").read_text())
            state = "cached" if meta["status"] == "ok" else "cached failure: " + meta["error"]
        else:
            meta = export_or_record_failure(model, outdir, key, decompositions)
            state = (f"ok {meta['seconds']:.1f}s, {meta['nodes']} nodes, {meta['core_nodes']} core"
                     if meta["status"] == "ok" else "FAILED: " + meta["error"])
        if meta["status"] != "ok":
            failed.append(model.name)
        print(f"{model.name:28} {state}", flush=True)
    print(f"export_zoo: {len(models) - len(failed)} exported, {len(failed)} failed"
          f"{' (' + ', '.join(failed) + ')' if failed else ''}, "
          f"{time.perf_counter() - started:.1f}s", flush=True)
    return failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir", type=pathlib.Path, nargs="?")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="export only these models")
    parser.add_argument("--list", action="store_true", help="list the zoo and exit")
    parser.add_argument("--force", action="store_true", help="ignore the cache")
    parser.add_argument("--strict", action="store_true", help="exit 1 if any model fails")
    args = parser.parse_args()

    if args.list:
        for model in zoo_models.ZOO.values():
            print(f"{model.name:28} {model.family}")
        return 0
    if args.outdir is None:
        parser.error("OUTDIR is required (unless --list)")
    warnings.filterwarnings("ignore")  # library deprecation chatter hides the report
    failed = export_zoo(args.outdir, selected_models(args.only), force=args.force)
    return 1 if failed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
