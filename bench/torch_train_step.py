"""PyTorch's side of kiln_bench_cpu_train_step: the same transformer block
(tests/conformance/torch_min_cut.py), one training step (forward, loss, backward) on the CPU
in eager mode and under torch.compile (Inductor's C++/OpenMP backend), with the thread count
kiln uses. Prints one JSON object:
  eager_ms, compiled_ms       median step times (with --rounds R: the best of R rounds' medians,
                              eager and compiled rounds interleaved)
  eager_rounds_ms, compiled_rounds_ms   each round's median
  compile_cold_s              the first compiled step (a fresh Inductor cache) minus an eager step
  eager_peak_bytes            growth of the process's peak RSS over one eager step (activations,
                              gradients and workspace; the parameters and input already exist)

    python bench/torch_train_step.py --batch 8 --seq 128 --width 256 --heads 4 --threads 2 --runs 11
"""
import argparse
import json
import os
import resource
import sys
import tempfile
import time

# A fresh Inductor cache, so that the first compiled step is a cold compile.
os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="kiln-bench-inductor-")

import torch  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "conformance"))
from torch_min_cut import TransformerBlock  # noqa: E402
from torch_timing import median_ms  # noqa: E402


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def step(model, x):
    for p in model.parameters():
        p.grad = None
    loss = model(x)
    loss.backward()
    return loss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--width", type=int, default=256)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--rounds", type=int, default=1, help="rounds of eager and compiled steps, interleaved; "
                    "the best round's median is reported")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    block = TransformerBlock(a.width, a.heads)
    x = torch.randn(a.batch, a.seq, a.width)

    before = rss_bytes()
    step(block, x)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    eager_rounds = [median_ms(lambda: step(block, x), a.runs)]

    compiled = torch.compile(block)
    t0 = time.perf_counter()
    step(compiled, x)
    first = time.perf_counter() - t0
    compiled_rounds = [median_ms(lambda: step(compiled, x), a.runs)]
    for _ in range(a.rounds - 1):
        eager_rounds.append(median_ms(lambda: step(block, x), a.runs))
        compiled_rounds.append(median_ms(lambda: step(compiled, x), a.runs))
    print(json.dumps({
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "eager_ms": min(eager_rounds),
        "compiled_ms": min(compiled_rounds),
        "eager_rounds_ms": [round(v, 1) for v in eager_rounds],
        "compiled_rounds_ms": [round(v, 1) for v in compiled_rounds],
        "compile_cold_s": first - eager_rounds[0] / 1e3,
        "eager_peak_bytes": max(0, peak),
    }))


if __name__ == "__main__":
    main()
