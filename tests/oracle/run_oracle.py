#!/usr/bin/env python3
"""Runs oracle cases (oracle_case.py) against the kiln CLI and PyTorch.

  run_oracle.py --kiln build/bin/kiln [CASES_FILE_OR_DIR ...] [-k SUBSTRING] [-j 2] [--keep]

For each case: writes the graph and its inputs (.npy; bf16 as kiln's custom descr
[('bf16', '<u2')]) to a scratch directory, runs
  kiln run case.kir --inputs in0.npy,... --outputs out --check-capture
and compares every outN.npy with the case's PyTorch reference: same dtype, same shape, and
torch.allclose(equal_nan=True) with the case's rtol/atol (exact equality for ints and bools).
A case with expect_error must make kiln exit with status 1 and print that text on stderr.
Prints one line per failure and ends with `N passed, M failed`; exits 1 if any failed.

With --device onnx each case is exported to ONNX and run in ONNX Runtime instead, compared with
kiln's interpreter at verify's default tolerances (onnx_case.py); ops kiln documents as not
exportable are skipped with the reason.

With --device cpu the cases run compiled by the CPU backend instead (`kiln run --device=cpu
--check`: lowered, fused, compiled to C++ and run; --check also runs the interpreter and fails
when an output differs beyond its dtype's tolerance), and the compiled outputs are compared
with PyTorch as above: the differential test of every op on the compiled backend. A case the
backend refuses (it names the node: symbolic shapes, control flow) counts as skipped, listed
with its reason; any other failure fails.

With --device cuda the same, compiled by the CUDA backend and run on the GPU (ctest
`oracle_cuda`, label gpu): where kiln finds no CUDA device it prints kiln's reason and exits 77,
which ctest counts as skipped."""
import argparse
import contextlib
import concurrent.futures
import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import traceback
import warnings

import numpy as np
import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import oracle_case  # noqa: E402
import onnx_case  # noqa: E402

# --device onnx: the opset to export and whether to also run ONNX's reference evaluator.
ONNX_OPTIONS = {"opset": 17, "reference": False}

DTYPE_NAMES = {torch.bool: "bool", torch.uint8: "u8", torch.int8: "i8", torch.int16: "i16", torch.int32: "i32",
               torch.int64: "i64", torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32",
               torch.float64: "f64"}
BF16_DESCR = np.dtype([("bf16", "<u2")])


def save_tensor(path, t):
    """Writes a torch tensor as .npy the way NumPy does; bf16 as a record array of raw bits."""
    t = t.detach().cpu()
    if t.dtype not in DTYPE_NAMES:
        raise ValueError(f"kiln has no dtype for {t.dtype}")
    if t.dtype == torch.bfloat16:
        bits = t.contiguous().view(torch.int16).numpy().view(np.uint16)
        np.save(path, bits.view(BF16_DESCR).reshape(tuple(t.shape)))
    else:
        np.save(path, t.numpy())


def load_tensor(path):
    """Reads a .npy file written by kiln (or NumPy) as a torch tensor."""
    arr = np.load(path)
    if arr.dtype.names == ("bf16",):
        bits = arr["bf16"].copy().view(np.int16)  # (ascontiguousarray would make 0-d arrays 1-d)
        return torch.from_numpy(bits.copy()).view(torch.bfloat16)
    return torch.from_numpy(np.array(arr))


def fmt(x):
    return repr(x.item()) if x.numel() == 1 else str(x.tolist())


def compare(i, got, want, case):
    """None when kiln's output `got` matches the reference `want`, else why not."""
    name = f"out{i}"
    if not isinstance(want, torch.Tensor):
        want = torch.as_tensor(want)
    if got.dtype != want.dtype:
        return f"{name}: kiln gives dtype {DTYPE_NAMES.get(got.dtype, got.dtype)}, " \
               f"PyTorch {DTYPE_NAMES.get(want.dtype, want.dtype)}"
    if tuple(got.shape) != tuple(want.shape):
        return f"{name}: kiln gives shape {list(got.shape)}, PyTorch {list(want.shape)}"
    if got.numel() == 0:
        return None
    if got.is_floating_point():
        g, w = got.double(), want.double()
        if torch.allclose(g, w, rtol=case.rtol, atol=case.atol, equal_nan=True):
            return None
        bad = ~torch.isclose(g, w, rtol=case.rtol, atol=case.atol, equal_nan=True)
        err = torch.where(bad, (g - w).abs().nan_to_num(nan=float("inf")), torch.zeros_like(g))
        idx = np.unravel_index(int(err.flatten().argmax()), tuple(got.shape))
        return (f"{name}: {int(bad.sum())} of {got.numel()} elements differ (rtol={case.rtol}, atol={case.atol}); "
                f"worst at {list(map(int, idx))}: kiln {g[idx].item()!r}, PyTorch {w[idx].item()!r}")
    if torch.equal(got, want):
        return None
    bad = got != want
    idx = np.unravel_index(int(bad.flatten().nonzero()[0]), tuple(got.shape))
    return (f"{name}: {int(bad.sum())} of {got.numel()} elements differ; first at {list(map(int, idx))}: "
            f"kiln {got[idx].item()!r}, PyTorch {want[idx].item()!r}")


def tail(text, lines=6):
    return "\n    ".join(text.strip().splitlines()[-lines:])


# What `kiln run --device=cpu` says when lowering refuses a graph for its shapes (lower/lower.cc):
# such a case is skipped, not failed. Every higher-order op is lowered (cond and while_loop
# as control kernels), so control flow is never a reason to skip.
NOT_LOWERED = ("only static shapes are lowered", "has symbolic shape")


# Devices whose cases run compiled by a backend (`kiln run --device=D --check`).
COMPILED = ("cpu", "cuda")


def missing_device(kiln, device):
    """Why kiln cannot run on `device` ("no CUDA device: ..."), or None when it can."""
    with tempfile.TemporaryDirectory(prefix="kiln_probe_") as d:
        kir = os.path.join(d, "probe.kir")
        with open(kir, "w") as f:
            f.write("graph @probe() -> (f32[2]) {\n  %0 = full() {fill_value=1.0, size=[2]} : f32[2]\n  return %0\n}\n")
        proc = subprocess.run([kiln, "run", kir, f"--device={device}"], stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=300)
    first = (proc.stderr.strip().splitlines() or [""])[0]
    # kiln's errors where the driver library is missing or is the toolkit's stub, where cuInit
    # fails (no device, a driver without a usable GPU) or where the driver sees no device.
    missing = ("no CUDA device", "the CUDA driver (libcuda.so.1)", "cuInit", "CUDA_ERROR_NO_DEVICE",
               "CUDA_ERROR_STUB_LIBRARY")
    return first if proc.returncode != 0 and any(m in proc.stderr for m in missing) else None


class Skipped(Exception):
    """A case the compiled backend does not handle (yet), with kiln's reason."""


def run_case(case, kiln, workdir, device="interpreter"):
    """Returns None on success, else a description of the failure; raises Skipped."""
    os.makedirs(workdir, exist_ok=True)
    kir = os.path.join(workdir, "case.kir")
    with open(kir, "w") as f:
        f.write(case.kir.rstrip("\n") + "\n")
    paths = []
    for i, t in enumerate(case.inputs):
        paths.append(os.path.join(workdir, f"in{i}.npy"))
        save_tensor(paths[-1], t)
    if device == "onnx":
        if case.expect_error is not None:
            raise Skipped("the case checks an error of kiln's interpreter")
        if case.onnx_skip is not None:
            raise Skipped(case.onnx_skip)
        try:
            reference = ONNX_OPTIONS["reference"] and case.onnx_reference_skip is None
            return onnx_case.run_case_onnx(kiln, workdir, kir, paths, ONNX_OPTIONS["opset"], reference)
        except onnx_case.NotExportable as why:
            raise Skipped(str(why))
    out_dir = os.path.join(workdir, "out")
    cmd = [kiln, "run", kir, "--inputs=" + ",".join(paths), "--outputs", out_dir]
    cmd += [f"--device={device}", "--check"] if device in COMPILED else ["--check-capture"]
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "kiln run timed out after 300 s"
    expected = case.expect_error is not None and proc.returncode == 1 and case.expect_error in proc.stderr
    if device in COMPILED and proc.returncode == 1 and not expected and any(w in proc.stderr for w in NOT_LOWERED):
        raise Skipped(proc.stderr.strip().splitlines()[0])
    if case.expect_error is not None:
        if proc.returncode != 1:
            return f"expected exit status 1 and an error containing {case.expect_error!r}, got status " \
                   f"{proc.returncode}\n    {tail(proc.stderr or proc.stdout)}"
        if case.expect_error not in proc.stderr:
            return f"expected an error containing {case.expect_error!r}, got:\n    {tail(proc.stderr)}"
        return None
    if proc.returncode != 0:
        return f"kiln run exited with status {proc.returncode}:\n    {tail(proc.stderr or proc.stdout)}"

    try:
        want = case.ref(*[t.clone() for t in case.inputs])
    except Exception as e:  # a broken reference is a failed case, not a crash of the runner
        return f"the PyTorch reference raised {type(e).__name__}: {e}"
    want = list(want) if isinstance(want, (tuple, list)) else [want]
    got = []
    while os.path.exists(os.path.join(out_dir, f"out{len(got)}.npy")):
        got.append(load_tensor(os.path.join(out_dir, f"out{len(got)}.npy")))
    if len(got) != len(want):
        return f"kiln gives {len(got)} outputs, PyTorch {len(want)}"
    problems = [p for p in (compare(i, g, w, case) for i, (g, w) in enumerate(zip(got, want))) if p]
    return "\n    ".join(problems) if problems else None


def load_cases(path):
    oracle_case.reset_generator()
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.CASES)


def case_files(args):
    if not args:
        return sorted(HERE.glob("cases_*.py"))
    files = []
    for a in map(pathlib.Path, args):
        files.extend(sorted(a.glob("cases_*.py")) if a.is_dir() else [a])
    return files


def oracle_arguments(description):
    """The command line both oracle runners share; the caller may add options before parsing."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kiln", required=True, help="path of the kiln binary")
    ap.add_argument("paths", nargs="*", help="cases files or directories (default: tests/oracle/cases_*.py)")
    ap.add_argument("-k", dest="filter", default="", help="run only cases whose name contains this")
    ap.add_argument("-j", dest="jobs", type=int, default=2, help="cases run in parallel (default 2)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory and print where it is")
    return ap


def kiln_binary(args, tool):
    """The absolute path of --kiln, or None after saying why it cannot run."""
    kiln = os.path.abspath(args.kiln)
    if not os.access(kiln, os.X_OK):
        print(f"{tool}: {kiln} is not an executable", file=sys.stderr)
        return None
    return kiln


@contextlib.contextmanager
def scratch_directory(prefix, keep):
    """A temporary directory for the cases' files, removed afterwards unless `keep`."""
    scratch = tempfile.mkdtemp(prefix=prefix)
    try:
        yield scratch
    finally:
        if keep:
            print(f"scratch files kept in {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def main():
    ap = oracle_arguments(__doc__)
    ap.add_argument("--device", choices=["interpreter", "cpu", "cuda", "onnx"], default="interpreter",
                    help="run the cases on the interpreter (default), compiled by the CPU or CUDA backend, or "
                         "exported to ONNX and run in ONNX Runtime (compared with the interpreter; onnx_case.py)")
    ap.add_argument("--opset", type=int, default=17, help="--device onnx: the ONNX opset to export (default 17)")
    ap.add_argument("--onnx-reference", action="store_true",
                    help="--device onnx: also run ONNX's reference evaluator")
    args = ap.parse_args()
    ONNX_OPTIONS.update(opset=args.opset, reference=args.onnx_reference)
    kiln = kiln_binary(args, "run_oracle")
    if kiln is None:
        return 2
    if args.device == "cuda" and (why := missing_device(kiln, "cuda")):
        print(why)
        return 77
    torch.set_num_threads(1)
    # References of edge cases (empty reductions, var with too few elements) make torch warn.
    warnings.filterwarnings("ignore", category=UserWarning)

    failures, passed, skipped = [], 0, []
    jobs = []  # (label, case)
    for path in case_files(args.paths):
        try:
            cases = load_cases(path)
        except Exception:
            failures.append(f"FAIL {path.name}: cannot load the cases:\n    {tail(traceback.format_exc(), 4)}")
            print(failures[-1], flush=True)
            continue
        seen = set()
        for case in cases:
            if case.name in seen:
                failures.append(f"FAIL {path.name}::{case.name}: duplicate case name")
                print(failures[-1], flush=True)
            seen.add(case.name)
            if args.filter in case.name:
                jobs.append((f"{path.name}::{case.name}", case))

    with scratch_directory("kiln_oracle_", args.keep) as scratch:
        # Compiled kernels go to a cache of this run's own (shared by its cases), never ~/.cache.
        os.environ["KILN_CACHE_DIR"] = os.path.join(scratch, "kernel_cache")
        def work(item):
            n, (label, case) = item
            try:
                return label, run_case(case, kiln, os.path.join(scratch, f"{n:05d}_{case.name}"), args.device)
            except Skipped as why:
                return label, Skipped(str(why))
            except Exception:
                return label, f"the runner raised:\n    {tail(traceback.format_exc(), 4)}"

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for label, problem in pool.map(work, enumerate(jobs)):
                if problem is None:
                    passed += 1
                elif isinstance(problem, Skipped):
                    skipped.append(f"skipped {label}: {problem}")
                else:
                    failures.append(f"FAIL {label}: {problem}")
                    print(failures[-1], flush=True)
    for line in skipped:
        print(line)
    print(f"{passed} passed, {len(failures)} failed" + (f", {len(skipped)} skipped" if skipped else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
