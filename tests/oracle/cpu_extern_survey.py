#!/usr/bin/env python3
"""Which ops of the oracle cases the CPU backend runs as extern kernels (the op's reference
kernel on whole buffers) rather than as loops.

  cpu_extern_survey.py --kiln build/bin/kiln [CASES_FILE_OR_DIR ...] [-k SUBSTRING]
                       [--forbid op1,op2,...]

Lowers every case that expects no error with `kiln build case.kir --device=cpu --emit=loops`
(decomposed, lowered and scheduled as `kiln run --device=cpu` compiles it) and prints, per op,
how many cases run it as an extern kernel and which. With --forbid, exits 1 when a listed op
is an extern kernel in some case, other than the cases of ALLOWED below (a case expecting an
error is not lowered: the reference kernel reports it), or when an ALLOWED case no longer
keeps its op extern. Cases the backend refuses (symbolic shapes) are skipped."""
import collections
import os
import re
import subprocess
import sys
import warnings

import run_oracle

EXTERN = re.compile(r"^\s*kernel @\w+ extern (\w+)\(", re.M)

# Cases that keep a forbidden op an extern kernel on purpose, with the reason (LOWERING.md).
ALLOWED = {
    # topk and sort of a 0-d or empty line, and histc over the data's range (min == max), stay
    # whole: their decompositions decline them (docs/DECISIONS.md, "decompose").
    ("cases_sort.py", "topk_0d"): "a 0-d input: one element, nothing to order",
    ("cases_sort.py", "topk_0d_k0"): "a 0-d input: one element, nothing to order",
    ("cases_sort.py", "sort_0d"): "a 0-d input: one element, nothing to order",
    ("cases_sort.py", "sort_values_only_0d"): "a 0-d input: one element, nothing to order",
    ("cases_sort.py", "sort_empty"): "an empty line: nothing to order",
    ("cases_sort.py", "histc_data_range"): "the data's range is decided at run time",
    ("cases_sort.py", "histc_equal_bounds"): "the data's range is decided at run time",
    ("cases_sort.py", "histc_constant_data"): "the data's range is decided at run time",
    ("cases_sort.py", "histc_bf16_data_range"): "the data's range is decided at run time",
}


def main():
    ap = run_oracle.oracle_arguments(__doc__)
    ap.add_argument("--forbid", default="", help="comma-separated ops that must not be extern kernels")
    args = ap.parse_args()
    kiln = run_oracle.kiln_binary(args, "cpu_extern_survey")
    if kiln is None:
        return 2
    warnings.filterwarnings("ignore", category=UserWarning)  # torch on the edge cases' references
    forbidden = {op for op in args.forbid.split(",") if op}
    extern = collections.defaultdict(list)  # op -> case labels
    lowered, refused = 0, 0
    with run_oracle.scratch_directory("kiln_survey_", args.keep) as scratch:
        for path in run_oracle.case_files(args.paths):
            for case in run_oracle.load_cases(path):
                if args.filter not in case.name or case.expect_error is not None:
                    continue
                kir = os.path.join(scratch, "case.kir")
                with open(kir, "w") as f:
                    f.write(case.kir.rstrip("\n") + "\n")
                proc = subprocess.run([kiln, "build", kir, "--device=cpu", "--emit=loops"], stdin=subprocess.DEVNULL,
                                      capture_output=True, text=True, timeout=120)
                if proc.returncode != 0:
                    refused += 1
                    continue
                lowered += 1
                for op in sorted(set(EXTERN.findall(proc.stdout))):
                    extern[op].append(f"{path.name}::{case.name}")
    for op in sorted(extern, key=lambda o: (-len(extern[o]), o)):
        print(f"{op}: {len(extern[op])} cases ({', '.join(extern[op])})")
    print(f"{lowered} cases lowered, {refused} refused by the backend")
    problems = []
    for op in sorted(forbidden):
        cases = [c for c in extern.get(op, []) if tuple(c.split("::", 1)) not in ALLOWED]
        if cases:
            problems.append(f"{op} is an extern kernel in {len(cases)} cases ({', '.join(cases)})")
    if forbidden and not args.filter and not args.paths:
        for path, name in sorted(ALLOWED):
            if not any(f"{path}::{name}" in extern[op] for op in forbidden if op in extern):
                problems.append(f"{path}::{name} is allowed to keep an extern kernel but lowers to loops: "
                                "drop it from ALLOWED")
    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
