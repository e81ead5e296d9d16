#!/usr/bin/env python3
"""Fails unless every differentiable op (a KILN_GRAD row of src/autograd/derivatives.def) has
an edge-point case in tests/oracle/cases_grad_edges.py that the gradient oracle
(run_grad_oracle.py) checks, and prints, per op, the edge kinds its cases try (EDGE_KINDS).
Also fails for a case without an EDGE_KINDS entry, an entry without a case, or an entry
naming an op that its graph does not use or that has no derivative rule.

  check_grad_coverage.py [-v]    (-v: the table of every op's edge kinds and cases)"""
import sys
import warnings

from run_grad_oracle import HERE, NODE_RE, eligibility, ops_by_derivative_kind
from run_oracle import load_cases

warnings.filterwarnings("ignore", category=UserWarning)  # edge references (var of one element) warn


def main():
    verbose = "-v" in sys.argv[1:]
    path = HERE / "cases_grad_edges.py"
    cases = {case.name: case for case in load_cases(path)}
    import cases_grad_edges  # noqa: E402 (after load_cases, which seeds its inputs)
    edge_kinds = cases_grad_edges.EDGE_KINDS
    op_kinds = ops_by_derivative_kind()
    differentiable = op_kinds["KILN_GRAD"]

    problems = []
    kinds_of, cases_of = {}, {}
    for name, case in cases.items():
        if name not in edge_kinds:
            problems.append(f"case {name} has no EDGE_KINDS entry")
            continue
        op, kinds = edge_kinds[name]
        if op not in differentiable:
            problems.append(f"case {name}: '{op}' has no KILN_GRAD row")
        elif op not in {found for _, found in NODE_RE.findall(case.kir)}:
            problems.append(f"case {name} tries '{op}', which its graph does not use")
        elif (why := eligibility(case, op_kinds)) is not None:
            problems.append(f"case {name}: the gradient oracle leaves it out ({why})")
        else:
            kinds_of.setdefault(op, set()).update(kinds)
            cases_of.setdefault(op, []).append(name)
    problems += [f"EDGE_KINDS names {name}, which is no case" for name in edge_kinds if name not in cases]
    missing = sorted(differentiable - kinds_of.keys())
    problems += [f"no edge case the gradient oracle checks tries '{op}'" for op in missing]

    if verbose:
        for op in sorted(kinds_of):
            print(f"{op}: {', '.join(sorted(kinds_of[op]))}  ({', '.join(cases_of[op])})")
    print(f"{len(kinds_of)} of {len(differentiable)} differentiable ops have edge cases the gradient oracle checks")
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
