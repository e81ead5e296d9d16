#!/usr/bin/env python3
"""Fails when an oracle case compiled for the CPU runs one of the indexing, layout or copy ops
that lower to loops (docs/LOWERING.md) as an extern kernel instead, except for the cases listed
below with their reason: the differential test of those ops (oracle_cpu) must test the loops.

  check_cpu_extern.py --kiln build/bin/kiln [-v]

Each case's graph goes through `kiln build --device=cpu --emit=loops` (the CPU backend's passes
and lowering, no compiling); its `kernel @k extern OP(` lines are counted per op. -v prints
every extern op of every case (the survey)."""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

import run_oracle

# Ops that lower to loop bodies: none of their oracle cases may keep an extern kernel ...
LOWERED = {"gather", "index", "index_put", "as_strided", "scatter", "index_select", "constant_pad_nd",
           "slice_scatter", "roll", "index_add", "stack", "select_scatter", "scatter_add", "repeat", "flip",
           "embedding", "as_strided_scatter", "cat", "clone", "contiguous"}
# ... but these, where the reference kernel must report an error of its own (or, for one, a
# corner the lowering leaves to it; docs/LOWERING.md says why).
ALLOWED = {
    ("cases_index", "index_add_2d_index"): "index_add: a 2-d index is the reference kernel's error",
    ("cases_index", "index_put_dtype_mismatch"): "index_put: values of another dtype are its error",
    ("cases_index", "index_put_values_shape"): "index_put: values that do not broadcast are its error",
    ("cases_index", "scatter_float_index"): "scatter: a float index is its error",
    ("cases_view", "roll_flat_two_shifts"): "roll: shifts that do not pair with dims are its error",
    ("cases_view", "roll_shifts_dims_mismatch"): "roll: shifts that do not pair with dims are its error",
    ("cases_onnx_index", "index_add_scalar_self"): "index_add into a 0-d self stays extern (LOWERING.md)",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kiln", required=True)
    ap.add_argument("-v", action="store_true", help="print every extern op of every case")
    args = ap.parse_args()
    kiln = os.path.abspath(args.kiln)
    counts, problems, seen_allowed = collections.Counter(), [], set()
    with tempfile.TemporaryDirectory(prefix="kiln_extern_") as tmp:
        for path in run_oracle.case_files([]):
            for case in run_oracle.load_cases(path):
                kir = os.path.join(tmp, "case.kir")
                with open(kir, "w") as f:
                    f.write(case.kir.rstrip("\n") + "\n")
                proc = subprocess.run([kiln, "build", kir, "--device=cpu", "--emit=loops"], capture_output=True,
                                      text=True, stdin=subprocess.DEVNULL)
                if proc.returncode != 0:
                    continue  # graphs the backend refuses, or whose types are errors: oracle_cpu covers them
                for op in re.findall(r"kernel @\w+ extern (\w+)\(", proc.stdout):
                    counts[op] += 1
                    key = (path.stem, case.name)
                    if args.v:
                        print(f"{path.stem}::{case.name}: extern {op}")
                    if op not in LOWERED:
                        continue
                    if key in ALLOWED:
                        seen_allowed.add(key)
                    else:
                        problems.append(f"{path.stem}::{case.name}: '{op}' is an extern kernel")
    for key in sorted(set(ALLOWED) - seen_allowed):
        problems.append(f"{key[0]}::{key[1]}: listed as allowed extern, but it lowers to loops (drop it from ALLOWED)")
    print("extern kernels by op: " + ", ".join(f"{op} {n}" for op, n in counts.most_common()))
    for p in problems:
        print("FAIL " + p)
    print(f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
