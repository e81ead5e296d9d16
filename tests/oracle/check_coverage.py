#!/usr/bin/env python3
"""Fails unless every op of src/ops/ops.def appears in at least one oracle case graph
(tests/oracle/cases_*.py), so a new op cannot land without a test against PyTorch."""
import importlib.util
import pathlib
import re
import sys

here = pathlib.Path(__file__).resolve().parent
root = here.parent.parent
sys.path.insert(0, str(here))

ops_def = (root / "src" / "ops" / "ops.def").read_text()
ops = re.findall(r'^KILN_OP\(\w+,\s*"([A-Za-z0-9_]+)\(', ops_def, re.M)

used = set()
for path in sorted(here.glob("cases_*.py")):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for case in module.CASES:
        used.update(re.findall(r"=\s*([A-Za-z0-9_]+)\(", case.kir))

# Ops with no PyTorch counterpart to compare with: a user kernel's call runs the user's own
# code (tests/unit/test_user_kernels.cc checks it against eager execution instead).
NO_ORACLE = {"kernel_call", "kernel_call_functional"}
missing = [op for op in ops if op not in used and op not in NO_ORACLE]
print(f"{len(ops) - len(missing)} of {len(ops)} ops have oracle cases")
for op in missing:
    print(f"  no oracle case uses '{op}'")
sys.exit(1 if missing else 0)
