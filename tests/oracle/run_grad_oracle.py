#!/usr/bin/env python3
"""Checks kiln's derivative rules against PyTorch's CPU autograd on the oracle cases.

  run_grad_oracle.py --kiln build/bin/kiln [CASES_FILE_OR_DIR ...] [-k SUBSTRING] [-j 2] [-v] [--keep]
                     [--device cpu]

Takes every case of the cases files (default: tests/oracle/cases_*.py) that
  - expects no error,
  - is one graph (its nodes' bodies included),
  - has tensor inputs, at least one of them floating, and only floating outputs,
  - uses only ops whose derivatives.def row is KILN_GRAD or KILN_NONDIFF (in bodies too),
    at least one of them KILN_GRAD (PENDING and UNSUPPORTED ops are left out, so the test
    follows the rules as they land).
The gradients are those of the floating inputs; integer and bool inputs (indices, masks,
targets, predicates) are passed as they are. The case is rewritten in float64 (f16/bf16/f32
become f64 in the graph text, floating inputs .double()); outputs that are inputs or views of
one take a tangent like any other (so view ops are checked as they are),
`kiln grad case.kir --emit=joint` builds its joint graph, and
  kiln run joint.kir --inputs in0.npy,...,tangent0.npy,... --outputs out
runs it with seeded random f64 tangents shaped like the forward outputs that take one (and
the generator state (0, 0) where joint_graph added one for random ops). The forward outputs
must match ref(*inputs) and the gradient outputs torch.autograd.grad(ref outputs, inputs,
grad_outputs=tangents, allow_unused=True) (None read as zeros), both with rtol=1e-6,
atol=1e-8. A case whose reference is not differentiable in torch is skipped (-v says why).
KNOWN_DIFFERENCES lists cases whose gradient differs from torch's on purpose;
TORCH_AUTOGRAD_BUGS lists cases where torch's gradient is wrong, checked against float64
central finite differences instead. With --device cpu the joint graph runs compiled by the
CPU backend (`kiln run --device=cpu --check`, which also fails where the interpreter differs).
Prints one line per failure and ends with `N passed, M failed, K skipped`; exits 1 if any
case failed."""
import concurrent.futures
import os
import pathlib
import re
import subprocess
import sys
import traceback
import types
import warnings
import zlib

import torch

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
from run_oracle import (case_files, compare, kiln_binary, load_cases, load_tensor, oracle_arguments,  # noqa: E402
                        save_tensor, scratch_directory, tail)

RTOL, ATOL = 1e-6, 1e-8
TOLERANCE = types.SimpleNamespace(rtol=RTOL, atol=ATOL)

# "cases_file.py::case_name" -> why kiln's gradient differs from torch's on purpose. Only
# deliberate, documented kiln semantics belong here (e.g. which side gets the gradient at a
# tie); a rule that is simply wrong stays failing.
KNOWN_DIFFERENCES = {}

# "cases_file.py::case_name" -> a PyTorch autograd bug that makes torch's gradient wrong for
# the case; its gradients are checked against central finite differences of the reference
# (float64) instead, with the same tolerances.
TORCH_AUTOGRAD_BUGS = {
    "cases_reduce.py::var_dim_empty_list": "var(dim=[]) reduces over every dim, but its backward in "
                                           "torch 2.x treats dim=[] as no dim (N=1): +-inf gradients",
    "cases_reduce.py::std_dim_empty_list": "std(dim=[]): the same bug as var(dim=[])",
    "cases_view.py::as_strided_scatter": "torch 2.x's as_strided_scatter backward gives self the gradient "
                                         "under the view and zeros outside it: the reverse of what finite "
                                         "differences show",
    "cases_view.py::as_strided_scatter_default_offset": "as_strided_scatter: the same bug",
    "cases_grad_edges.py::as_strided_scatter_all": "as_strided_scatter: the same bug",
    "cases_index.py::scatter_0d_index": "torch 2.x's scatter backward gives src a 0-d gradient for a 0-d index "
                                        "and then rejects it for src's shape",
    "cases_index.py::scatter_add_0d_index": "scatter_add: the same bug as scatter_0d_index",
    "cases_onnx_index.py::scatter_small_index_big_src": "torch 2.x's scatter backward gives src a gradient "
                                                        "shaped like the index, then rejects it for src's shape",
}
FD_STEP = 1e-5

NODE_RE = re.compile(r"^\s*(%[\w.]+(?:\s*,\s*%[\w.]+)*)\s*=\s*([A-Za-z0-9_]+)\(", re.M)
LOW_FLOAT_RE = re.compile(r"\b(?:f16|bf16|f32)\b")


class Skip(Exception):
    pass


def ops_by_derivative_kind():
    """{"KILN_GRAD": names, "KILN_NONDIFF": names, ...}: the ops (as named in graph text) of
    each kind of derivatives.def row."""
    ops_def = (ROOT / "src" / "ops" / "ops.def").read_text()
    names = dict(re.findall(r'^KILN_OP\((\w+),\s*"([A-Za-z0-9_]+)\(', ops_def, re.M))
    derivs = (ROOT / "src" / "autograd" / "derivatives.def").read_text()
    kinds = {}
    for kind, enum in re.findall(r"^(KILN_\w+)\((\w+)\s*[,)]", derivs, re.M):
        kinds.setdefault(kind, set()).add(names[enum])
    return kinds


def eligibility(case, op_kinds):
    """None when the case is checked, else why it is left out (not counted as skipped)."""
    if case.expect_error is not None or case.ref is None:
        return "expects an error"
    if len(re.findall(r"^\s*graph\s+@", case.kir, re.M)) != 1:
        return "not a single graph"
    if re.search(r"\[[^\]]*[A-Za-z_]", case.kir.split("\n", 1)[0]):
        return "symbolic dims (joint_graph does not differentiate them yet)"
    if not case.inputs or not all(isinstance(t, torch.Tensor) for t in case.inputs):
        return "an input is not a tensor"
    if not any(t.is_floating_point() for t in case.inputs):
        return "no floating input"
    ops = [op for _, op in NODE_RE.findall(case.kir)]
    for op in ops:
        if op not in op_kinds["KILN_GRAD"] | op_kinds["KILN_NONDIFF"]:
            return f"{op} has no derivative rule"
    if not any(op in op_kinds["KILN_GRAD"] for op in ops):
        return "no op with a derivative rule"
    return None


def to_f64_text(kir):
    return LOW_FLOAT_RE.sub("f64", kir)


def run_kiln(cmd):
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None, f"{' '.join(cmd[:2])} timed out after 300 s"
    if proc.returncode != 0:
        return None, f"`kiln {cmd[1]}` exited with status {proc.returncode}:\n    {tail(proc.stderr or proc.stdout)}"
    return proc, None


def torch_reference(case, inputs, seed, differentiate=True):
    """(forward outputs, tangents, gradients of the floating inputs) from PyTorch (no gradients
    unless `differentiate`); raises Skip when the reference cannot be differentiated."""
    leaves = [t.clone().requires_grad_() if t.is_floating_point() else t for t in inputs]
    outs = case.ref(*[t.clone() for t in leaves])
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    for o in outs:
        if not isinstance(o, torch.Tensor) or not o.is_floating_point():
            raise Skip("an output is not a floating tensor")
        if o.dtype != torch.float64:
            raise Skip(f"the reference gives {o.dtype} on float64 inputs")
    gen = torch.Generator().manual_seed(seed)
    tangents = [torch.randn(o.shape, generator=gen, dtype=torch.float64) for o in outs]
    used = [i for i, o in enumerate(outs) if o.requires_grad]
    if not used:
        raise Skip("no output of the reference requires grad")
    if not differentiate:
        return [o.detach() for o in outs], tangents, None
    wrt = [t for t in leaves if t.is_floating_point()]
    try:
        grads = torch.autograd.grad([outs[i] for i in used], wrt, grad_outputs=[tangents[i] for i in used],
                                    allow_unused=True)
    except RuntimeError as e:
        raise Skip(f"torch cannot differentiate the reference: {str(e).splitlines()[0]}")
    grads = [torch.zeros_like(x) if g is None else g for x, g in zip(wrt, grads)]
    return [o.detach() for o in outs], tangents, grads


def finite_difference_grads(case, inputs, tangents):
    """d<tangents, ref(inputs)>/d inputs by central differences (step FD_STEP)."""
    def objective(xs):
        outs = case.ref(*[t.clone() for t in xs])
        outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
        return sum(float((o * t).sum()) for o, t in zip(outs, tangents))

    grads = []
    with torch.no_grad():
        for k, x in enumerate(inputs):
            if not x.is_floating_point():
                continue
            g = torch.zeros_like(x).reshape(-1)
            for i in range(x.numel()):
                xs = [t.clone() for t in inputs]
                xs[k].view(-1)[i] += FD_STEP
                up = objective(xs)
                xs[k].view(-1)[i] -= 2 * FD_STEP
                g[i] = (up - objective(xs)) / (2 * FD_STEP)
            grads.append(g.reshape(x.shape))
    return grads


def run_case(case, kiln, workdir, label, device):
    """None on success, else a description of the failure; raises Skip."""
    os.makedirs(workdir, exist_ok=True)
    inputs = [t.detach().double() if t.is_floating_point() else t.detach() for t in case.inputs]
    torch_is_wrong = label in TORCH_AUTOGRAD_BUGS
    try:
        want_outs, tangents, want_grads = torch_reference(case, inputs, zlib.crc32(case.name.encode()),
                                                          differentiate=not torch_is_wrong)
    except Skip:
        raise
    except Exception as e:
        raise Skip(f"the reference raised {type(e).__name__} on float64 inputs: {e}")
    if torch_is_wrong:
        want_grads = finite_difference_grads(case, inputs, tangents)

    kir = os.path.join(workdir, "case.kir")
    with open(kir, "w") as f:
        f.write(to_f64_text(case.kir).rstrip("\n") + "\n")
    proc, problem = run_kiln([kiln, "grad", kir, "--emit=joint"])
    if problem:
        return problem
    joint = os.path.join(workdir, "joint.kir")
    with open(joint, "w") as f:
        f.write(proc.stdout)
    paths = []
    for i, t in enumerate(inputs):
        paths.append(os.path.join(workdir, f"in{i}.npy"))
        save_tensor(paths[-1], t)
    if re.search(r"%\w+: rng_state i64\[2\]", proc.stdout.splitlines()[0]):
        # joint_graph gave the random draws a generator state input, after the primals.
        paths.append(os.path.join(workdir, "rng_state.npy"))
        save_tensor(paths[-1], torch.tensor([0, 0], dtype=torch.int64))
    # Tangents for the outputs the joint graph takes one for (%tangentK belongs to output K);
    # an output without one (no differentiated input reaches it) must have a zero gradient in
    # torch too, or the comparison fails.
    for i in map(int, re.findall(r"%tangent(\d+): tangent", proc.stdout.splitlines()[0])):
        paths.append(os.path.join(workdir, f"tangent{i}.npy"))
        save_tensor(paths[-1], tangents[i])
    out_dir = os.path.join(workdir, "out")
    cmd = [kiln, "run", joint, "--inputs=" + ",".join(paths), "--outputs", out_dir]
    _, problem = run_kiln(cmd + (["--device=cpu", "--check"] if device == "cpu" else []))
    if problem:
        return problem

    got = []
    while os.path.exists(os.path.join(out_dir, f"out{len(got)}.npy")):
        got.append(load_tensor(os.path.join(out_dir, f"out{len(got)}.npy")))
    want = want_outs + want_grads
    if len(got) != len(want):
        return f"the joint graph gives {len(got)} outputs, expected {len(want_outs)} forward outputs " \
               f"and {len(want_grads)} gradients"
    problems = []
    for i, (g, w) in enumerate(zip(got, want)):
        p = compare(i, g, w, TOLERANCE)
        if p:
            what = f"output {i}" if i < len(want_outs) else f"gradient of input {i - len(want_outs)}"
            problems.append(what + p[p.index(":"):])
    return "\n    ".join(problems) if problems else None


def main():
    ap = oracle_arguments(__doc__)
    ap.add_argument("-v", dest="verbose", action="store_true", help="print each skipped case and why")
    ap.add_argument("--device", choices=["interpreter", "cpu"], default="interpreter",
                    help="run the joint graphs in the interpreter (default) or compiled by the CPU backend")
    args = ap.parse_args()
    kiln = kiln_binary(args, "run_grad_oracle")
    if kiln is None:
        return 2
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore", category=UserWarning)
    op_kinds = ops_by_derivative_kind()

    failures, known, passed, skipped = [], [], 0, 0
    jobs = []
    for path in case_files(args.paths):
        try:
            cases = load_cases(path)
        except Exception:
            failures.append(f"FAIL {path.name}: cannot load the cases:\n    {tail(traceback.format_exc(), 4)}")
            print(failures[-1], flush=True)
            continue
        for case in cases:
            if args.filter in case.name and eligibility(case, op_kinds) is None:
                jobs.append((f"{path.name}::{case.name}", case))

    with scratch_directory("kiln_grad_oracle_", args.keep) as scratch:
        os.environ["KILN_CACHE_DIR"] = os.path.join(scratch, "kernel_cache")  # --device cpu: never ~/.cache

        def work(item):
            n, (label, case) = item
            try:
                workdir = os.path.join(scratch, f"{n:05d}_{case.name}")
                return label, "ok", run_case(case, kiln, workdir, label, args.device)
            except Skip as s:
                return label, "skip", str(s)
            except Exception:
                return label, "ok", f"the runner raised:\n    {tail(traceback.format_exc(), 4)}"

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for label, kind, problem in pool.map(work, enumerate(jobs)):
                if kind == "skip":
                    skipped += 1
                    if args.verbose:
                        print(f"SKIP {label}: {problem}", flush=True)
                elif problem is None:
                    passed += 1
                    if label in KNOWN_DIFFERENCES:
                        failures.append(f"FAIL {label}: listed in KNOWN_DIFFERENCES but agrees with torch now")
                        print(failures[-1], flush=True)
                elif label in KNOWN_DIFFERENCES:
                    known.append(label)
                    if args.verbose:
                        print(f"KNOWN {label}: {KNOWN_DIFFERENCES[label]}\n    {problem}", flush=True)
                else:
                    failures.append(f"FAIL {label}: {problem}")
                    print(failures[-1], flush=True)
    extra = f", {len(known)} known differences" if known else ""
    print(f"{passed} passed, {len(failures)} failed, {skipped} skipped{extra}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
