"""Generated C++ units side by side: the same graph's kernels as two (or more) builds of kiln
emit them, compiled with the CPU backend's flags and run alternately on the same buffers.

Compares code generation changes without the noise of a shared machine favouring one side:
each round runs every unit's kernels once, in turn, and the report gives per unit the median
time, its 10th-90th percentile spread, and the median of the rounds' own ratios against the
first unit (each round's runs being adjacent in time). `--clock cpu` times the process's CPU
time instead of the wall clock: with OMP_NUM_THREADS=1 on a machine that other work keeps
busy, it leaves out the time the kernels wait for a core. Units come from
`kiln build FILE --device=cpu --emit=cpp > unit.cpp`; buffers are allocated from the unit's
header ("Buffers used:"), 64-byte aligned as kiln's storage is, floating inputs (f16 and
bf16 as their bits) filled with seeded normal values, the same for every unit, and the
kernels run in the unit's order. Only
units whose kernels all have C++ (no extern kernel) can run here.

    .venv/bin/python bench/cpp_units_ab.py [--rounds N] [--clock wall|cpu] old.cpp new.cpp [more.cpp ...]
    .venv/bin/python bench/cpp_units_ab.py --extra-flags=-ffp-contract=fast unit.cpp unit.cpp
"""
import argparse
import ctypes
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

# runtime/cpu/toolchain.cc's flags.
FLAGS = ["-O3", "-march=native", "-mprefer-vector-width=512", "-fopenmp", "-fPIC", "-shared", "-fno-math-errno",
         "-fno-trapping-math", "-ffp-contract=off", "-std=c++17"]
DTYPES = {"f64": np.float64, "f32": np.float32, "f16": np.uint16, "bf16": np.uint16, "i64": np.int64, "i32": np.int32,
          "i16": np.int16, "i8": np.int8, "u8": np.uint8, "bool": np.uint8}
BUFFER = re.compile(r"^//\s+(\d+) %(\S+) : (\w+)\[([\d,]*)\] strides \[([\d,-]*)\] \((\w+)\)")
KERNEL = re.compile(r'^extern "C" void (\w+)\(char\* const\* buffers\)')


def aligned(count, dtype):
    """A zeroed array of `count` elements whose data starts on 64 bytes."""
    raw = np.zeros(count * np.dtype(dtype).itemsize + 64, dtype=np.uint8)
    offset = (-raw.ctypes.data) % 64
    return raw[offset:offset + count * np.dtype(dtype).itemsize].view(dtype)


def parse(path):
    buffers, kernels = {}, []
    with open(path) as f:
        for line in f:
            m = BUFFER.match(line)
            if m:
                sizes = [int(s) for s in m.group(4).split(",") if s]
                strides = [int(s) for s in m.group(5).split(",") if s]
                span = 1 + sum((n - 1) * abs(s) for n, s in zip(sizes, strides)) if all(sizes) else 0
                buffers[int(m.group(1))] = (m.group(2), m.group(3), span, m.group(6))
            m = KERNEL.match(line)
            if m:
                kernels.append(m.group(1))
    return buffers, kernels


def compile_unit(path, out_dir, number, extra_flags):
    lib = os.path.join(out_dir, f"{number}_{os.path.basename(path)}.so")
    subprocess.run([os.environ.get("CXX", "c++"), *FLAGS, *extra_flags, path, "-o", lib], check=True)
    return ctypes.CDLL(lib)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=41)
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    ap.add_argument("--extra-flags", default="",
                    help="flags (space-separated) added after the backend's for every unit but the first: "
                         "the same unit given twice then compares two sets of flags")
    ap.add_argument("units", nargs="+")
    args = ap.parse_args()
    layouts = [parse(u) for u in args.units]
    buffers = layouts[0][0]
    if any(b != buffers for b, _ in layouts):
        sys.exit("the units' buffers differ: they must come from the same graph")
    rng = np.random.default_rng(11)
    arrays = {}
    for b, (name, dtype, span, role) in buffers.items():
        arrays[b] = aligned(span, DTYPES[dtype])
        values = rng.standard_normal(span)
        if role == "input" and dtype in ("f32", "f64"):
            arrays[b][:] = values
        elif role == "input" and dtype == "f16":
            arrays[b][:] = values.astype(np.float16).view(np.uint16)
        elif role == "input" and dtype == "bf16":
            arrays[b][:] = (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    count = max(buffers) + 2  # the buffers, then the error slot
    error_slot = aligned(1, np.int32)
    table = (ctypes.c_void_p * count)()
    for b, a in arrays.items():
        table[b] = a.ctypes.data
    table[count - 1] = error_slot.ctypes.data
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        for number, (unit, (_, kernels)) in enumerate(zip(args.units, layouts)):
            lib = compile_unit(unit, tmp, number, args.extra_flags.split() if number > 0 else [])
            functions = [getattr(lib, k) for k in kernels]
            for fn in functions:
                fn.argtypes = [ctypes.c_void_p]
            runs.append(lambda fs=functions: [fn(table) for fn in fs])
        for run in runs:  # warm-up: page faults, OpenMP's threads
            run()
        clock = time.perf_counter if args.clock == "wall" else time.process_time
        times = [[] for _ in runs]
        for _ in range(args.rounds):
            for run, t in zip(runs, times):
                t0 = clock()
                run()
                t.append(clock() - t0)
    print(f"{'unit':<40} {'median ms':>10} {'p10 ms':>8} {'p90 ms':>8}  ratio to the first (per round: median, p10-p90)")
    for unit, t in zip(args.units, times):
        q = statistics.quantiles(t, n=10)
        ratios = sorted(a / b for a, b in zip(t, times[0]))
        r = statistics.quantiles(ratios, n=10)
        print(f"{unit:<40} {1e3 * statistics.median(t):>10.3f} {1e3 * q[0]:>8.3f} {1e3 * q[-1]:>8.3f}  "
              f"{statistics.median(ratios):.3f} ({r[0]:.3f}-{r[-1]:.3f})")


if __name__ == "__main__":
    main()
