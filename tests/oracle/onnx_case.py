"""The ONNX leg of the oracle (run_oracle.py --device onnx): each case's graph is exported with
`kiln export` (which runs ONNX's C++ checker and shape inference), checked again by ONNX's
Python checker with full_check=True, run in ONNX Runtime (and, with --onnx-reference, also in
ONNX's reference evaluator), and compared with kiln's interpreter on the same inputs with
kiln::onnx::verify's defaults: rtol 1e-3, atol 1e-7, NaN equal to NaN, the same dtype and
shape; bf16 outputs with rtol 2^-7, one bf16 unit in the last place, since rtol 1e-3 is finer
than bf16 holds: ONNX Runtime computes bf16 softmax and layer_norm in float and kiln's
interpreter in double, each rounding once to bf16, so a value near a rounding boundary lands on
either neighbour (88 and 1423 of 6.8M elements of cases_nn.py's 50257-wide rows, each one unit
apart). A case whose graph holds an op that kiln documents as not exportable (docs/ONNX.md)
is skipped with kiln's reason; every other export error fails."""
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "onnx"))
import run_onnx  # noqa: E402

RTOL, ATOL = 1e-3, 1e-7
BF16_RTOL = 2.0**-7  # one unit in the last place of a bf16 in [1, 2)

# What `kiln export` says for an op it documents as not exportable (onnx/export.cc and the
# exporters): such a case is skipped, with the message.
NOT_EXPORTABLE = ("has no ONNX mapping", "needs ONNX opset", "is not exportable to ONNX")


class NotExportable(Exception):
    pass


def compare(i, got, want):
    """None when the ONNX output `got` matches kiln's `want` (numpy arrays), else why not."""
    name = f"output {i}"
    if got.dtype != want.dtype:
        return f"{name}: ONNX gives dtype {got.dtype}, kiln {want.dtype}"
    if got.shape != want.shape:
        return f"{name}: ONNX gives shape {list(got.shape)}, kiln {list(want.shape)}"
    if got.size == 0:
        return None
    if want.dtype.kind == "f" or want.dtype.names:
        rtol = RTOL
        if want.dtype.names:  # bf16 bits
            g = (got["bf16"].astype(np.uint32) << 16).view(np.float32).astype(np.float64)
            w = (want["bf16"].astype(np.uint32) << 16).view(np.float32).astype(np.float64)
            rtol = BF16_RTOL
        else:
            g, w = got.astype(np.float64), want.astype(np.float64)
        close = np.isclose(g, w, rtol=rtol, atol=ATOL, equal_nan=True)
        if close.all():
            return None
        err = np.where(close, 0.0, np.nan_to_num(np.abs(g - w), nan=np.inf))
        idx = np.unravel_index(int(err.argmax()), g.shape)
        return (f"{name}: {int((~close).sum())} of {g.size} elements differ (rtol={rtol}, atol={ATOL}); "
                f"worst at {list(map(int, idx))}: ONNX {g[idx]!r}, kiln {w[idx]!r}")
    if np.array_equal(got, want):
        return None
    bad = got != want
    idx = np.unravel_index(int(np.flatnonzero(bad)[0]), got.shape)
    return f"{name}: {int(bad.sum())} of {got.size} elements differ; first at {list(map(int, idx))}: " \
           f"ONNX {got[idx]!r}, kiln {want[idx]!r}"


def run_case_onnx(kiln, workdir, kir, input_paths, opset=17, reference=False):
    """Returns None on success, else a description of the failure; raises NotExportable."""
    model = os.path.join(workdir, "model.onnx")
    proc = subprocess.run([kiln, "export", kir, "-o", model, f"--opset={opset}"], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        if proc.returncode == 1 and any(w in proc.stderr for w in NOT_EXPORTABLE):
            raise NotExportable(proc.stderr.strip().splitlines()[0])
        return f"kiln export exited with status {proc.returncode}:\n    " + "\n    ".join(proc.stderr.strip().splitlines()[-6:])
    import onnx
    try:
        onnx.checker.check_model(onnx.load(model), full_check=True)
    except Exception as e:
        return f"ONNX's Python checker (full_check) rejects the model: {str(e).strip().splitlines()[0]}"
    out_dir = os.path.join(workdir, "kiln_out")
    proc = subprocess.run([kiln, "run", kir, "--inputs=" + ",".join(input_paths), "--outputs", out_dir],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        return f"kiln run exited with status {proc.returncode}: {proc.stderr.strip()[-400:]}"
    want = []
    while os.path.exists(os.path.join(out_dir, f"out{len(want)}.npy")):
        want.append(np.load(os.path.join(out_dir, f"out{len(want)}.npy")))
    problems = []
    for backend in (["ort", "reference"] if reference else ["ort"]):
        try:
            session, names = run_onnx.make_session(model, backend)
            feeds = {n: run_onnx.load_input(np, p) for n, p in zip(names, input_paths)}
            got = [np.asarray(o) for o in session(feeds)]
        except Exception as e:
            problems.append(f"{backend} fails to run the model: {type(e).__name__}: "
                            f"{str(e).strip().splitlines()[0] if str(e).strip() else ''}")
            continue
        got = [g.view(np.uint16).view(np.dtype([("bf16", "<u2")])) if g.dtype.name == "bfloat16" else g for g in got]
        if len(got) < len(want):
            problems.append(f"{backend}: the model gives {len(got)} outputs, kiln {len(want)}")
            continue
        problems += [f"{backend}: {p}" for p in (compare(i, g, w) for i, (g, w) in enumerate(zip(got, want))) if p]
    return "\n    ".join(problems) if problems else None
