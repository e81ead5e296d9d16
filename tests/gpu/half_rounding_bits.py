#!/usr/bin/env python3
"""The CUDA backend's f32 -> bf16 and f32 -> f16 rounding against core/half.cc's, bit for bit.

  half_rounding_bits.py --kiln build/bin/kiln

The CUDA prelude rounds with the hardware's cvt.rn.bf16.f32 / cvt.rn.f16.f32 (docs/CUDA_CODEGEN.md,
"Approximate functions for half-precision results"), the interpreter with core/half.cc's software
rounding. A graph `_to_copy(%x) {dtype=D}` runs on both over f32 values whose bits matter to the
rounding: every sign, exponent and top mantissa bits (the top 16 bits, all 65536 of them) with the
low 16 bits at and around each rounding boundary of both dtypes, every f32 subnormal pattern
class, the infinities and NaNs, and random bits. Every non-NaN input must give the same bits; a NaN
must give a NaN (its sign and payload may differ: the hardware's canonical NaN). Exits 1 on a
difference, 77 (skipped) where kiln finds no CUDA device."""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

BF16_DESCR = np.dtype([("bf16", "<u2")])
MISSING_DEVICE = ("no CUDA device", "the CUDA driver (libcuda.so.1)", "cuInit", "CUDA_ERROR_NO_DEVICE",
                  "CUDA_ERROR_STUB_LIBRARY")


def inputs():
    """f32 bit patterns: each top half with low halves at the rounding boundaries of bf16 (bit 15)
    and of f16's normals (bit 12) and subnormals (bits 13 to 23 above the top half), plus random bits."""
    lows = set()
    for bit in range(16):
        half = 1 << bit
        for d in (-1, 0, 1):
            lows.add((half + d) & 0xffff)
            lows.add((half * 3 + d) & 0xffff)  # the boundary above an odd kept digit
    lows.update((0, 0xffff, 0x7fff, 0x8000, 0x8001))
    low = np.array(sorted(lows), dtype=np.uint32)
    top = np.arange(1 << 16, dtype=np.uint32) << 16
    structured = (top[:, None] | low[None, :]).reshape(-1)
    rng = np.random.default_rng(19)
    random = rng.integers(0, 1 << 32, size=1 << 23, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([structured, random]).view(np.float32)


def run(kiln, kir, x_path, out_dir, device):
    proc = subprocess.run([kiln, "run", kir, "--inputs", x_path, "--outputs", out_dir, f"--device={device}"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0 and device == "cuda" and any(m in proc.stderr for m in MISSING_DEVICE):
        print(f"no CUDA device: {proc.stderr.strip().splitlines()[0]}")
        sys.exit(77)
    if proc.returncode != 0:
        sys.exit(f"kiln run --device={device} failed:\n{proc.stderr}")
    arr = np.load(os.path.join(out_dir, "out0.npy"))
    return arr["bf16"].copy() if arr.dtype.names == ("bf16",) else arr.view(np.uint16)


def compare(kiln, work, x, dtype):
    n = x.size
    kir = os.path.join(work, f"{dtype}.kir")
    with open(kir, "w") as f:
        f.write(f"graph @round(%x: f32[{n}]) -> ({dtype}[{n}]) {{\n"
                f"  %0 = _to_copy(%x) {{dtype={dtype}}} : {dtype}[{n}]\n  return %0\n}}\n")
    x_path = os.path.join(work, "x.npy")
    got = run(kiln, kir, x_path, os.path.join(work, f"{dtype}_cuda"), "cuda")
    want = run(kiln, kir, x_path, os.path.join(work, f"{dtype}_interp"), "interpreter")
    exponent, mantissa = (0x7f80, 0x7f) if dtype == "bf16" else (0x7c00, 0x3ff)
    got_nan = ((got & exponent) == exponent) & ((got & mantissa) != 0)
    want_nan = ((want & exponent) == exponent) & ((want & mantissa) != 0)
    nan_in = np.isnan(x)
    bad = (~nan_in & (got != want)) | (nan_in & ~(got_nan & want_nan))
    print(f"{dtype}: {n} values ({int(nan_in.sum())} NaN), {int(bad.sum())} differ")
    for i in np.flatnonzero(bad)[:10]:
        print(f"  f32 bits {x.view(np.uint32)[i]:#010x}: cuda {got[i]:#06x}, interpreter {want[i]:#06x}")
    return not bad.any()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kiln", required=True)
    args = parser.parse_args()
    x = inputs()
    with tempfile.TemporaryDirectory(prefix="kiln_half_bits_") as work:
        np.save(os.path.join(work, "x.npy"), x)
        ok = [compare(args.kiln, work, x, dtype) for dtype in ("bf16", "f16")]
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
