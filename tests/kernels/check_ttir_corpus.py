#!/usr/bin/env python3
"""The TTIR corpus check (issue 7's acceptance): for every kernel in tests/kernels/ttir/,
`kiln kernel-mutations --names-only` must give PyTorch's written set (recorded beside the
file as torch_written), except where the case lists kiln's deliberate difference
(kiln_expected, with kiln_reason). Whatever the kernel really wrote on the GPU (gpu_written)
must be inside kiln's answer (so an answer emptied by an error fails for any kernel that
writes). Prints one line per kernel and a summary table."""
import argparse
import json
import pathlib
import subprocess
import sys


def kiln_written(kiln, ttir):
    p = subprocess.run([kiln, "kernel-mutations", "--names-only", str(ttir)], capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip()
    return [line for line in p.stdout.splitlines() if line], ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--corpus", default=str(pathlib.Path(__file__).resolve().parent / "ttir"))
    args = ap.parse_args()
    failures, same, differ = [], 0, 0
    cases = sorted(pathlib.Path(args.corpus).glob("*.json"))
    for case_path in cases:
        case = json.loads(case_path.read_text())
        name = case["name"]
        ttir = case_path.with_suffix(".ttir")
        got, err = kiln_written(args.kiln, ttir)
        if got is None:
            failures.append(f"{name}: kiln failed: {err}")
            continue
        torch = case["torch_written"]
        want = case.get("kiln_expected", torch)
        status = "same as PyTorch" if want == torch else "deliberately differs from PyTorch"
        if got != want:
            failures.append(f"{name}: kiln says {got}, expected {want} ({status})")
        gpu = case.get("gpu_written")
        if gpu is not None and not set(gpu) <= set(got):
            failures.append(f"{name}: the GPU run wrote {gpu}, which kiln's answer {got} misses")
        if want == torch:
            same += 1
        else:
            differ += 1
        note = f"  [{case['kiln_reason']}]" if "kiln_reason" in case else ""
        print(f"{name:32s} kiln={got} torch={torch} gpu={gpu}{note}")
    print(f"\n{len(cases)} kernels: {same} agree with PyTorch, {differ} differ by design, "
          f"{len(failures)} failures")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures or not cases else 0


if __name__ == "__main__":
    sys.exit(main())
