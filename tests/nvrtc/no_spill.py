"""The no-spill compile test: every graph of the lit suite's .kir files and of the oracle's cases,
lowered for the CUDA backend and compiled with NVRTC to sm_90 (kiln_cuda_no_spill), must compile
with no register spill and no local-memory stack frame. Exit 77 (skipped) without NVRTC."""
import argparse
import glob
import importlib
import os
import subprocess
import sys
import tempfile


def oracle_graphs(oracle_dir, out_dir):
    """Writes each oracle case's graph that is not expected to fail into out_dir; their paths."""
    sys.path.insert(0, oracle_dir)
    import oracle_case
    paths = []
    for cases_file in sorted(glob.glob(os.path.join(oracle_dir, "cases_*.py"))):
        area = os.path.basename(cases_file)[len("cases_"):-len(".py")]
        oracle_case.reset_generator()
        module = importlib.import_module("cases_" + area)
        for i, case in enumerate(getattr(module, "CASES", [])):
            if case.expect_error or not case.kir:
                continue
            path = os.path.join(out_dir, f"oracle_{area}_{i}.kir")
            with open(path, "w") as f:
                f.write(case.kir)
            paths.append(path)
    return paths


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--lit-dir", required=True)
    ap.add_argument("--oracle-dir", required=True)
    args = ap.parse_args()
    lit = sorted(glob.glob(os.path.join(args.lit_dir, "**", "*.kir"), recursive=True))
    with tempfile.TemporaryDirectory() as tmp:
        files = lit + oracle_graphs(args.oracle_dir, tmp)
        print(f"{len(lit)} lit files, {len(files) - len(lit)} oracle cases", flush=True)
        return subprocess.run([args.tool] + files).returncode


if __name__ == "__main__":
    sys.exit(main())
