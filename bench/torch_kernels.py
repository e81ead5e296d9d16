#!/usr/bin/env python3
"""PyTorch eager (CPU) timings of kiln_bench_cpu_kernels' cases, for the same table.

  torch_kernels.py --threads N --runs R

Prints one JSON object: milliseconds (median of R runs after a warm-up) of a copy of 16M
float32, the same 8-op pointwise chain, softmax and layer_norm over [8192, 1024] float32 forward,
and their backward kernels (aten's _softmax_backward_data and native_layer_norm_backward)."""
import argparse
import json

import torch

from torch_timing import median_ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--runs", type=int, default=11)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    g = torch.Generator().manual_seed(11)
    x = torch.randn(4096, 4096, generator=g)
    y = torch.empty_like(x)

    def chain():
        v = torch.neg(torch.div(torch.maximum(torch.square(torch.relu(x * 2.0 + 1.0) - 0.5), x), 3.0))
        return v

    r = torch.randn(8192, 1024, generator=g)
    grad = torch.randn(8192, 1024, generator=g)
    w, b = torch.randn(1024, generator=g), torch.randn(1024, generator=g)
    sm = torch.softmax(r, -1)
    _, mean, rstd = torch.ops.aten.native_layer_norm(r, [1024], w, b, 1e-5)
    out = {
        "copy_ms": median_ms(lambda: y.copy_(x), a.runs),
        "chain8_ms": median_ms(chain, a.runs),
        "softmax_fwd_ms": median_ms(lambda: torch.softmax(r, -1), a.runs),
        "softmax_bwd_ms": median_ms(lambda: torch.ops.aten._softmax_backward_data(grad, sm, -1, torch.float32), a.runs),
        "layer_norm_fwd_ms": median_ms(lambda: torch.nn.functional.layer_norm(r, [1024], w, b), a.runs),
        "layer_norm_bwd_ms": median_ms(
            lambda: torch.ops.aten.native_layer_norm_backward(grad, r, [1024], mean, rstd, w, b, [True, True, True]),
            a.runs),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
