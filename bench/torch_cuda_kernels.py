#!/usr/bin/env python3
"""PyTorch on the GPU, eager and torch.compile, on kiln_bench_cuda_kernels' cases, for its table.

  torch_cuda_kernels.py --runs R

Each case is the computation of the bench's kiln graph of the same name, on the same shapes and
dtypes (random inputs made on the device). Each function is timed with CUDA events around each
call, after warm-up calls: the median of R. torch.compile uses its default mode; the seconds its
first call took (compiling, cold or from Inductor's cache) are reported as <case>_compile_s.
After each case it prints one flat JSON object of every figure so far (the last line holds them
all; a run cut short leaves the cases it finished): <case>_eager_ms, <case>_compile_ms,
<case>_compile_s, and the torch version and device name. A case that fails is named on stderr and
left out."""
import argparse
import json
import statistics
import sys
import time

import torch

BF16, F32 = torch.bfloat16, torch.float32


def cases():
    """name -> (function, inputs): the bench's graphs (bench/cuda_kernels_bench.cc), in torch."""
    def randn(*shape, dtype=BF16):
        return torch.randn(*shape, device="cuda", dtype=dtype)

    def chain8(x):
        v = torch.tanh(x * 1.5 + 0.25) * x
        return torch.exp(torch.sigmoid(v) - 0.5) * 0.75

    def layer_norm(x, w, b):
        return torch.nn.functional.layer_norm(x, [x.shape[-1]], w, b)

    def reduction_blocks(x, y, z, w):
        return x.sum(1), y.sum(), x.amax(1), x.prod(1), (z * w).sum((1, 2))

    def layer_norm_backward(grad, x, mean, rstd, w, b):
        return torch.ops.aten.native_layer_norm_backward(grad, x, [x.shape[-1]], mean, rstd, w, b, [True, True, True])

    big = (8192, 50257)
    x_ln = randn(32768, 1024, dtype=F32)
    ln_w, ln_b = randn(1024, dtype=F32), randn(1024, dtype=F32)
    _, ln_mean, ln_rstd = torch.ops.aten.native_layer_norm(x_ln, [1024], ln_w, ln_b, 1e-5)
    return {
        "chain8": (chain8, [randn(8192, 8192)]),
        "softmax_16384x1024": (lambda x: torch.softmax(x, -1), [randn(16384, 1024)]),
        "softmax_8192x50257": (lambda x: torch.softmax(x, -1), [randn(*big)]),
        "layer_norm_16384x1024": (layer_norm, [randn(16384, 1024), randn(1024), randn(1024)]),
        "layer_norm_8192x50257": (layer_norm, [randn(*big), randn(big[1]), randn(big[1])]),
        "column_sum_65536x1024": (lambda x: x.sum(0), [randn(65536, 1024)]),
        "conv2d_3x3_32x64x56x56": (lambda x, w, b: torch.nn.functional.conv2d(x, w, b, padding=1),
                                   [randn(32, 64, 56, 56), randn(64, 64, 3, 3), randn(64)]),
        "golden_pointwise_chain": (lambda x: torch.relu(torch.tanh(torch.sigmoid(-torch.exp(x)))),
                                   [randn(8192, 8192, dtype=F32)]),
        "golden_reduction_rows": (lambda x: (x.sum(1), x.amax(1, keepdim=True)), [randn(32768, 1024, dtype=F32)]),
        "golden_reduction_blocks": (reduction_blocks, [randn(16384, 1000, dtype=F32), randn(1 << 24, dtype=F32),
                                                       randn(16384, 50, 20, dtype=F32), randn(20, dtype=F32)]),
        "golden_softmax": (lambda x: torch.softmax(x, -1), [randn(32768, 1024, dtype=F32)]),
        "golden_layer_norm_backward": (layer_norm_backward, [randn(32768, 1024, dtype=F32), x_ln, ln_mean, ln_rstd,
                                                                  ln_w, ln_b]),
    }


def median_ms(fn, inputs, runs, warmup=3):
    """Milliseconds of fn(*inputs) by CUDA events around each call: the median of `runs`."""
    for _ in range(warmup):
        fn(*inputs)
    marks = [torch.cuda.Event(enable_timing=True) for _ in range(runs + 1)]
    marks[0].record()
    for i in range(runs):
        fn(*inputs)
        marks[i + 1].record()
    torch.cuda.synchronize()
    return statistics.median(marks[i].elapsed_time(marks[i + 1]) for i in range(runs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--only", default="", help="only the cases whose name contains this")
    a = ap.parse_args()
    torch.manual_seed(11)
    out = {"torch_version": torch.__version__, "device": torch.cuda.get_device_name()}
    with torch.no_grad():
        for name, (fn, inputs) in cases().items():
            if a.only not in name:
                continue
            try:
                out[name + "_eager_ms"] = median_ms(fn, inputs, a.runs)
                compiled = torch.compile(fn)
                t0 = time.perf_counter()
                compiled(*inputs)
                torch.cuda.synchronize()
                out[name + "_compile_s"] = time.perf_counter() - t0
                out[name + "_compile_ms"] = median_ms(compiled, inputs, a.runs)
            except Exception as e:  # one case failing leaves the others' figures
                print(f"{name}: {type(e).__name__}: {e}", file=sys.stderr)
            print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
