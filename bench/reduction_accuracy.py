"""Relative errors of the CPU backend's reductions against float64, through `kiln run
--device=cpu` of a given kiln binary (so that two builds compare on the same cases):

  - one float32 value summed over 10^8 and 2^31 points (an expand of a 0-d tensor: nothing
    large is allocated), its mean, rows of [2, 2^30] and columns of [2^25, 64]; one float64
    value over 10^8 points;
  - normal values plus 1 at 10^3 .. 10^8 points through sum, mean, var, a sum of products and
    logsumexp (against math.fsum and numpy in float64);
  - the same values times 1e4 with every other one negated (they cancel): the sum's error
    relative to the sum of the magnitudes.

docs/PERF.md ("Sums in blocks") records its output before and after blocked summation.

    .venv/bin/python bench/reduction_accuracy.py build/bin/kiln
"""
import math
import os
import subprocess
import sys
import tempfile

import numpy as np


def run(kiln, tmp, text, inputs):
    """The outputs of graph `text` run by `kiln run --device=cpu` on `inputs`."""
    graph = os.path.join(tmp, "g.kir")
    with open(graph, "w") as f:
        f.write(text)
    names = []
    for i, a in enumerate(inputs):
        names.append(os.path.join(tmp, f"in{i}.npy"))
        np.save(names[-1], a)
    out = tempfile.mkdtemp(dir=tmp)
    subprocess.run([kiln, "run", graph, "--device=cpu", "--outputs", out, "--inputs", ",".join(names)], check=True,
                   stdout=subprocess.DEVNULL)
    count = len([n for n in os.listdir(out) if n.endswith(".npy")])
    return [np.load(os.path.join(out, f"out{i}.npy")) for i in range(count)]


def rel(got, want):
    return abs(float(got) - want) / abs(want)


def main():
    kiln = sys.argv[1]
    tmp = tempfile.mkdtemp()
    for n in [10**8, 2**31]:
        for v in [np.float32(0.1), np.float32(-1.0827637)]:
            text = (f"graph @g(%c: f32[]) -> (f32[], f32[]) {{\n %e = expand(%c) {{size=[{n}]}} : f32[{n}]\n"
                    f" %0 = sum(%e) : f32[]\n %1 = mean(%e) : f32[]\n return %0, %1\n}}")
            s, m = run(kiln, tmp, text, [np.array(v, dtype=np.float32)])
            print(f"f32 sum of {n} x {float(v):.8g}: {rel(s, n * float(v)):.2e}; mean {rel(m, float(v)):.2e}")
    n = 2**30
    text = (f"graph @g(%c: f32[1], %w: f32[1,64]) -> (f32[2], f32[64]) {{\n"
            f" %e = expand(%c) {{size=[2,{n}]}} : f32[2,{n}]\n %0 = sum(%e) {{dim=[1]}} : f32[2]\n"
            f" %we = expand(%w) {{size=[{2**25},64]}} : f32[{2**25},64]\n %1 = sum(%we) {{dim=[0]}} : f32[64]\n"
            f" return %0, %1\n}}")
    w = np.random.default_rng(1).standard_normal((1, 64)).astype(np.float32)
    rows, columns = run(kiln, tmp, text, [np.array([0.1], dtype=np.float32), w])
    print(f"f32 rows of [2, 2^30] x 0.1: {max(rel(r, n * float(np.float32(0.1))) for r in rows):.2e}")
    print(f"f32 columns of [2^25, 64]: {max(rel(columns[j], 2**25 * float(w[0, j])) for j in range(64)):.2e}")
    text = ("graph @g(%c: f64[]) -> (f64[]) {\n %e = expand(%c) {size=[100000000]} : f64[100000000]\n"
            " %0 = sum(%e) : f64[]\n return %0\n}")
    (s,) = run(kiln, tmp, text, [np.array(0.1)])
    print(f"f64 sum of 100000000 x 0.1: {rel(s, 1e8 * 0.1):.2e}")
    rng = np.random.default_rng(0)
    for n in [10**3, 10**5, 10**6, 10**7, 10**8]:
        x = (rng.standard_normal(n) + 1).astype(np.float32)
        y = rng.standard_normal(n).astype(np.float32)
        t = f"f32[{n}]"
        text = (f"graph @g(%x: {t}, %y: {t}) -> (f32[], f32[], f32[], f32[], f32[]) {{\n %0 = sum(%x) : f32[]\n"
                f" %1 = mean(%x) : f32[]\n %2 = var(%x) : f32[]\n %p = mul(%x, %y) : {t}\n %3 = sum(%p) : f32[]\n"
                f" %4 = logsumexp(%x) {{dim=[0]}} : f32[]\n return %0, %1, %2, %3, %4\n}}")
        out = run(kiln, tmp, text, [x, y])
        xd, yd = x.astype(np.float64), y.astype(np.float64)
        want = [math.fsum(xd), math.fsum(xd) / n, np.var(xd, ddof=1), math.fsum(xd * yd),
                float(np.log(np.sum(np.exp(xd - xd.max()))) + xd.max())]
        errors = [rel(o, w_) for o, w_ in zip(out, want)]
        cancelling = ((x - 1) * np.where(np.arange(n) % 2, -1e4, 1e4)).astype(np.float32)
        c = run(kiln, tmp, text, [cancelling, y])[0]
        cd = cancelling.astype(np.float64)
        print(f"normal + 1, n={n}: sum {errors[0]:.1e} mean {errors[1]:.1e} var {errors[2]:.1e} "
              f"sum of products {errors[3]:.1e} logsumexp {errors[4]:.1e}; "
              f"cancelling sum (of the magnitudes) {abs(float(c) - math.fsum(cd)) / np.abs(cd).sum():.1e}")


if __name__ == "__main__":
    main()
