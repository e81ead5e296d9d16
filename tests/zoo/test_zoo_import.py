#!/usr/bin/env python3
"""The zoo import harness: imports zoo archives with the C++ reader and runs them in kiln.

For each entry NAME of ENTRIES (or --only) whose archive is in ZOO_DIR (export_zoo.py writes
them), `kiln import NAME.pt2 -o WORK/NAME/NAME.kir`, then the `kiln run` line it prints, with
the user inputs of NAME.inputs.npz written as .npy, in the interpreter and with --device=cpu;
each output is compared with PyTorch's NAME.outputs.npy (a dynamic entry also on
NAME.other.inputs.npz, inputs of other sizes, against NAME.other.outputs.npy: one imported
graph, two sizes). With --core the core-ATen form
NAME.core.pt2 is imported and run too (row "NAME.core").

The error of a run is max|kiln - PyTorch| / max|PyTorch| over the output (a relative error
of the whole output, not of each element: logits near zero would make an elementwise relative
error meaningless). It must be at most TOLERANCE, 1e-4: float32 throughout, the same math as
PyTorch, only summed in another order (convolutions, matmuls, the means of pooling and batch
norm); over the 20 to 50 layers of these networks with random weights that reordering gives
errors of 1e-7 to 1e-5 of the output's scale, so 1e-4 leaves room and still catches a wrong
op (a wrong padding, an in-place op's lost mutation, a batch norm without its statistics move
the output by 1e-2 or more).

Prints a table (model, imported?, interpreter error, cpu error, or the error's first line) and
exits 1 when an entry of EXPECTED whose archive is present fails to import or to match in
either mode (an EXPECTED entry without an archive is reported, not failed, unless --export
just exported it: the ctest exports only a subset).

With --export the entries are first exported into ZOO_DIR with export_zoo.py --only (which
skips an entry whose archives are current): the ctest `zoo_import` runs it so on SUBSET.

Usage: test_zoo_import.py ZOO_DIR KILN_BIN [--only NAME...] [--core] [--export] [--work DIR]
"""
from __future__ import annotations

import argparse
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent

TOLERANCE = 1e-4

# The zoo's vision entries (torchvision and timm), then the others: everything the harness
# tries when --only is not given.
VISION = [
    "resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_large", "efficientnet_b0", "convnext_tiny",
    "regnet_y_400mf", "densenet121", "shufflenet_v2_x0_5", "squeezenet1_1", "mnasnet0_5", "vit_b_16", "swin_t",
    "deeplabv3_mobilenet_v3", "fcn_resnet50", "timm_vit_tiny", "timm_convnext_atto", "timm_resnet18d",
    "timm_mobilevit_xxs", "timm_efficientformer_l1", "timm_mixer_s16",
]
OTHERS = [
    "gpt2", "gpt2_train", "gpt2_eager", "gpt2_eager_train", "bert", "bert_train", "roberta", "roberta_train",
    "distilbert", "distilbert_train", "t5", "t5_train", "bart", "bart_train", "llama", "llama_train", "mistral",
    "mistral_train", "qwen2", "qwen2_train", "phi3", "phi3_train", "gemma", "gemma_train", "mixtral", "mixtral_train",
    "mixtral_batched_mm", "mixtral_batched_mm_train", "qwen2_moe", "qwen2_moe_train", "gpt2_dynamic",
    "resnet18_dynamic", "hf_vit", "clip_text", "clip_vision", "whisper_encoder",
]
ENTRIES = VISION + OTHERS

# Archives that must import and match in both modes: training IR (NAME) and core form
# (NAME.core). docs/IMPORT.md's vision table says why the others do not yet.
EXPECTED = [
    "resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_large", "efficientnet_b0", "convnext_tiny",
    "regnet_y_400mf", "densenet121", "shufflenet_v2_x0_5", "squeezenet1_1", "mnasnet0_5", "timm_convnext_atto",
    "timm_resnet18d", "timm_vit_tiny", "timm_mobilevit_xxs", "timm_efficientformer_l1", "vit_b_16", "timm_mixer_s16",
    "resnet18_dynamic",
    "swin_t", "deeplabv3_mobilenet_v3", "fcn_resnet50",
]
# The transformers whose every op imports (docs/IMPORT.md, "Networks: transformers"): the
# training forms compare their loss.
TEXT_EXPECTED = [
    "gpt2", "gpt2_train", "gpt2_eager", "gpt2_eager_train", "bert", "bert_train", "roberta", "roberta_train",
    "distilbert", "distilbert_train", "t5", "t5_train", "bart", "bart_train", "llama", "llama_train", "mistral",
    "mistral_train", "qwen2", "qwen2_train", "phi3", "phi3_train", "gemma", "gemma_train", "hf_vit", "clip_text",
    "clip_vision", "whisper_encoder", "gpt2_dynamic",
]
EXPECTED += [name + ".core" for name in EXPECTED]
EXPECTED += TEXT_EXPECTED + [name + ".core" for name in TEXT_EXPECTED]
# Mixture-of-experts entries (topk, sort, histc, transformers' grouped_mm_fallback, the
# dispatch's empty_like/empty_permuted, index_put_ and floor_divide, repeat_interleave): both forms.
MOE = ["mixtral", "mixtral_train", "qwen2_moe", "qwen2_moe_train", "mixtral_batched_mm", "mixtral_batched_mm_train"]
EXPECTED += MOE + [name + ".core" for name in MOE]


def first_line(text: str) -> str:
    """The error's first line; for kiln import's list of unsupported nodes, the distinct ops
    of that list with their counts instead of the nodes."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return "(no message)"
    first = next((line for line in lines if "error" in line.lower()), lines[0])
    if "whose ops kiln does not import yet" in first:
        counts: dict[str, int] = {}
        for line in lines[lines.index(first) + 1:]:
            op = line.split(" ", 1)[0]
            counts[op] = counts.get(op, 0) + 1
        return "unsupported: " + ", ".join(f"{op} x{n}" for op, n in counts.items())
    return first


def rel_error(got: np.ndarray, want: np.ndarray) -> float:
    if got.shape != want.shape:
        raise ValueError(f"output shape {list(got.shape)}, PyTorch's {list(want.shape)}")
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    diff = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))) if want.size else 0.0
    if not np.all(np.isfinite(got)):
        return float("inf")
    return diff / scale if scale > 0 else diff


class Row:
    def __init__(self, name: str, grads: bool = False):
        self.name = name
        self.imported = False
        # With PyTorch's gradients (NAME.grads.npz, the training forms): the largest relative
        # error of kiln's parameter gradients too, interpreted and compiled.
        self.errors: dict[str, float | None] = {"interp": None, "cpu": None}
        if grads:
            self.errors.update({"grad interp": None, "grad cpu": None})
        self.message = ""
        self.seconds = 0.0

    def passed(self) -> bool:
        return self.imported and not self.message and all(e is not None and e <= TOLERANCE for e in self.errors.values())


def check_grads(row: Row, kiln: str, out: pathlib.Path, argv: list[str], grads_file: pathlib.Path) -> None:
    """The training form's train step: `kiln grad model.kir --emit=joint` (the loss's joint
    forward+backward graph: the primals, a generator state and the loss's tangent in; the loss
    and each parameter's gradient out, in the graph's parameter order), run with the forward's
    inputs, a tangent of 1 and a zero generator state (the zoo's training forms draw no dropout),
    in the interpreter and compiled for the CPU; each gradient against PyTorch's by name. A name
    PyTorch lists that is no parameter of the graph is a tied weight (one tensor, one gradient)."""
    joint = subprocess.run([kiln, "grad", "model.kir", "--emit=joint"], cwd=out, capture_output=True, text=True)
    if joint.returncode != 0:
        row.message = row.message or f"grad: {first_line(joint.stderr + joint.stdout)}"
        return
    (out / "joint.kir").write_text(joint.stdout)
    header = (out / "model.kir").read_text().split("\n", 1)[0]
    params = [name for name, role in re.findall(r"%([A-Za-z0-9_.]+): (param |buffer |)\w+\[", header)
              if role.strip() == "param"]
    joint_header = joint.stdout.split("\n", 1)[0]
    np.save(out / "tangent0.npy", np.array(1.0, dtype=np.float32))
    extra = ["tangent0.npy"]
    if "%rng_state: rng_state" in joint_header:
        np.save(out / "rng_state.npy", np.zeros(2, dtype=np.int64))
        extra = ["rng_state.npy"] + extra
    listed = argv[argv.index("--inputs") + 1]
    run = [kiln, "run", "joint.kir", "--inputs", ",".join([listed] + extra)]
    with np.load(grads_file) as want:
        for mode, device in (("grad interp", []), ("grad cpu", ["--device=cpu"])):
            where = mode.replace(" ", "_")
            result = subprocess.run(run + device + ["--outputs", where], cwd=out, capture_output=True, text=True)
            if result.returncode != 0:
                row.message = row.message or f"{mode}: {first_line(result.stderr + result.stdout)}"
                continue
            missing = [name for name in params if name not in want.files]
            if missing:
                row.message = row.message or f"{mode}: PyTorch gives no gradient of parameter {missing[0]}"
                continue
            # Each gradient's error relative to its own scale, but at least 1e-4 of the largest
            # gradient's: a gradient that is 0 in exact arithmetic (attention's key bias, which
            # shifts a softmax row by a constant) is rounding noise of 1e-12 in both.
            floor = 1e-4 * max(float(np.max(np.abs(want[name]))) if want[name].size else 0.0 for name in params)
            worst = 0.0
            try:
                for i, name in enumerate(params):
                    got, ref = np.load(out / where / f"out{i + 1}.npy"), want[name]
                    if got.shape != ref.shape:
                        raise ValueError(f"{name}: gradient shape {list(got.shape)}, PyTorch's {list(ref.shape)}")
                    if not np.all(np.isfinite(got)):
                        raise ValueError(f"{name}: a gradient that is not finite")
                    scale = max(float(np.max(np.abs(ref))) if ref.size else 0.0, floor)
                    diff = float(np.max(np.abs(got.astype(np.float64) - ref))) if ref.size else 0.0
                    worst = max(worst, diff / scale if scale > 0 else diff)
            except (OSError, ValueError) as e:
                row.message = row.message or f"{mode}: {e}"
                continue
            row.errors[mode] = worst


def run_one(zoo: pathlib.Path, kiln: str, entry: str, archive: pathlib.Path, work: pathlib.Path) -> Row:
    grads_file = zoo / f"{entry}.grads.npz"
    row = Row(archive.name[: -len(".pt2")], grads_file.exists())
    start = time.monotonic()
    out = work / row.name
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    imp = subprocess.run([kiln, "import", str(archive), "-o", "model.kir"], cwd=out, capture_output=True, text=True)
    if imp.returncode != 0:
        row.message = first_line(imp.stderr + imp.stdout)
        row.seconds = time.monotonic() - start
        return row
    row.imported = True
    run_line = next((line for line in imp.stdout.splitlines() if line.startswith("run: ")), None)
    if run_line is None:
        row.message = "kiln import printed no run line"
        return row
    argv = shlex.split(run_line[len("run: "):])
    # The user inputs are the run line's files outside the weights directory, in the program's
    # order, which is the order of the .npz's arrays (its keys are PyTorch's names, which the
    # graph need not keep: Whisper's input_features is inputs_0 in the archive's signature).
    listed = argv[argv.index("--inputs") + 1].split(",")
    user_files = [f for f in listed if not f.startswith("model.weights/")]
    argv[0] = kiln
    # A dynamic program runs at the exported size and, where the export wrote them, at other
    # sizes within its ranges (NAME.other.inputs.npz): the same imported graph must match
    # both; a row's error is the larger of the two.
    sizes = [("", "")] + ([("other", ".other")] if (zoo / f"{entry}.other.inputs.npz").exists() else [])
    for size, infix in sizes:
        with np.load(zoo / f"{entry}{infix}.inputs.npz") as inputs:
            if len(inputs.files) != len(user_files):
                row.message = (f"{len(user_files)} user inputs in the graph, {len(inputs.files)} in "
                               f"{entry}{infix}.inputs.npz")
                row.seconds = time.monotonic() - start
                return row
            for key, path in zip(inputs.files, user_files):
                np.save(out / path, inputs[key])
        want = np.load(zoo / f"{entry}{infix}.outputs.npy")
        if want.size and not np.any(want):
            # torchvision's ViT and timm's Mixer zero their classifier heads: any graph that ends
            # in that head matches, so the comparison says nothing.
            row.message = "PyTorch's output is all zeros (a zero-initialized head): a match would prove nothing"
        for mode, extra in (("interp", []), ("cpu", ["--device=cpu"])):
            where = f"{mode}{' ' + size if size else ''}"
            result = subprocess.run(argv + extra + ["--outputs", mode], cwd=out, capture_output=True, text=True)
            if result.returncode != 0:
                row.message = row.message or f"{where}: {first_line(result.stderr + result.stdout)}"
                continue
            try:
                error = rel_error(np.load(out / mode / "out0.npy"), want)
            except (OSError, ValueError) as e:
                row.message = row.message or f"{where}: {e}"
                continue
            previous = row.errors[mode]
            row.errors[mode] = error if previous is None else max(previous, error)
    if grads_file.exists():
        check_grads(row, kiln, out, argv, grads_file)
    row.seconds = time.monotonic() - start
    return row


def fmt(e: float | None) -> str:
    return "-" if e is None else f"{e:.2e}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("zoo_dir", type=pathlib.Path)
    parser.add_argument("kiln_bin")
    parser.add_argument("--only", nargs="+", metavar="NAME")
    parser.add_argument("--core", action="store_true", help="also import and run NAME.core.pt2")
    parser.add_argument("--export", action="store_true", help="export the entries into ZOO_DIR first")
    parser.add_argument("--work", type=pathlib.Path, help="where the imported graphs go (default: a temporary dir)")
    args = parser.parse_args()

    entries = args.only or ENTRIES
    kiln = str(pathlib.Path(args.kiln_bin).resolve()) if "/" in args.kiln_bin else shutil.which(args.kiln_bin)
    if args.export:
        export = subprocess.run([sys.executable, str(HERE / "export_zoo.py"), str(args.zoo_dir), "--only", *entries],
                                capture_output=True, text=True)
        if export.returncode != 0:
            print(export.stdout + export.stderr)
            print("FAILED: export_zoo.py")
            return 1
    work = args.work or pathlib.Path(tempfile.mkdtemp(prefix="zoo_import_"))
    rows: list[Row] = []
    missing: list[str] = []
    for entry in entries:
        archives = [args.zoo_dir / f"{entry}.pt2"] + ([args.zoo_dir / f"{entry}.core.pt2"] if args.core else [])
        for archive in archives:
            if not archive.exists():
                missing.append(archive.name)
                continue
            rows.append(run_one(args.zoo_dir, kiln, entry, archive, work))
            r = rows[-1]
            grads = (f", gradients interp {fmt(r.errors['grad interp'])}, cpu {fmt(r.errors['grad cpu'])}"
                     if "grad cpu" in r.errors else "")
            print(f"  {r.name}: {'imported' if r.imported else 'not imported'}, "
                  f"interp {fmt(r.errors['interp'])}, cpu {fmt(r.errors['cpu'])}{grads} ({r.seconds:.1f} s)", flush=True)

    print(f"\n| model | imported | interpreter max rel err | cpu max rel err | gradients: interpreter, cpu | error |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        grads = f"{fmt(r.errors['grad interp'])}, {fmt(r.errors['grad cpu'])}" if "grad cpu" in r.errors else ""
        print(f"| {r.name} | {'yes' if r.imported else 'no'} | {fmt(r.errors['interp'])} | {fmt(r.errors['cpu'])} "
              f"| {grads} | {r.message.replace('|', '/')} |")
    if missing:
        print(f"\nno archive in {args.zoo_dir}: {', '.join(missing)}")
    present = {r.name: r for r in rows}
    failed = [name for name in EXPECTED if name in present and not present[name].passed()]
    print(f"\n{sum(r.passed() for r in rows)} of {len(rows)} archives import and match within {TOLERANCE:g}")
    if args.export and missing:
        failed += missing  # exported just now: a missing archive is a failed export
    if failed:
        print(f"FAILED: expected to import and match: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
